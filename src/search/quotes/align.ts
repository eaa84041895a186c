/**
 * Word alignment of a quotation against what a speaker said (check_quotes). Both sides become the same words:
 * letters and digits only, case and accents ignored, an apostrophe inside a word dropped ("that's" = "thats"),
 * fillers ("um", "uh") left out; so punctuation, spacing and the transcript's own ellipses never count. An
 * ellipsis in the quotation ("…", "...", "[…]") is a cut the writer made: the words around it may be apart.
 *
 * Two alignments, both dynamic programming over words (quotation words × passage words, bounded by the caller):
 * - `localCore`: the best local alignment (Smith-Waterman: +1 a word in common, −1 a word changed, added or
 *   dropped), i.e. the longest stretch of the quotation that a passage says nearly as written;
 * - `diffAgainst`: the whole of a stretch of the quotation against a passage, the passage's ends free (edit
 *   distance), as the operations a reader sees: same, changed, added (in the quotation only), missing (said,
 *   left out without an ellipsis).
 */

export interface Word {
  /** the word as compared */
  norm: string;
  /** where it is in the text it came from (UTF-16 offsets) */
  start: number;
  end: number;
  /** the quotation has an ellipsis right before this word: the passage may say more in between */
  cut?: boolean;
}

const FILLERS = new Set(['um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'hmm', 'mm', 'mhm', 'ah']);
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const ELLIPSIS = /\.\.\.|…|\[\s*(?:\.\.\.|…)\s*\]/g;

export const normWord = (w: string): string =>
  w
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’]/g, '');

/** The words of a text as compared, fillers left out; `cuts` marks each word that follows an ellipsis. */
export function wordsOf(text: string, cuts = false): Word[] {
  const ellipses = cuts ? [...text.matchAll(ELLIPSIS)].map((m) => m.index!) : [];
  const out: Word[] = [];
  let e = 0;
  let lastEnd = 0;
  for (const m of text.matchAll(WORD)) {
    const norm = normWord(m[0]);
    if (!norm || FILLERS.has(norm)) continue;
    const start = m.index!;
    let cut = false;
    while (e < ellipses.length && ellipses[e]! < start) {
      if (ellipses[e]! >= lastEnd && out.length) cut = true;
      e++;
    }
    out.push(cut ? { norm, start, end: start + m[0].length, cut } : { norm, start, end: start + m[0].length });
    lastEnd = start + m[0].length;
  }
  return out;
}

export interface Core {
  score: number;
  /** quotation words [qFrom, qTo) and passage words [tFrom, tTo) of the best local alignment */
  qFrom: number;
  qTo: number;
  tFrom: number;
  tTo: number;
}

const DIAG = 1;
const UP = 2; // a quotation word with no passage word
const LEFT = 3; // a passage word with no quotation word

/** Best local alignment of `q` within `t` (see the module comment); score 0 when nothing matches. */
export function localCore(q: readonly Word[], t: readonly Word[]): Core {
  const m = q.length;
  const n = t.length;
  const w = n + 1;
  const H = new Int32Array((m + 1) * w);
  const from = new Uint8Array((m + 1) * w);
  const jump = new Int32Array((m + 1) * w); // for a word after a cut: the column the diagonal came from
  let best: Core = { score: 0, qFrom: 0, qTo: 0, tFrom: 0, tTo: 0 };
  let bestAt = -1;
  for (let i = 1; i <= m; i++) {
    const cut = q[i - 1]!.cut === true;
    let runMax = 0; // max of row i-1 over columns < j, for a cut
    let runAt = 0;
    for (let j = 1; j <= n; j++) {
      const same = q[i - 1]!.norm === t[j - 1]!.norm;
      let diagFrom = j - 1;
      let diagBase = H[(i - 1) * w + j - 1]!;
      if (cut) {
        if (H[(i - 1) * w + j - 1]! > runMax) {
          runMax = H[(i - 1) * w + j - 1]!;
          runAt = j - 1;
        }
        if (runMax > diagBase) {
          diagBase = runMax;
          diagFrom = runAt;
        }
      }
      const diag = diagBase + (same ? 1 : -1);
      const up = H[(i - 1) * w + j]! - 1;
      const left = H[i * w + j - 1]! - 1;
      let v = 0;
      let f = 0;
      if (diag > v) (v = diag), (f = DIAG);
      if (up > v) (v = up), (f = UP);
      if (left > v) (v = left), (f = LEFT);
      const at = i * w + j;
      H[at] = v;
      from[at] = f;
      jump[at] = diagFrom;
      if (v > best.score) {
        best = { ...best, score: v };
        bestAt = at;
      }
    }
  }
  if (bestAt < 0) return best;
  let i = Math.floor(bestAt / w);
  let j = bestAt % w;
  const qTo = i;
  const tTo = j;
  // Back to where the alignment began (a cell of 0), stopping on the last word in common.
  while (i > 0 && j > 0 && H[i * w + j]! > 0) {
    const f = from[i * w + j];
    if (f === DIAG) {
      const jj = jump[i * w + j]!;
      i--;
      j = jj;
    } else if (f === UP) i--;
    else j--;
  }
  return { score: best.score, qFrom: i, qTo, tFrom: j, tTo };
}

