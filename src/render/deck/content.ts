/**
 * What goes into a deck, read from the store: the vault, the headline numbers, the featured findings and open
 * conflicts (featured.ts), the data of the charts, the next steps and the sources. Every read is bounded by
 * what a slide can show (top items, counts, grouped dates), so a vault of 100,000 findings reads as fast as
 * the demo's.
 */
import type { Db } from '../../store/db.js';
import { countsByType, pageFindings, type EntityType } from '../../store/entities.js';
import { entitiesFirstSeenPerDay } from '../../store/entity-export.js';
import { latestMeetings, meetingCounts, meetingsPerDay } from '../../store/meetings.js';
import { listMilestones, listPlanSteps, listTasks, taskCountsByStatus } from '../../store/plan.js';
import type { Vault } from '../../store/vaults.js';
import { deckFeatured, type DeckFeatured } from './featured.js';

export { entityTypePlural as typePlural } from '../../core/vocabulary.js';

/** The most a chart shows: bars of a ranking, and periods of the meetings chart. */
const CHART_BARS = 10;
const CHART_PERIODS = 26;
/** The most meetings the appendix lists, tasks per milestone and milestones the next steps show before "N more". */
const SOURCES = 24;
const OPEN_CONFLICTS = 4;

export interface Periods {
  unit: 'week' | 'month';
  periods: { start: string; n: number }[];
}

export interface DeckContent {
  vault: Pick<Vault, 'id' | 'name' | 'client' | 'description'>;
  title: string;
  /** When the deck was made (the title slide's date). */
  date: Date;
  focus: EntityType[];
  numbers: { findings: number; byType: { type: string; n: number }[]; meetings: number; openConflicts: number; openTasks: number };
  featured: DeckFeatured;
  charts: {
    /** The first focus type's most mentioned (the featured ranking, longer). */
    ranking: { type: EntityType; bars: { name: string; mentions: number }[] };
    byType: { type: string; n: number }[];
    /** Meetings per week (or per month when they span more than CHART_PERIODS weeks), oldest first. */
    meetings: Periods;
    /** Findings by the week (or month) they were first seen: how discovery went. */
    discovery: Periods;
  };
  nextSteps: {
    milestones: { title: string; targetDate: string | null; tasks: { identifier: string; title: string; owner: string | null; dueDate: string | null }[] }[];
    /** Open tasks without a milestone. */
    unplanned: { identifier: string; title: string; owner: string | null; dueDate: string | null }[];
    openTasks: number;
    planSteps: { title: string; status: string; dueDate: string | null }[];
  };
  sources: { meetings: { id: string; name: string; startedAt: string; attendees: number }[]; total: number };
}

export function deckContent(db: Db, vault: Vault, options: { title?: string; focus: EntityType[]; maxItems: number; now: Date }): DeckContent {
  const byType = countsByType(db, vault.id).sort((a, b) => b.n - a.n || a.type.localeCompare(b.type));
  const meetings = meetingCounts(db, vault.id);
  const openTasks = taskCountsByStatus(db, vault.id).filter((s) => s.status !== 'done').reduce((a, s) => a + s.n, 0);
  const featured = deckFeatured(db, vault.id, { types: options.focus, maxItems: options.maxItems, maxConflicts: OPEN_CONFLICTS });
  const rankingType = options.focus[0]!;
  return {
    vault: { id: vault.id, name: vault.name, client: vault.client, description: vault.description },
    title: options.title ?? `${vault.name}: what we found`,
    date: options.now,
    focus: options.focus,
    numbers: { findings: byType.reduce((a, t) => a + t.n, 0), byType, meetings: meetings.total, openConflicts: featured.openConflicts, openTasks },
    featured,
    charts: {
      ranking: { type: rankingType, bars: pageFindings(db, vault.id, { type: rankingType }, 'mentions', CHART_BARS).map((r) => ({ name: r.name, mentions: r.mention_count })) },
      byType,
      meetings: periodsOf(meetingsPerDay(db, vault.id)),
      discovery: periodsOf(entitiesFirstSeenPerDay(db, vault.id)),
    },
    nextSteps: nextSteps(db, vault.id, openTasks),
    sources: { meetings: latestMeetings(db, vault.id, SOURCES), total: meetings.total },
  };
}

/** Monday of the UTC week of a day (YYYY-MM-DD). */
function weekStart(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

/** Counts per day as counts per week, or per month when the weeks would be more than a chart shows; the latest CHART_PERIODS periods. */
function periodsOf(days: { day: string; n: number }[]): Periods {
  const group = (key: (day: string) => string) => {
    const periods = new Map<string, number>();
    for (const { day, n } of days) periods.set(key(day), (periods.get(key(day)) ?? 0) + n);
    return [...periods].map(([start, n]) => ({ start, n }));
  };
  const first = days[0]?.day;
  const last = days.at(-1)?.day;
  const spanWeeks = first && last ? (Date.parse(last) - Date.parse(first)) / (7 * 86_400_000) : 0;
  if (spanWeeks < CHART_PERIODS) {
    // Every week between the first and the last, the empty ones too: a gap in the engagement shows.
    const counted = new Map(group(weekStart).map((p) => [p.start, p.n]));
    const periods: { start: string; n: number }[] = [];
    if (first && last) {
      for (let d = new Date(`${weekStart(first)}T00:00:00Z`); d.toISOString().slice(0, 10) <= last; d.setUTCDate(d.getUTCDate() + 7)) {
        const start = d.toISOString().slice(0, 10);
        periods.push({ start, n: counted.get(start) ?? 0 });
      }
    }
    return { unit: 'week', periods };
  }
  return { unit: 'month', periods: group((day) => `${day.slice(0, 7)}-01`).slice(-CHART_PERIODS) };
}

function nextSteps(db: Db, vaultId: string, openTasks: number): DeckContent['nextSteps'] {
  const open = listTasks(db, vaultId, { status: 'open' });
  const task = (t: (typeof open)[number]) => ({ identifier: t.identifier, title: t.title, owner: t.owner, dueDate: t.dueDate });
  const byMilestone = new Map<string, ReturnType<typeof task>[]>();
  for (const t of open) if (t.milestoneId) byMilestone.set(t.milestoneId, [...(byMilestone.get(t.milestoneId) ?? []), task(t)]);
  const milestones = listMilestones(db, vaultId)
    .filter((m) => byMilestone.has(m.id))
    .map((m) => ({ title: m.title, targetDate: m.targetDate, tasks: byMilestone.get(m.id)! }));
  return {
    milestones,
    unplanned: open.filter((t) => !t.milestoneId).map(task),
    openTasks,
    planSteps: listPlanSteps(db, vaultId)
      .filter((s) => !(['done', 'skipped'] as string[]).includes(s.status))
      .map((s) => ({ title: s.title, status: s.status, dueDate: s.dueDate })),
  };
}
