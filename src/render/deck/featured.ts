/**
 * What a deck features, on the findings report's own choice (src/render/export/featured.ts, issue 37): each
 * focus type's most mentioned findings with their strongest quote (featureType), and the open conflicts with
 * their claims (featureOpenConflicts). The deck adds only what a slide needs on top: one pick across several
 * focus types, a cap on the conflicts it shows, the description of what each conflict is about, what kind of disagreement
 * it is and the task or plan step that takes it forward.
 */
import type { Db } from '../../store/db.js';
import { getEntityRows } from '../../store/entities.js';
import { nextStepNaming, type NextStep } from '../../store/featured-reads.js';
import { disagreementOf, type Disagreement } from './disagreement.js';
import { featureOpenConflicts, featureType, type FeaturedConflict, type FeaturedFinding } from '../export/featured.js';

export type { FeaturedFinding, FeaturedQuote } from '../export/featured.js';

export interface DeckConflict extends FeaturedConflict {
  /** What the vault says about the finding the claims disagree on (the slide's context line). */
  aboutDescription: string;
  /** What kind of disagreement it is, read from the conflict's own note and claims (disagreement.ts). */
  kind: Disagreement;
  /** The open task or plan step that names it (its id or its finding), when one does. */
  nextStep?: NextStep;
}

export interface DeckFeatured {
  /** Grouped by type in the order of the focus, most mentioned first within a type. */
  items: FeaturedFinding[];
  /** The first `maxConflicts` open conflicts (by title, as the report orders them). */
  conflicts: DeckConflict[];
  /** Open conflicts in the vault, shown or not. */
  openConflicts: number;
}

export interface DeckFeatureOptions {
  types: readonly string[];
  maxItems: number;
  maxConflicts: number;
}

/**
 * The top `maxItems` findings of `types`: each type's most mentioned taken in turn (one of each type, then the
 * next of each…), so every focus type is represented; with the default focus and six items this is the report's
 * own three problems and three opportunities.
 */
export function deckFeatured(db: Db, vaultId: string, options: DeckFeatureOptions): DeckFeatured {
  const perType = options.types.map((type) => featureType(db, vaultId, type, options.maxItems));
  const chosen: FeaturedFinding[] = [];
  for (let round = 0; chosen.length < options.maxItems; round++) {
    const before = chosen.length;
    for (const list of perType) if (list[round] && chosen.length < options.maxItems) chosen.push(list[round]!);
    if (chosen.length === before) break;
  }
  const rank = (type: string) => options.types.indexOf(type);
  const items = chosen.sort((a, b) => rank(a.type) - rank(b.type) || b.mentions - a.mentions);
  const open = featureOpenConflicts(db, vaultId, options.maxConflicts);
  const descriptions = new Map(
    getEntityRows(
      db,
      vaultId,
      open.conflicts.map((c) => c.entityId),
    ).map((e) => [e.id, e.description]),
  );
  return {
    items,
    conflicts: open.conflicts.map((c) => {
      // Named by its id, its finding's name (or that name without a unit word: "Dock-to-Stock Time" is what a
      // task calls "the dock-to-stock conflict"), or what its title is about ("Bed turnaround: 2 hours vs 5 hours").
      const lead = c.title.includes(':') ? c.title.slice(0, c.title.indexOf(':')) : '';
      const stem = c.about.replace(/\s+(time|times|rate|rates|size|level|count)$/i, '');
      const nextStep = nextStepNaming(db, vaultId, [c.id, c.about, lead, ...(stem.length >= 8 ? [stem] : [])]);
      return {
        ...c,
        aboutDescription: descriptions.get(c.entityId) ?? '',
        kind: disagreementOf(c),
        ...(nextStep ? { nextStep } : {}),
      };
    }),
    openConflicts: open.total,
  };
}
