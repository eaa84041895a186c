/**
 * Name and alias matching for search_knowledge: tolerant of case, accents, word order and small typos,
 * ranked exact > prefix > fuzzy. Names are matched in memory (a vault has thousands to tens of thousands),
 * from an index of the vault's names prepared once per store version.
 */
import { editDistance } from '../store/text.js';
import { storeVersion, type Db } from '../store/db.js';
import { entityNames, type EntityType } from '../store/entities.js';

export type MatchKind = 'exact' | 'prefix' | 'fuzzy';

export interface NameMatch {
  kind: MatchKind;
  score: number;
}

const RANK: Record<MatchKind, number> = { exact: 3, prefix: 2, fuzzy: 1 };

/** Typos allowed in a word of this length: none for short words, one from 4 letters, two from 8. */
const typoBudget = (len: number) => (len >= 8 ? 2 : len >= 4 ? 1 : 0);

/** The forms of a normalized name every comparison uses, computed once per name (not once per name per query). */
export interface NameForms {
  norm: string;
  /** words in alphabetical order: word order does not matter */
  sorted: string;
  /** without spaces: "DockFlow" and "dock flow" are the same name */
  compact: string;
  words: string[];
}

export function nameForms(norm: string): NameForms {
  const words = norm.split(' ');
  return { norm, sorted: [...words].sort().join(' '), compact: norm.replace(/ /g, ''), words };
}

/** How `queryNorm` matches one normalized name, or undefined. Scores fall within their kind's band. */
export function matchName(queryNorm: string, nameNorm: string): NameMatch | undefined {
  return nameMatcher(queryNorm)(nameForms(nameNorm));
}

/**
 * How one query matches names, name after name. The typos between a query word and a name word are worked out
 * once per pair of words and remembered: a vault's names share their words, and the edit distance is most of
 * the cost of a search.
 */
export function nameMatcher(queryNorm: string): (name: NameForms) => NameMatch | undefined {
  const query = nameForms(queryNorm);
  const q = query.words;
  const typosTo = q.map((w) => {
    const budget = typoBudget(w.length);
    const memo = new Map<string, number>();
    /** typos from w to the name word n, whole or as its start (+0.5); over the budget means too far */
    return (n: string): number => {
      let best = memo.get(n);
      if (best !== undefined) return best;
      best = budget + 1;
      // A name word shorter than w by more than the budget is too far, whole or as a start.
      if (n.length >= w.length - budget) {
        best = Math.min(best, editDistance(w, n, budget));
        if (n.length > w.length) best = Math.min(best, editDistance(w, n.slice(0, w.length), budget) + 0.5);
      }
      memo.set(n, best);
      return best;
    };
  });
  return (name) => {
    if (!query.norm || !name.norm) return undefined;
    if (query.norm === name.norm) return { kind: 'exact', score: RANK.exact + 0.5 };
    if (query.sorted === name.sorted) return { kind: 'exact', score: RANK.exact + 0.4 };
    if (query.compact === name.compact) return { kind: 'exact', score: RANK.exact + 0.3 };
    const words = name.words;
    const coverage = q.length / Math.max(q.length, words.length);
    if (name.norm.startsWith(query.norm)) return { kind: 'prefix', score: RANK.prefix + 0.4 + 0.09 * coverage };
    if (q.every((w) => words.some((n) => n.startsWith(w)))) return { kind: 'prefix', score: RANK.prefix + 0.2 + 0.09 * coverage };
    // Fuzzy: every query word is within its typo budget of a name word, or of the start of one.
    let typos = 0;
    for (let i = 0; i < q.length; i++) {
      const budget = typoBudget(q[i]!.length);
      let best = budget + 1;
      for (const n of words) {
        best = Math.min(best, typosTo[i]!(n));
        if (best === 0) break;
      }
      if (best > budget) return undefined;
      typos += best;
    }
    return { kind: 'fuzzy', score: RANK.fuzzy + 0.5 / (1 + typos) + 0.09 * coverage };
  };
}

/** A vault's names, ready to match: read and prepared once per store version. */
export interface IndexedName {
  entityId: string;
  name: string;
  isAlias: boolean;
  type: EntityType;
  forms: NameForms;
}

/** Name indexes of the vaults searched last; a few, since a vault can have tens of thousands of names. */
const MAX_INDEXES = 4;
const indexes = new WeakMap<Db, Map<string, { version: string; names: IndexedName[] }>>();

export function nameIndex(db: Db, vaultId: string): IndexedName[] {
  let byKey = indexes.get(db);
  if (!byKey) indexes.set(db, (byKey = new Map()));
  const key = vaultId;
  const version = storeVersion(db);
  const hit = byKey.get(key);
  byKey.delete(key); // re-inserted below: the map's order is the order of use
  if (hit && hit.version === version) {
    byKey.set(key, hit);
    return hit.names;
  }
  const names = entityNames(db, vaultId).map((n) => ({ entityId: n.entity_id, name: n.name, isAlias: n.is_alias === 1, type: n.type, forms: nameForms(n.norm) }));
  byKey.set(key, { version, names });
  if (byKey.size > MAX_INDEXES) byKey.delete(byKey.keys().next().value!);
  return names;
}
