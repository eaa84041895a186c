/**
 * What a findings deliverable features up front: the headline numbers, the top problems and opportunities
 * (most mentioned first), each with one line of description and its strongest verbatim quote, the open
 * conflicts with their claims, and the problems by mentions for a chart. The PDF's executive summary
 * (pdf-summary.ts) draws it; a deck export can take the same choice. Reads a few rows, never the whole
 * dataset: the detail that follows is streamed by the writer.
 */
import { evidenceOf } from '../../store/entities.js';
import { entityCountsByTypeDesc, entityPage } from '../../store/entity-export.js';
import { openConflictsPage } from '../../store/featured-reads.js';
import { meetingCounts } from '../../store/meetings.js';
import type { Db } from '../../store/db.js';
import type { Vault } from '../../store/vaults.js';
import { entityTypePlural } from '../../core/vocabulary.js';
import { formatCount } from '../../core/numbers.js';

export interface FeaturedQuote {
  /** verbatim, as it was said */
  quote: string;
  speaker: string;
  /** the meeting's name, when the quote comes from one */
  meeting?: string;
  /** YYYY-MM-DD, when known */
  date?: string;
  /** where it was said, for evidence references (a deck's speaker notes): the meeting's id and the turn */
  meetingId?: string;
  turn?: number;
}

export interface FeaturedFinding {
  /** the entity's id and type, for evidence references */
  id: string;
  type: string;
  name: string;
  mentions: number;
  /** the description's first sentence, at most ONE_LINE_CHARS */
  line: string;
  /** the whole description (a slide has room for more than one line) */
  description: string;
  quote?: FeaturedQuote;
  /** quotes the vault holds on it */
  quotes: number;
}

export interface FeaturedConflict {
  id: string;
  /** the finding's id */
  entityId: string;
  /** the finding it is about */
  about: string;
  title: string;
  /** what the team knows about it so far (the conflict's note), when recorded */
  note: string | null;
  /** YYYY-MM-DD: when it was raised and last updated */
  raised: string;
  updated: string;
  /** the first CLAIMS_READ, in the order they were recorded; usually two */
  claims: FeaturedQuote[];
  /** claims the conflict holds, shown or not */
  claimCount: number;
}

export interface Featured {
  /** "Findings 72", "Problems 11", …, "Open conflicts 3", "Meetings 7" */
  headline: { label: string; value: string }[];
  problems: FeaturedFinding[];
  opportunities: FeaturedFinding[];
  /** the first SUMMARY_CONFLICTS open conflicts by title */
  openConflicts: FeaturedConflict[];
  /** open conflicts in the vault, shown or not */
  openConflictCount: number;
  /** the most mentioned problems, for a bar chart */
  problemsByMentions: { name: string; mentions: number }[];
}

export interface FeatureOptions {
  /** problems and opportunities featured, each (default 3) */
  top?: number;
  /** bars in the chart (default 8) */
  chartBars?: number;
}

const ONE_LINE_CHARS = 170;
/**
 * The limits that keep a deliverable's size and memory bounded whatever the vault holds (docs/exports.md): the
 * claims read of one conflict (a conflict of 15,000 claims made a 358 MB deck and a PDF that ran out of memory)
 * and the open conflicts the PDF's summary lists.
 */
export const CLAIMS_READ = 10;
export const SUMMARY_CONFLICTS = 12;
const number = formatCount;

