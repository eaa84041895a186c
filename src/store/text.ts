/** Text helpers shared by the loader (mention counting) and the search tools (matching). */

/** Lower case, accents removed, runs of non-letters/digits folded to one space. */
export function normalize(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function tokens(s: string): string[] {
  const n = normalize(s);
  return n ? n.split(' ') : [];
}

/**
 * Mentions of an entity in a text: occurrences of its name or any alias as whole words. Longer terms are
 * counted first and blanked out, so "Warehouse Management System" is not counted again as "System".
 */
export function countMentions(textNormalized: string, termsNormalized: string[]): number {
  let rest = ` ${textNormalized} `;
  let count = 0;
  const sorted = [...new Set(termsNormalized.filter(Boolean))].sort((a, b) => b.length - a.length);
  for (const term of sorted) {
    const needle = ` ${term} `;
    let at = rest.indexOf(needle);
    while (at !== -1) {
      count++;
      rest = rest.slice(0, at + 1) + '\u0000'.repeat(term.length) + rest.slice(at + 1 + term.length);
      at = rest.indexOf(needle, at + 1);
    }
  }
  return count;
}

/** editDistance's rows, reused (grown when a word is longer than they are). */
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(32), new Int32Array(32), new Int32Array(32)];

/**
 * Edit distance counting an adjacent transposition as one edit (optimal string alignment), since swapped
 * letters are the commonest typo; stops early once every path exceeds `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  // Three rolling rows (two back, one back, this one), reused across calls: name search runs this for
  // thousands of words per query, and fresh arrays per row were most of its cost.
  if (rows[0].length < b.length + 1)
    rows = [new Int32Array(b.length + 16), new Int32Array(b.length + 16), new Int32Array(b.length + 16)];
  let [before, prev, cur] = rows;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, before[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length]!;
}
