/**
 * Column widths of the PDF table, from content: every column gets at least its longest word (an id never
 * breaks mid-word; a date-time may wrap at its space), numbers their longest value, and the rest of the page
 * width is shared in proportion to how much text each column holds, so a Description column gets the room
 * and a typical row wraps to about the same number of lines in every column. The orientation that needs
 * fewer pages for the sample rows wins (portrait on a tie).
 */
import type { FontStack } from './pdf-text.js';
import type { Column } from './types.js';

export const PAD_X = 3;

/** A column's text measured at one font size: what it must get, what it could use, how much it holds. */
interface Measure {
  /** No narrower than this (longest word or number, capped; header words included). */
  min: number;
  /** No use being wider (longest line). */
  max: number;
  /** Mean width of a cell's text laid on one line: the column's share of the room. */
  mass: number;
  /** Numbers never wrap. */
  fixed: boolean;
}

export interface ColumnSample {
  column: Column;
  header: string;
  /** Clean cell texts of the sample rows. */
  texts: string[];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function measure(sample: ColumnSample, regular: FontStack, bold: FontStack, size: number, usable: number): Measure {
  const fixed = sample.column.type === 'number';
  const wordCap = usable * 0.3;
  let longestWord = Math.max(0, ...sample.header.split(/\s+/).map((w) => bold.width(w, size)));
  let longestLine = 0;
  let total = 0;
  for (const text of sample.texts) {
    for (const line of text.split('\n')) {
      const w = regular.width(line, size);
      longestLine = Math.max(longestLine, w);
      total += w;
      if (!fixed) for (const word of line.split(' ')) longestWord = Math.max(longestWord, regular.width(word, size));
    }
  }
  const min = (fixed ? Math.max(longestLine, longestWord) : Math.min(longestWord, wordCap)) + 2 * PAD_X;
  return {
    min,
    max: Math.max(min, longestLine + 2 * PAD_X),
    mass: sample.texts.length ? total / sample.texts.length : 0,
    fixed,
  };
}

/**
 * Share `usable` points: each column between its min and max, the free ones in proportion to their mass
 * (water-filling: a column whose share falls outside its bounds is pinned there and the rest shared again).
 */
function share(measures: Measure[], usable: number): number[] {
  const widths = measures.map((m) => (m.fixed ? m.max : Number.NaN));
  let free = measures.map((m, i) => (m.fixed ? -1 : i)).filter((i) => i >= 0);
  for (;;) {
    const room = usable - sum(widths.filter((w) => !Number.isNaN(w)));
    const mass = sum(free.map((i) => Math.max(measures[i]!.mass, 1)));
    const pinned: number[] = [];
    for (const i of free) {
      const w = (room * Math.max(measures[i]!.mass, 1)) / mass;
      if (w < measures[i]!.min) widths[i] = measures[i]!.min;
      else if (w > measures[i]!.max) widths[i] = measures[i]!.max;
      else continue;
      pinned.push(i);
    }
    if (pinned.length === 0 || free.length === pinned.length) {
      free = free.filter((i) => !pinned.includes(i));
      for (const i of free) widths[i] = (room * Math.max(measures[i]!.mass, 1)) / mass;
      break;
    }
    free = free.filter((i) => !pinned.includes(i));
  }
  // Room left when every column has all it can use: to the text columns, in proportion to their width.
  const left = usable - sum(widths);
  if (left > 0.5) {
    const growable = measures.map((m, i) => (m.fixed ? 0 : widths[i]!));
    const total = sum(growable);
    return widths.map((w, i) => w + (total > 0 ? (left * growable[i]!) / total : left / widths.length));
  }
  return widths;
}

/** Lines a text takes at a width, wrapped at spaces (a word wider than the line is broken across lines). */
function lineCount(text: string, stack: FontStack, size: number, width: number): number {
  const space = stack.width(' ', size);
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    let at = -1;
    lines++;
    for (const word of paragraph.split(' ')) {
      if (!word) continue;
      const w = stack.width(word, size);
      if (at < 0) at = 0;
      else if (at + space + w > width) {
        lines++;
        at = 0;
      } else at += space;
      if (w > width) {
        lines += Math.ceil(w / width) - 1;
        at = w % width;
      } else at += w;
    }
  }
  return lines;
}

export interface ColumnPlan {
  widths: number[];
  fontSize: number;
  /** Estimated height of the sample rows in lines (to compare orientations). */
  lines: number;
}

/**
 * Font size and widths for a page width: the largest size (from `size` down to `minSize`) at which every
 * column gets its minimum; below that, minima are scaled down to fit (long words then break).
 */
export function planColumns(
  samples: ColumnSample[],
  regular: FontStack,
  bold: FontStack,
  usable: number,
  size: number,
  minSize: number,
): ColumnPlan {
  let fontSize = size;
  let measures = samples.map((s) => measure(s, regular, bold, fontSize, usable));
  while (sum(measures.map((m) => m.min)) > usable && fontSize > minSize) {
    fontSize -= 0.5;
    measures = samples.map((s) => measure(s, regular, bold, fontSize, usable));
  }
  const minTotal = sum(measures.map((m) => m.min));
  const widths = minTotal >= usable ? measures.map((m) => (m.min * usable) / minTotal) : share(measures, usable);
  const rows = samples[0]?.texts.length ?? 0;
  let lines = 0;
  for (let r = 0; r < rows; r++) {
    lines += Math.max(1, ...samples.map((s, c) => lineCount(s.texts[r]!, regular, fontSize, widths[c]! - 2 * PAD_X)));
  }
  return { widths, fontSize, lines };
}