/** The choice of what a findings deliverable features, for `vault`. */
export function featureFindings(db: Db, vault: Pick<Vault, 'id'>, options: FeatureOptions = {}): Featured {
  const top = options.top ?? 3;
  const byType = entityCountsByTypeDesc(db, vault.id);
  const count = (type: string) => byType.find((t) => t.type === type)?.n ?? 0;
  const openConflicts = featureOpenConflicts(db, vault.id, SUMMARY_CONFLICTS);
  return {
    headline: [
      { label: 'Findings', value: number(byType.reduce((a, b) => a + b.n, 0)) },
      ...['problem', 'opportunity'].map((t) => ({ label: entityTypePlural(t), value: number(count(t)) })),
      { label: 'Open conflicts', value: number(openConflicts.total) },
      { label: 'Meetings', value: number(meetingCounts(db, vault.id).total) },
    ],
    problems: featureType(db, vault.id, 'problem', top),
    opportunities: featureType(db, vault.id, 'opportunity', top),
    openConflicts: openConflicts.conflicts,
    openConflictCount: openConflicts.total,
    problemsByMentions: entityPage(db, vault.id, options.chartBars ?? 8, undefined, 'problem').map((e) => ({
      name: e.name,
      mentions: e.mention_count,
    })),
  };
}

/** The `top` most mentioned findings of one type, each with its one line and strongest quote (a deck features any type). */
export function featureType(db: Db, vaultId: string, type: string, top: number): FeaturedFinding[] {
  return entityPage(db, vaultId, top, undefined, type).map((e) => {
    const evidence = evidenceOf(db, vaultId, e.id);
    return {
      id: e.id,
      type: e.type,
      name: e.name,
      mentions: e.mention_count,
      line: oneLine(e.description ?? ''),
      description: e.description ?? '',
      quote: strongestQuote(
        evidence.map((q) => ({
          quote: q.quote,
          speaker: q.speaker,
          meeting: q.meetingName,
          date: q.spokenAt?.slice(0, 10),
          meetingId: q.meetingId,
          ...(q.turnIndex === null ? {} : { turn: q.turnIndex }),
        })),
      ),
      quotes: evidence.length,
    };
  });
}

/** The first `limit` open conflicts by title, each with its first CLAIMS_READ claims, and how many are open. */
export function featureOpenConflicts(
  db: Db,
  vaultId: string,
  limit: number,
): { total: number; conflicts: FeaturedConflict[] } {
  const page = openConflictsPage(db, vaultId, limit, CLAIMS_READ);
  return {
    total: page.total,
    conflicts: page.conflicts.map((c) => ({
      id: c.id,
      entityId: c.entityId,
      about: c.entityName,
      title: c.title,
      note: c.note,
      raised: c.createdAt.slice(0, 10),
      updated: c.updatedAt.slice(0, 10),
      claims: c.claims.map((cl) => ({
        quote: cl.quote,
        speaker: cl.speaker,
        meeting: cl.meetingName ?? undefined,
        date: cl.spokenAt?.slice(0, 10),
        ...(cl.meetingId ? { meetingId: cl.meetingId } : {}),
        ...(cl.turnIndex === null ? {} : { turn: cl.turnIndex }),
      })),
      claimCount: c.claimCount,
    })),
  };
}

/**
 * The quote that best stands for a finding on its own: one that carries a number (a measure is evidence a
 * reader can check), then one long enough to say something and short enough to read at a glance, then the
 * latest said. Undefined when there is none.
 */
export function strongestQuote(quotes: FeaturedQuote[]): FeaturedQuote | undefined {
  const score = (q: FeaturedQuote) => {
    const length = q.quote.trim().length;
    const readable = length >= 50 && length <= 280 ? 2 : length >= 25 ? 1 : 0;
    return (/\d/.test(q.quote) ? 3 : 0) + readable;
  };
  return [...quotes].sort((a, b) => score(b) - score(a) || (b.date ?? '').localeCompare(a.date ?? ''))[0];
}

/** A description's first sentence, cut at a word with "…" when longer than ONE_LINE_CHARS. */
export function oneLine(description: string, max = ONE_LINE_CHARS): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  const sentence = /^.+?[.!?](?=\s|$)/.exec(flat)?.[0] ?? flat;
  if (sentence.length <= max) return sentence;
  const cut = sentence.lastIndexOf(' ', max - 1);
  return `${sentence.slice(0, cut > max / 2 ? cut : max - 1).replace(/[,;:]$/, '')}…`;
}
