/**
 * The names nearest a name that matched nothing, for "did you mean" sentences: a wrong vault, tool, command or
 * option gets the closest few, never a list of everything. Spelling is compared loosely (case, accents, spaces,
 * hyphens and underscores do not count), then by a shared start or the words in common, then by edit distance
 * within about a third of the length.
 */

const loose = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** Optimal string alignment distance (Levenshtein with adjacent transpositions: "stast" is one from "stats"). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** How far `candidate` is from `wanted` (lower is nearer), or undefined when it is not near at all. */
function distance(wanted: string, candidate: string): number | undefined {
  const [w, c] = [loose(wanted), loose(candidate)];
  if (!w || !c) return undefined;
  if (w.replace(/ /g, '') === c.replace(/ /g, '')) return 0;
  const words = w.split(' ');
  if (c.startsWith(w) || w.startsWith(c) || words.every((x) => c.split(' ').includes(x))) return 1;
  const near = (a: string, b: string) =>
    editDistance(a, b) <= Math.max(1, Math.floor(Math.max(a.length, b.length) / 3));
  if (near(w, c)) return 1 + editDistance(w, c);
  // One word mistyped against a word of a longer name: "northwnd" for "Northwind Logistics".
  const parts = c.split(' ');
  const word =
    parts.length > 1 && !w.includes(' ')
      ? Math.min(...parts.filter((p) => near(w, p)).map((p) => editDistance(w, p)))
      : Infinity;
  return word === Infinity ? undefined : 2 + word;
}

/**
 * No name is longer than this; a longer `wanted` (a hostile 5,000,000-character tool name, say) is near nothing, and
 * is not compared: edit distance costs its length times the name's, in time and memory.
 */
const LONGEST_NAME = 200;

/** The items nearest `wanted`, nearest first (at most `max`), each compared by its names (an id and a title). */
export function closest<T>(wanted: string, items: readonly T[], namesOf: (item: T) => string[], max = 3): T[] {
  if (wanted.length > LONGEST_NAME) return [];
  return items
    .map((item) => ({ item, d: Math.min(...namesOf(item).map((n) => distance(wanted, n) ?? Infinity)) }))
    .filter((x) => x.d !== Infinity)
    .sort((a, b) => a.d - b.d)
    .slice(0, max)
    .map((x) => x.item);
}

/** " Did you mean A, B or C?" for the nearest names, or "" when none is near. */
export function didYouMean(
  wanted: string,
  names: readonly string[],
  show: (name: string) => string = (n) => `\`${n}\``,
  max = 3,
): string {
  const near = closest(wanted, names, (n) => [n], max).map(show);
  if (!near.length) return '';
  return ` Did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}?`;
}
