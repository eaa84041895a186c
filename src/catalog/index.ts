/**
 * The catalog: every tool, once. Surfaces (MCP, REST, OpenAPI, CLI, README) read this list and nothing else.
 * Knowledge tools are open to any valid key; action tools need a manager key.
 */
import type { Tool } from './define.js';
import listVaults from './knowledge/list-vaults.js';
import suggestVaultScope from './knowledge/suggest-vault-scope.js';
import stats from './knowledge/stats.js';
import getBrief from './knowledge/get-brief.js';
import searchKnowledge from './knowledge/search-knowledge.js';
import searchTranscripts from './knowledge/search-transcripts.js';
import getEntity from './knowledge/get-entity.js';
import expandGraph from './knowledge/expand-graph.js';
import listFindings from './knowledge/list-findings.js';
import listConflicts from './knowledge/list-conflicts.js';
import changesSince from './knowledge/changes-since.js';
import listMeetings from './knowledge/list-meetings.js';
import getMeeting from './knowledge/get-meeting.js';
import getTranscript from './knowledge/get-transcript.js';
import listCalendar from './knowledge/list-calendar.js';
import listTasks from './knowledge/list-tasks.js';
import listMilestones from './knowledge/list-milestones.js';
import listPlanSteps from './knowledge/list-plan-steps.js';
import listFiles from './knowledge/list-files.js';
import getFile from './knowledge/get-file.js';
import findArtifact from './knowledge/find-artifact.js';
import findPerson from './knowledge/find-person.js';
import listSentEmails from './knowledge/list-sent-emails.js';
import findEmailThread from './knowledge/find-email-thread.js';
import searchAgentMemory from './knowledge/search-agent-memory.js';
import checkQuotes from './knowledge/check-quotes.js';
import resolveConflict from './actions/resolve-conflict.js';
import addTask from './actions/add-task.js';
import updateTask from './actions/update-task.js';
import scheduleMeeting from './actions/schedule-meeting.js';
import sendEmail from './actions/send-email.js';
import renderChart from './actions/render-chart.js';
import exportReport from './actions/export-report.js';
import exportWorkbook from './actions/export-workbook.js';
import exportDeck from './actions/export-deck.js';

/** In the orientation order first (list_vaults → suggest_vault_scope → stats → get_brief), then by family; actions last. */
export const tools: readonly Tool[] = [
  listVaults,
  suggestVaultScope,
  stats,
  getBrief,
  searchKnowledge,
  searchTranscripts,
  getEntity,
  expandGraph,
  listFindings,
  listConflicts,
  changesSince,
  listMeetings,
  getMeeting,
  getTranscript,
  listCalendar,
  listTasks,
  listMilestones,
  listPlanSteps,
  listFiles,
  getFile,
  findArtifact,
  findPerson,
  listSentEmails,
  findEmailThread,
  searchAgentMemory,
  checkQuotes,
  resolveConflict,
  addTask,
  updateTask,
  scheduleMeeting,
  sendEmail,
  renderChart,
  exportReport,
  exportWorkbook,
  exportDeck,
];

export const toolsByName: ReadonlyMap<string, Tool> = new Map(tools.map((t) => [t.name, t]));
