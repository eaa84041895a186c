/**
 * What a deck features: the top findings of the focus types (most mentioned first), each with its strongest
 * verbatim quote, and the open conflicts with their claims. One function, `featuredFindings`, so the choice
 * can be shared with (or replaced by) the findings report's executive summary.
 *
 * Bounded whatever the vault's size: each focus type is read from the mentions index with a LIMIT, quotes
 * only for the chosen few, and at most `maxConflicts` open conflicts with their claims.
 */
import type { Db } from '../../store/db.js';
import { evidenceOf, pageFindings, type EntityType } from '../../store/entities.js';
import { countOpenConflicts, openConflictsPage } from '../../store/conflicts.js';

export interface FeaturedQuote {
  quote: string;
  speaker: string;
  meetingId: string;
  meetingName: string;
  spokenAt: string;
  turnIndex: number | null;
}

export interface FeaturedItem {
  id: string;
  name: string;
  type: EntityType;
  description: string;
  mentionCount: number;
  /** The strongest verbatim quote (see strongestQuote); absent when nobody was quoted on it. */
  quote?: FeaturedQuote;
  /** How many quotes the vault holds on it (the notes point at the rest). */
  quoteCount: number;
}

export interface FeaturedClaim {
  speaker: string;
  quote: string;
  meetingId: string | null;
  meetingName: string | null;
  spokenAt: string | null;
}

export interface FeaturedConflict {
  id: string;
  entityId: string;
  entityName: string;
  /** What the vault says about the entity the claims disagree on (the slide's context line). */
  entityDescription: string;
  title: string;
  claims: FeaturedClaim[];
}

export interface Featured {
  items: FeaturedItem[];
  conflicts: FeaturedConflict[];
  /** Open conflicts in the vault, featured or not. */
  openConflicts: number;
}

export interface FeatureOptions {
  /** Entity types to feature, in the order they are shown. */
  types: readonly EntityType[];
  maxItems: number;
  maxConflicts: number;
}

/**
 * The top `maxItems` findings of `types`: each type's most mentioned, taken in turn (one of each type, then the
 * next of each…) so every focus type is represented, then shown grouped by type in the order of `types`.
 */
export function featuredFindings(db: Db, vaultId: string, options: FeatureOptions): Featured {
  const perType = options.types.map((type) => pageFindings(db, vaultId, { type }, 'mentions', options.maxItems));
  const chosen: (typeof perType)[number] = [];
  for (let round = 0; chosen.length < options.maxItems; round++) {
    const before = chosen.length;
    for (const rows of perType) if (rows[round] && chosen.length < options.maxItems) chosen.push(rows[round]!);
    if (chosen.length === before) break;
  }
  const rank = (type: EntityType) => options.types.indexOf(type);
  chosen.sort((a, b) => rank(a.type) - rank(b.type) || b.mention_count - a.mention_count || (a.id < b.id ? -1 : 1));
  const items = chosen.map((row): FeaturedItem => {
    const quotes = evidenceOf(db, vaultId, row.id);
    const quote = strongestQuote(quotes);
    return { id: row.id, name: row.name, type: row.type, description: row.description, mentionCount: row.mention_count, quoteCount: quotes.length, ...(quote ? { quote } : {}) };
  });
  return { items, conflicts: openConflictsPage(db, vaultId, options.maxConflicts), openConflicts: countOpenConflicts(db, vaultId) };
}

/** A quote reads best on a slide at this length: a full sentence or two. */
const SWEET_SPOT = { min: 50, max: 220 };

/**
 * The quote that carries a finding best: one with a figure in it (a number, a percentage, money), of a length that
 * reads as a sentence on a slide; ties go to the later one (what was said last is what stands). Quotes arrive in
 * the order they were said.
 */
export function strongestQuote<Q extends { quote: string; spokenAt: string }>(quotes: readonly Q[]): Q | undefined {
  let best: Q | undefined;
  let bestScore = -Infinity;
  for (const q of quotes) {
    const text = q.quote.trim();
    if (!text) continue;
    const length = text.length;
    const score =
      (/\d/.test(text) ? 2 : 0) +
      (length >= SWEET_SPOT.min && length <= SWEET_SPOT.max ? 1 : length < SWEET_SPOT.min ? -0.5 : -Math.min(2, (length - SWEET_SPOT.max) / SWEET_SPOT.max));
    if (score >= bestScore) {
      best = q;
      bestScore = score;
    }
  }
  return best;
}