export type DiffOp =
  | { op: 'same'; q: number; t: number }
  | { op: 'changed'; q: number; t: number }
  | { op: 'added'; q: number }
  | { op: 'missing'; t: number };

/**
 * The whole of `q` against `t` with `t`'s ends free: the operations from the first passage word used to the last,
 * fewest edits first. Passage words skipped at a cut of the quotation are not `missing`: the writer marked them.
 */
export function diffAgainst(q: readonly Word[], t: readonly Word[]): DiffOp[] {
  const m = q.length;
  const n = t.length;
  const w = n + 1;
  const D = new Int32Array((m + 1) * w);
  const from = new Uint8Array((m + 1) * w);
  const jump = new Int32Array((m + 1) * w);
  for (let i = 1; i <= m; i++) (D[i * w] = i), (from[i * w] = UP);
  for (let i = 1; i <= m; i++) {
    const cut = q[i - 1]!.cut === true;
    let runMin = Number.MAX_SAFE_INTEGER;
    let runAt = 0;
    for (let j = 1; j <= n; j++) {
      let diagBase = D[(i - 1) * w + j - 1]!;
      let diagFrom = j - 1;
      if (cut) {
        if (D[(i - 1) * w + j - 1]! < runMin) (runMin = D[(i - 1) * w + j - 1]!), (runAt = j - 1);
        if (runMin < diagBase) (diagBase = runMin), (diagFrom = runAt);
      }
      const diag = diagBase + (q[i - 1]!.norm === t[j - 1]!.norm ? 0 : 1);
      const up = D[(i - 1) * w + j]! + 1;
      const left = D[i * w + j - 1]! + 1;
      let v = diag;
      let f = DIAG;
      if (up < v) (v = up), (f = UP);
      if (left < v) (v = left), (f = LEFT);
      D[i * w + j] = v;
      from[i * w + j] = f;
      jump[i * w + j] = diagFrom;
    }
  }
  // Free end: the best last column for the whole quotation.
  let j = 0;
  for (let k = 1; k <= n; k++) if (D[m * w + k]! < D[m * w + j]!) j = k;
  let i = m;
  const ops: DiffOp[] = [];
  while (i > 0) {
    const at = i * w + j;
    const f = j === 0 ? UP : from[at];
    if (f === DIAG) {
      const jj = jump[at]!;
      ops.push({ op: q[i - 1]!.norm === t[j - 1]!.norm ? 'same' : 'changed', q: i - 1, t: j - 1 });
      // passage words jumped over at a cut are the writer's omission, not shown as missing
      i--;
      j = jj;
    } else if (f === UP) {
      ops.push({ op: 'added', q: i - 1 });
      i--;
    } else {
      ops.push({ op: 'missing', t: j - 1 });
      j--;
    }
  }
  return ops.reverse();
}
