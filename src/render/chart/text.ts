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
/** Advance widths in font units by code point, regular and bold: the fast path of measureText. */
const advances = { regular: new Map<number, number>(), bold: new Map<number, number>() };
/**
 * Scripts whose letters change shape and width with their neighbours (Hebrew to Tibetan, Myanmar, Khmer,
 * Arabic presentation forms). Text without them is a sum of advances.
 */
const SHAPED_SCRIPTS = /[\u0590-\u0fff\u1000-\u109f\u1780-\u17ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/**
 * The chart font's advance widths. Text of the scripts that need no shaping is summed glyph by glyph (kerning left out:
 * it moves a label by under 1%, mostly narrower, and shaping costs 150-300 µs a call against about 10 µs);
 * other text is laid out by fontkit (Arabic joins its letters). A character the font has no glyph for counts
 * as one em: it is drawn by a fallback font or as a box, and both are about that wide.
 */
export const measureText: Measure = (text, size, bold = false) => {
  if (!faces) {
    const fontkit = createRequire(import.meta.url)('@pdf-lib/fontkit') as typeof Fontkit;
    const primary = fontFaces()[0]!;
    faces = {
      regular: fontkit.create(readFileSync(primary.regular)),
      bold: fontkit.create(readFileSync(primary.bold)),
    };
  }
  const face = bold ? faces.bold : faces.regular;
  if (SHAPED_SCRIPTS.test(text)) return (shapedUnits(face, text) * size) / face.unitsPerEm;
  const known = bold ? advances.bold : advances.regular;
  let units = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    let advance = known.get(cp);
    if (advance === undefined) {
      const glyph = face.glyphForCodePoint(cp);
      advance = glyph.id === 0 ? face.unitsPerEm : glyph.advanceWidth;
      known.set(cp, advance);
    }
    units += advance;
  }
  return (units * size) / face.unitsPerEm;
};

function shapedUnits(face: Face, text: string): number {
  const run = face.layout(text);
  let units = run.advanceWidth;
  run.glyphs.forEach((glyph) => {
    if (glyph.id === 0) units += face.unitsPerEm - glyph.advanceWidth;
  });
  return units;
}

/** A font size and weight with the measure that goes with them. */
export interface TextStyle {
  size: number;
  bold?: boolean;
  measure: Measure;
}

const width = (text: string, style: TextStyle) => style.measure(text, style.size, style.bold);

/** Lines with their widths. */
interface Wrapped {
  lines: string[];
  widths: number[];
}

/**
 * Lines of `text` at most `max` wide, broken at spaces; a word wider than a line is broken after a hyphen
 * or slash inside it when that helps. A piece still wider than `max` stays whole (see fitLabel).
 */
export function wrapText(text: string, max: number, style: TextStyle): string[] {
  return wrap(text, max, style).lines;
}

/**
 * wrapText with the width of each line. A line's width is the sum of its pieces and spaces, each measured
 * once: linear in the words, where measuring every longer line again was quadratic.
 */
function wrap(text: string, max: number, style: TextStyle): Wrapped {
  const space = width(' ', style);
  // Each piece notes whether it continues the word before it (the part after a hyphen), so needs no space.
  const pieces = text
    .trim()
    .split(/\s+/)
    .flatMap((word) => {
      const w = width(word, style);
      const parts = w > max ? word.split(/(?<=[-/])(?=.)/) : [word];
      return parts.map((piece, i) => ({
        piece,
        width: parts.length === 1 ? w : width(piece, style),
        continues: i > 0,
      }));
    });
  const lines: string[] = [];
  const widths: number[] = [];
  let line = '';
  let lineWidth = 0;
  for (const { piece, width: w, continues } of pieces) {
    const joinedWidth = line === '' ? w : lineWidth + (continues ? 0 : space) + w;
    if (line !== '' && joinedWidth > max) {
      lines.push(line);
      widths.push(lineWidth);
      line = piece;
      lineWidth = w;
    } else {
      line = line === '' ? piece : line + (continues ? '' : ' ') + piece;
      lineWidth = joinedWidth;
    }
  }
  lines.push(line);
  widths.push(lineWidth);
  return { lines, widths };
}

const ELLIPSIS = '…';
/**
 * Characters of a label the fitting looks at: its first and last half of this, cut at spaces. No label
 * area shows more (two lines of a third of a slide, three under a wide bar), and it keeps the work per
 * label bounded whatever a spec sends.
 */
const MAX_FITTED_CHARS = 200;

/**
 * `label` in at most `maxLines` lines of at most `max` px, shortened as fitLabels does; `others` are the
 * labels it is shown with.
 */
export function fitLabel(
  label: string,
  others: readonly string[],
  max: number,
  maxLines: number,
  style: TextStyle,
): string[] {
  return fitLabels([label, ...others], max, maxLines, style).get(label)!;
}

/**
 * Each label in at most `maxLines` lines of at most `max` px. A label that does not fit whole loses words
 * from the middle: the words that differ from the most similar other label are kept first (from both ends
 * inward: "Key-person Dependency … WMS Administrator"), then the first word (the context), then words next
 * to the kept ones. Only when not even one distinguishing word fits is it cut in the middle, character by
 * character. n·log n in the labels (the most similar label is a neighbour in sorted order), and bounded
 * per label (MAX_FITTED_CHARS).
 */
export function fitLabels(
  labels: readonly string[],
  max: number,
  maxLines: number,
  style: TextStyle,
): Map<string, string[]> {
  const distinct = [...new Set(labels)];
  const words = distinct.map((label) => splitWords(bounded(label)));
  const spans = distinguishingSpans(words);
  const memo = memoized(style);
  return new Map(distinct.map((label, i) => [label, fitWords(words[i]!, spans[i]!, max, maxLines, memo)]));
}

