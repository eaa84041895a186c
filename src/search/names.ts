/**
 * Name and alias matching for search_knowledge: tolerant of case, accents, word order and small typos,
 * ranked exact > prefix > fuzzy. Names are few per vault (thousands at most), so they are matched in
 * memory from the normalized names the store keeps.
 */
import { editDistance } from '../store/text.js';

export type MatchKind = 'exact' | 'prefix' | 'fuzzy';

export interface NameMatch {
  kind: MatchKind;
  score: number;
}

const RANK: Record<MatchKind, number> = { exact: 3, prefix: 2, fuzzy: 1 };

/** Typos allowed in a word of this length: none for short words, one from 4 letters, two from 8. */
const typoBudget = (len: number) => (len >= 8 ? 2 : len >= 4 ? 1 : 0);

const sortedWords = (s: string) => s.split(' ').sort().join(' ');

/** How `queryNorm` matches one normalized name, or undefined. Scores fall within their kind's band. */
export function matchName(queryNorm: string, nameNorm: string): NameMatch | undefined {
  if (!queryNorm || !nameNorm) return undefined;
  if (queryNorm === nameNorm) return { kind: 'exact', score: RANK.exact + 0.5 };
  if (sortedWords(queryNorm) === sortedWords(nameNorm)) return { kind: 'exact', score: RANK.exact + 0.4 };
  // Spacing aside ("DockFlow" / "dock flow", "Aldhelm's" / "aldhelms"): still the same name.
  if (queryNorm.replace(/ /g, '') === nameNorm.replace(/ /g, '')) return { kind: 'exact', score: RANK.exact + 0.3 };
  const q = queryNorm.split(' ');
  const words = nameNorm.split(' ');
  const coverage = q.length / Math.max(q.length, words.length);
  if (nameNorm.startsWith(queryNorm)) return { kind: 'prefix', score: RANK.prefix + 0.4 + 0.09 * coverage };
  if (q.every((w) => words.some((n) => n.startsWith(w)))) return { kind: 'prefix', score: RANK.prefix + 0.2 + 0.09 * coverage };
  // Fuzzy: every query word is within its typo budget of a name word, or of the start of one.
  let typos = 0;
  for (const w of q) {
    const budget = typoBudget(w.length);
    let best = budget + 1;
    for (const n of words) {
      best = Math.min(best, editDistance(w, n, budget), editDistance(w, n.slice(0, w.length), budget) + 0.5);
      if (best === 0) break;
    }
    if (best > budget) return undefined;
    typos += best;
  }
  return { kind: 'fuzzy', score: RANK.fuzzy + 0.5 / (1 + typos) + 0.09 * coverage };
}
