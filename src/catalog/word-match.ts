/**
 * Narrowing a short list (a vault's tasks, its calendar) by the words a model asks with: each record's text is
 * matched word by word, a query word matching a word that starts with it ("steer" finds "steering"), case and
 * accents aside. Records holding every word come first; when none holds them all, those holding most.
 */
const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const wordsOf = (s: string) =>
  fold(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** The query's words that narrow (one letter or a common little word narrows nothing). */
const SKIP = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'at',
  'for',
  'with',
  'by',
  'is',
  'be',
  'next',
  'our',
  'my',
]);
export const queryWordsOf = (query: string) => [...new Set(wordsOf(query))].filter((w) => !SKIP.has(w));

/**
 * The records whose text (`textOf`) holds every word of `query`, in their order; if none does, the records
 * holding the most of them (at least one). With no word that narrows, every record.
 */
export function matchWords<T>(records: T[], query: string, textOf: (r: T) => string): T[] {
  const wanted = queryWordsOf(query);
  if (!wanted.length) return records;
  const scored = records.map((r) => {
    const have = wordsOf(textOf(r));
    return { r, n: wanted.filter((w) => have.some((h) => h.startsWith(w))).length };
  });
  const best = Math.max(0, ...scored.map((s) => s.n));
  return best === 0 ? [] : scored.filter((s) => s.n === best).map((s) => s.r);
}
