/**
 * Text that has to fit a width on the chart: titles and category labels are wrapped at word boundaries,
 * and a label too long even for its lines is shortened in the middle, keeping the words that tell it
 * apart from the other labels ("Spreadsheet-based … Leeds", not "Spreadsheet-based dock door …").
 * Widths are measured with the chart's primary face (DejaVu Sans, which the renderer draws Latin text with).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fontkit from '@pdf-lib/fontkit';
import { fontFaces } from '../font.js';

/** Width of `text` in px at `size` px. */
export type Measure = (text: string, size: number, bold?: boolean) => number;

type Face = ReturnType<typeof Fontkit.create>;
let faces: { regular: Face; bold: Face } | undefined;

/**
 * The chart font's advance widths (with kerning). A character the font has no glyph for counts as one em:
 * it is drawn by a fallback font or as a box, and both are about that wide.
 */
export const measureText: Measure = (text, size, bold = false) => {
  if (!faces) {
    const fontkit = createRequire(import.meta.url)('@pdf-lib/fontkit') as typeof Fontkit;
    const primary = fontFaces()[0]!;
    faces = { regular: fontkit.create(readFileSync(primary.regular)), bold: fontkit.create(readFileSync(primary.bold)) };
  }
  const face = bold ? faces.bold : faces.regular;
  const run = face.layout(text);
  let units = run.advanceWidth;
  run.glyphs.forEach((glyph) => {
    if (glyph.id === 0) units += face.unitsPerEm - glyph.advanceWidth;
  });
  return (units * size) / face.unitsPerEm;
};

/** A font size and weight with the measure that goes with them. */
export interface TextStyle {
  size: number;
  bold?: boolean;
  measure: Measure;
}

const width = (text: string, style: TextStyle) => style.measure(text, style.size, style.bold);

/**
 * Lines of `text` at most `max` wide, broken at spaces; a word wider than a line is broken after a hyphen
 * or slash inside it when that helps. A piece still wider than `max` stays whole (see fitLabel).
 */
export function wrapText(text: string, max: number, style: TextStyle): string[] {
  // Each piece notes whether it continues the word before it (the part after a hyphen), so needs no space.
  const pieces = text
    .trim()
    .split(/\s+/)
    .flatMap((word) => (width(word, style) > max ? word.split(/(?<=[-/])(?=.)/) : [word]).map((piece, i) => ({ piece, continues: i > 0 })));
  const lines: string[] = [];
  let line = '';
  for (const { piece, continues } of pieces) {
    const joined = line === '' ? piece : line + (continues ? '' : ' ') + piece;
    if (line !== '' && width(joined, style) > max) {
      lines.push(line);
      line = piece;
    } else {
      line = joined;
    }
  }
  lines.push(line);
  return lines;
}

const ELLIPSIS = '…';

/**
 * `label` in at most `maxLines` lines of at most `max` px. When it does not fit whole, words are left out
 * from the middle: the words that differ from the most similar other label are kept first, then the first
 * word (the context), then words next to the kept ones. A kept part that is still too long is cut in the
 * middle, character by character.
 */
export function fitLabel(label: string, others: readonly string[], max: number, maxLines: number, style: TextStyle): string[] {
  const whole = wrapText(label, max, style);
  if (fits(whole, max, maxLines, style)) return whole;

  const words = label.trim().split(/\s+/);
  const [from, to] = distinguishingSpan(words, others);
  const keep = new Set<number>();
  for (let i = from; i < to; i++) keep.add(i);
  const tryLines = (set: Set<number>) => wrapText(elide(words, set), max, style);
  let best = tryLines(keep);
  if (!fits(best, max, maxLines, style)) {
    // Even the distinguishing words are too long: cut them in the middle (to one line when their pieces do not wrap).
    const core = words.slice(from, to).join(' ');
    const cut = wrapText(middleEllipsis(core, max * maxLines * 0.9, style), max, style);
    return fits(cut, max, maxLines, style) ? cut : [middleEllipsis(core, max, style)];
  }
  const add = (i: number): boolean => {
    keep.add(i);
    const lines = tryLines(keep);
    if (fits(lines, max, maxLines, style)) {
      best = lines;
      return true;
    }
    keep.delete(i);
    return false;
  };
  // The first word gives the context; then words next to the kept span, outward, each side until one does not fit.
  if (from > 0) add(0);
  let left = from - 1;
  let right = to;
  while ((left > 0 && !keep.has(left)) || right < words.length) {
    if (right < words.length && !add(right++)) right = words.length;
    if (left > 0 && !keep.has(left) && !add(left--)) left = 0;
  }
  return best;
}

function fits(lines: string[], max: number, maxLines: number, style: TextStyle): boolean {
  return lines.length <= maxLines && lines.every((l) => width(l, style) <= max + 0.5);
}

/** The words kept, in order, with one ellipsis for each run of words left out. */
function elide(words: string[], keep: Set<number>): string {
  const out: string[] = [];
  words.forEach((w, i) => {
    if (keep.has(i)) out.push(w);
    else if (out.at(-1) !== ELLIPSIS) out.push(ELLIPSIS);
  });
  return out.join(' ');
}

/**
 * The words of a label that tell it apart: what is left after the longest word prefix and the longest word
 * suffix it shares with any other label. Never empty: a label that is all shared keeps its last word.
 */
function distinguishingSpan(words: string[], others: readonly string[]): [number, number] {
  let prefix = 0;
  let suffix = 0;
  const self = words.join(' ');
  for (const other of others) {
    const o = other.trim().split(/\s+/);
    if (o.join(' ') === self) continue;
    let p = 0;
    while (p < words.length && p < o.length && words[p] === o[p]) p++;
    let s = 0;
    while (s < words.length - p && s < o.length - p && words[words.length - 1 - s] === o[o.length - 1 - s]) s++;
    prefix = Math.max(prefix, p);
    suffix = Math.max(suffix, s);
  }
  const from = Math.min(prefix, words.length - 1);
  const to = Math.max(from + 1, words.length - suffix);
  return [from, to];
}

const graphemes = (s: string) => [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);

/** `text` with characters cut from its middle until it is at most `max` wide: "Spreadsh…Leeds". */
export function middleEllipsis(text: string, max: number, style: TextStyle): string {
  if (width(text, style) <= max) return text;
  const chars = graphemes(text);
  let lo = 0;
  let hi = chars.length;
  const cut = (n: number) => `${chars.slice(0, Math.ceil(n / 2)).join('').trimEnd()}${ELLIPSIS}${chars.slice(chars.length - Math.floor(n / 2)).join('').trimStart()}`;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (width(cut(mid), style) <= max) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}
