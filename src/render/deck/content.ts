/**
 * What goes into a deck, read from the store: the vault, the headline numbers, the featured findings and open
 * conflicts (featured.ts), the data of the charts, the next steps and the sources. Every read is bounded by
 * what a slide can show (top items, counts, a page of tasks and plan steps), so a vault of 100,000 findings,
 * conflicts, tasks or plan steps reads as fast as the demo's.
 */
import type { Db } from '../../store/db.js';
import { countsByType, pageFindings, type EntityType } from '../../store/entities.js';
import {
  findingsWithMentions,
  mentionsByDepartment,
  openTasksPage,
  planStepsAhead,
} from '../../store/featured-reads.js';
import { latestMeetings, meetingCounts } from '../../store/meetings.js';
import { taskCountsByStatus } from '../../store/plan.js';
import type { Vault } from '../../store/vaults.js';
import { deckFeatured, type DeckFeatured } from './featured.js';

export { entityTypePlural as typePlural } from '../../core/vocabulary.js';

/**
 * The most a chart shows (bars of a ranking; ties for the last place are kept up to CHART_BARS_MAX, and any
 * beyond are said under the chart), the meetings the appendix lists, the open conflicts shown one a slide, and
 * the open tasks and plan steps read for the next steps (more than a slide holds; the rest are counted).
 */
const CHART_BARS = 10;
const CHART_BARS_MAX = 14;
const SOURCES = 24;
const OPEN_CONFLICTS = 4;
const NEXT_TASKS = 40;
const NEXT_STEPS = 20;

/** A ranking for a chart: the bars, and the findings tied with the last bar that are not drawn. */
export interface Ranking {
  type: EntityType;
  bars: { name: string; mentions: number }[];
  /** Findings with the last bar's mentions left out (0 when every tie is drawn). */
  tiedLeftOut: number;
}

export interface NextTask {
  identifier: string;
  title: string;
  owner: string | null;
  dueDate: string | null;
}

export interface DeckContent {
  vault: Pick<Vault, 'id' | 'name' | 'client' | 'description'>;
  title: string;
  /** When the deck was made (the title slide's date). */
  date: Date;
  focus: EntityType[];
  numbers: {
    findings: number;
    byType: { type: string; n: number }[];
    meetings: number;
    openConflicts: number;
    openTasks: number;
  };
  featured: DeckFeatured;
  /**
   * The first two focus types by how often they came up in meetings (problems and opportunities by default),
   * and where they came up: the departments (sites) linked to them, when the vault links any.
   */
  charts: {
    rankings: Ranking[];
    byDepartment: { types: EntityType[]; bars: { name: string; findings: number; mentions: number }[] };
  };
  nextSteps: {
    /** The open tasks read (at most NEXT_TASKS), grouped by milestone in target date order; those without one last. */
    groups: { milestone: string | null; targetDate: string | null; tasks: NextTask[] }[];
    openTasks: number;
    planSteps: { title: string; status: string; dueDate: string | null }[];
    planStepsAhead: number;
  };
  sources: { meetings: { id: string; name: string; startedAt: string; attendees: number }[]; total: number };
}

export function deckContent(
  db: Db,
  vault: Vault,
  options: { title?: string; focus: EntityType[]; maxItems: number; now: Date },
): DeckContent {
  const byType = countsByType(db, vault.id).sort((a, b) => b.n - a.n || a.type.localeCompare(b.type));
  const meetings = meetingCounts(db, vault.id);
  const openTasks = taskCountsByStatus(db, vault.id)
    .filter((s) => s.status !== 'done')
    .reduce((a, s) => a + s.n, 0);
  const featured = deckFeatured(db, vault.id, {
    types: options.focus,
    maxItems: options.maxItems,
    maxConflicts: OPEN_CONFLICTS,
  });
  return {
    vault: { id: vault.id, name: vault.name, client: vault.client, description: vault.description },
    title: options.title ?? `${vault.name}: what we found`,
    date: options.now,
    focus: options.focus,
    numbers: {
      findings: byType.reduce((a, t) => a + t.n, 0),
      byType,
      meetings: meetings.total,
      openConflicts: featured.openConflicts,
      openTasks,
    },
    featured,
    charts: {
      rankings: options.focus.slice(0, 2).map((type) => ranking(db, vault.id, type)),
      byDepartment: {
        types: options.focus.slice(0, 2),
        bars: mentionsByDepartment(db, vault.id, options.focus.slice(0, 2), CHART_BARS),
      },
    },
    nextSteps: nextSteps(db, vault.id, openTasks),
    sources: { meetings: latestMeetings(db, vault.id, SOURCES), total: meetings.total },
  };
}

/**
 * The most mentioned findings of a type, ties for the last bar kept (up to CHART_BARS_MAX) or counted; findings
 * never mentioned in a meeting (from documents, assumptions) are no bar: a zero says nothing about how often.
 */
function ranking(db: Db, vaultId: string, type: EntityType): Ranking {
  const read = (n: number) =>
    pageFindings(db, vaultId, { type }, 'mentions', n)
      .filter((r) => r.mention_count > 0)
      .map((r) => ({ name: r.name, mentions: r.mention_count }));
  let bars = read(CHART_BARS);
  const last = bars.at(-1);
  if (bars.length < CHART_BARS || !last) return { type, bars, tiedLeftOut: 0 };
  const tied = findingsWithMentions(db, vaultId, type, last.mentions);
  const drawn = bars.filter((b) => b.mentions === last.mentions).length;
  if (tied > drawn) bars = read(Math.min(CHART_BARS_MAX, CHART_BARS + tied - drawn));
  return { type, bars, tiedLeftOut: tied - bars.filter((b) => b.mentions === last.mentions).length };
}

function nextSteps(db: Db, vaultId: string, openTasks: number): DeckContent['nextSteps'] {
  const groups: DeckContent['nextSteps']['groups'] = [];
  for (const t of openTasksPage(db, vaultId, NEXT_TASKS)) {
    let group = groups.at(-1);
    if (!group || group.milestone !== t.milestoneTitle)
      groups.push((group = { milestone: t.milestoneTitle, targetDate: t.milestoneTarget, tasks: [] }));
    group.tasks.push({ identifier: t.identifier, title: t.title, owner: t.owner, dueDate: t.dueDate });
  }
  const ahead = planStepsAhead(db, vaultId, NEXT_STEPS);
  return { groups, openTasks, planSteps: ahead.steps, planStepsAhead: ahead.total };
}
