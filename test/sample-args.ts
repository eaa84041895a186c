/**
 * Realistic arguments for every tool, per fixture vault: what the auth matrix, the OpenAPI response
 * check and the fuzz test call each tool with. A tool without an entry fails those tests, so every new
 * tool gets covered.
 */
import { fixture } from './helpers.js';
import type { VaultFixture } from '../src/vault-format/schema.js';

const VAULT_DIRS = { 'northwind-logistics': 'northwind', 'meridian-health': 'meridian' } as const;
const cache = new Map<string, VaultFixture>();

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function sampleArgs(tool: string, vaultId: keyof typeof VAULT_DIRS): Record<string, unknown> {
  const f = cache.get(vaultId) ?? fixture(VAULT_DIRS[vaultId]);
  cache.set(vaultId, f);
  const entity = f.entities.find((e) => f.edges.some((x) => x.from === e.id))!;
  const meeting = f.meetings.find((m) => m.extractionStatus === 'extracted')!;
  const file = f.files.find((x) => x.visibility === 'public')!;
  const person = f.people[0]!;
  const vault = vaultId;
  const args: Record<string, Record<string, unknown>> = {
    list_vaults: {},
    suggest_vault_scope: { conversation: `Let's review what ${person.name} said about ${f.vault.keywords[0]}.` },
    stats: { vault },
    get_brief: { vault, kind: 'weekly-plan' },
    search_knowledge: { vault, query: entity.name.split(' ')[0]!, limit: 5 },
    search_transcripts: { vault, query: `what was said about ${f.vault.keywords[0]}`, limit: 3 },
    get_entity: { vault, entityId: entity.id, includeEvidence: true },
    expand_graph: { vault, entityId: entity.id, depth: 2 },
    list_findings: { vault, sort: 'recent', limit: 20, compact: false },
    list_conflicts: { vault, status: 'all' },
    changes_since: { vault, since: new Date(Date.now() - 14 * 86_400_000).toISOString() },
    list_meetings: { vault },
    get_meeting: { vault, meetingId: meeting.id },
    get_transcript: { vault, meetingId: meeting.id, offset: 2, limit: 5 },
    list_calendar: { vault },
    list_tasks: { vault, status: 'open' },
    list_milestones: { vault },
    list_plan_steps: { vault },
    list_files: { vault },
    get_file: { vault, fileId: file.id },
    find_artifact: { vault, limit: 5 },
    find_person: { vault, query: person.name.split(' ')[0] },
    list_sent_emails: { vault, limit: 5 },
    find_email_thread: { vault, query: 'has:attachment newer_than:120d', limit: 10 },
    search_agent_memory: { vault, query: f.vault.keywords[0]!, limit: 5 },
    check_quotes: {
      vault,
      text: `Notes for the steering committee.\n\n“${f.meetings[0]!.transcript![3]!.text}” — ${f.meetings[0]!.transcript![3]!.speaker}\n\n"We have already replaced every system on every site," said ${person.name}.`,
    },
    resolve_conflict: {
      vault,
      conflictId: f.conflicts.find((c) => c.status === 'open')!.id,
      status: 'resolved',
      note: 'Validated with the client on site.',
    },
    add_task: {
      vault,
      title: 'Follow up on the open conflicts',
      priority: 'high',
      labels: ['follow-up'],
      milestoneId: f.milestones[0]!.id,
      dueDate: inDays(10).slice(0, 10),
    },
    update_task: { vault, identifier: `${f.vault.boardPrefix}-1`, status: 'doing', assigneeName: person.name },
    schedule_meeting: {
      vault,
      title: 'Validation workshop',
      startIso: inDays(7),
      attendees: [person.email],
      durationMinutes: 45,
    },
    render_chart: {
      vault,
      title: 'Mentions by entity type',
      vega_lite_spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
        data: {
          values: [
            { type: 'system', n: 11 },
            { type: 'problem', n: 9 },
            { type: 'kpi', n: 7 },
          ],
        },
        mark: 'bar',
        encoding: { y: { field: 'type', type: 'nominal', sort: '-x' }, x: { field: 'n', type: 'quantitative' } },
      },
    },
    export_report: { vault, dataset: 'conflicts', format: 'csv' },
    export_workbook: {
      vault,
      title: 'Weekly numbers',
      sheets: [
        {
          name: 'KPIs',
          columns: [
            { header: 'KPI', key: 'kpi' },
            { header: 'Value', key: 'value', numFmt: '0.0%' },
          ],
          rows: [{ kpi: 'Accuracy', value: 0.961 }],
        },
      ],
      sources: ['Cycle count extract'],
    },
    export_deck: { vault, title: 'Steering committee: what we found', maxItems: 4 },
    send_email: {
      vault,
      to: person.email,
      subject: 'Notes from this week',
      body: 'Hello,\n\nThe notes are attached to the vault.\n',
    },
  };
  const a = args[tool];
  if (!a) throw new Error(`test/sample-args.ts has no sample arguments for tool ${tool}: add them`);
  return a;
}