function fitWords(
  words: string[],
  [from, to]: [number, number],
  max: number,
  maxLines: number,
  style: TextStyle,
): string[] {
  const whole = wrap(words.join(' '), max, style);
  if (fits(whole, max, maxLines)) return whole.lines;

  const keep = new Set<number>();
  let best: string[] | undefined;
  const add = (i: number): boolean => {
    keep.add(i);
    const lines = wrap(elide(words, keep), max, style);
    if (fits(lines, max, maxLines)) {
      best = lines.lines;
      return true;
    }
    keep.delete(i);
    return false;
  };
  // The distinguishing words, from both ends inward, each end until a word does not fit.
  let left = from;
  let right = to - 1;
  let leftOpen = true;
  let rightOpen = true;
  while (left <= right && (leftOpen || rightOpen)) {
    if (leftOpen) {
      leftOpen = add(left);
      if (leftOpen) left++;
    }
    if (rightOpen && left <= right) {
      rightOpen = add(right);
      if (rightOpen) right--;
    }
  }
  if (!best) {
    // Not one distinguishing word fits: cut them in the middle (to one line when their pieces do not wrap).
    const core = words.slice(from, to).join(' ');
    const cut = wrap(middleEllipsis(core, max * maxLines * 0.9, style), max, style);
    return fits(cut, max, maxLines) ? cut.lines : [middleEllipsis(core, max, style)];
  }
  if (left <= right) return best; // the distinguishing words are already shortened: no room for context

  // The first word gives the context; then words next to the kept span, outward, each side until one does not fit.
  if (from > 0) add(0);
  let before = from - 1;
  let after = to;
  while ((before > 0 && !keep.has(before)) || after < words.length) {
    if (after < words.length && !add(after++)) after = words.length;
    if (before > 0 && !keep.has(before) && !add(before--)) before = 0;
  }
  return best;
}

function fits({ lines, widths }: Wrapped, max: number, maxLines: number): boolean {
  return lines.length <= maxLines && widths.every((w) => w <= max + 0.5);
}

/** A style whose measure remembers each text it measured (a label's words are measured again for every try). */
function memoized(style: TextStyle): TextStyle {
  const known = new Map<string, number>();
  return {
    ...style,
    measure: (text, size, bold) => {
      const key = `${size}|${bold ? 1 : 0}|${text}`;
      let w = known.get(key);
      if (w === undefined) known.set(key, (w = style.measure(text, size, bold)));
      return w;
    },
  };
}

/** The words of a label. */
const splitWords = (label: string): string[] => label.trim().split(/\s+/);

/** `label` cut to its first and last MAX_FITTED_CHARS / 2 characters, at spaces when it has them. */
function bounded(label: string): string {
  const text = label.trim();
  if (text.length <= MAX_FITTED_CHARS) return text;
  const half = MAX_FITTED_CHARS / 2;
  let head = text.slice(0, half).replace(/[\uD800-\uDBFF]$/, '');
  let tail = text.slice(-half).replace(/^[\uDC00-\uDFFF]/, '');
  if (/\s/.test(head)) head = head.replace(/\s+\S*$/, '');
  if (/\s/.test(tail)) tail = tail.replace(/^\S*\s+/, '');
  return `${head} ${ELLIPSIS} ${tail}`;
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
 * For each label (as words), the words that tell it apart: what is left after the longest word prefix and
 * the longest word suffix it shares with any other label. Never empty: a label that is all shared keeps its
 * last word. The longest prefix a label shares with any other is the one it shares with a neighbour when
 * the labels are sorted word by word (and the same for suffixes, sorted from the end): n·log n, not n².
 */
function distinguishingSpans(labels: string[][]): [number, number][] {
  const prefix = longestSharedRuns(labels);
  const suffix = longestSharedRuns(labels.map((words) => [...words].reverse()));
  return labels.map((words, i) => {
    const from = Math.min(prefix[i]!, words.length - 1);
    return [from, Math.max(from + 1, words.length - suffix[i]!)];
  });
}

/** For each word list, the longest run of leading words it shares with another list that is not the same. */
function longestSharedRuns(lists: string[][]): number[] {
  const keys = lists.map((words) => words.join(' '));
  const order = lists.map((_, i) => i).sort((a, b) => compareWords(lists[a]!, lists[b]!));
  const shared = (a: number, b: number | undefined) =>
    b === undefined || keys[a] === keys[b] ? 0 : commonPrefix(lists[a]!, lists[b]!);
  const out = new Array<number>(lists.length).fill(0);
  order.forEach((i, k) => {
    // Equal lists are neighbours too: look past them to the nearest different list on each side.
    let before = k - 1;
    while (before >= 0 && keys[order[before]!] === keys[i]) before--;
    let after = k + 1;
    while (after < order.length && keys[order[after]!] === keys[i]) after++;
    out[i] = Math.max(shared(i, order[before]), shared(i, order[after]));
  });
  return out;
}

function compareWords(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

function commonPrefix(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

const graphemes = (s: string) =>
  [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);

/** `text` with characters cut from its middle until it is at most `max` wide: "Spreadsh…Leeds". */
export function middleEllipsis(text: string, max: number, style: TextStyle): string {
  if (width(text, style) <= max) return text;
  const chars = graphemes(text);
  let lo = 0;
  let hi = chars.length;
  const cut = (n: number) =>
    `${chars
      .slice(0, Math.ceil(n / 2))
      .join('')
      .trimEnd()}${ELLIPSIS}${chars
      .slice(chars.length - Math.floor(n / 2))
      .join('')
      .trimStart()}`;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (width(cut(mid), style) <= max) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}
