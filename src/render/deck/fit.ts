/**
 * Text on a slide: made safe (text from a vault is data, never markup or formatting) and made to fit its box.
 * A box is measured in the deck's face (DejaVu Sans, the vault theme's font, measured as the charts measure
 * their labels); text longer than its box is shortened at a word boundary and ends with an ellipsis, so
 * nothing overflows a slide. PowerPoint wraps the lines itself: what is cut here is only what would not fit.
 */
import { measureText, wrapText } from '../chart/text.js';
import { cleanText } from '../export/pdf-text.js';

/** Points per inch (slides are laid out in inches, type in points). */
export const PT_PER_IN = 72;
/** Line height as a multiple of the font size: DejaVu Sans's own (1.164) with room for the reader's rounding. */
export const LINE_HEIGHT = 1.2;
/**
 * Share of a box's width the wrapping may fill: a reader's line breaking (kerning, its own metrics when it
 * substitutes the face) is not ours to the point, so lines are planned a little short.
 */
const WIDTH_SLACK = 0.94;
/** A text read from a vault is shortened to this many characters before it is measured (a 1 MB description). */
const MAX_CHARS = 4000;
const ELLIPSIS = '…';

/**
 * Text as a slide shows it: control characters and invisible formatting removed (cleanText), and also the
 * bidirectional isolates (U+2066–U+2069), which like the embeddings and overrides would reorder the text
 * around a name; characters XML cannot carry (U+FFFE, U+FFFF, C0) dropped by cleanText's xmlSafe. The writer
 * escapes what is left, so a name like `<b>x</b>` stays those characters.
 */
export function slideText(text: string | null | undefined): string {
  if (!text) return '';
  return cleanText(text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text)
    .replace(/[\u2066-\u2069]/g, '')
    .trim();
}

export interface Box {
  /** Width and height in inches. */
  w: number;
  h: number;
  /** Font size in points. */
  size: number;
  bold?: boolean;
  /** At most this many lines, whatever the height allows. */
  maxLines?: number;
}

/** How many lines of `size` fit a box `h` inches high. */
export const linesIn = (h: number, size: number) =>
  Math.max(1, Math.floor((h * PT_PER_IN) / (size * LINE_HEIGHT) + 0.05));

/** Lines `text` takes in a box of that width (paragraphs broken at '\n'). */
export function wrapLines(text: string, box: Pick<Box, 'w' | 'size' | 'bold'>): string[] {
  const max = box.w * PT_PER_IN * WIDTH_SLACK;
  const style = { size: box.size, bold: box.bold, measure: measureText };
  return text
    .split('\n')
    .flatMap((paragraph) =>
      paragraph.trim() ? wrapText(paragraph, max, style).flatMap((line) => splitWide(line, max, style)) : [''],
    );
}

/** A line still wider than the box (one long word: a URL, an id) broken by characters. */
function splitWide(
  line: string,
  max: number,
  style: { size: number; bold?: boolean; measure: typeof measureText },
): string[] {
  if (style.measure(line, style.size, style.bold) <= max) return [line];
  const out: string[] = [];
  let current = '';
  for (const ch of line) {
    if (current && style.measure(current + ch, style.size, style.bold) > max) {
      out.push(current);
      current = ch;
    } else current += ch;
  }
  if (current) out.push(current);
  return out;
}

/**
 * `text` as it fits the box: whole when it does, else its longest beginning that ends at a word boundary and,
 * with an ellipsis, still fits (found by halving: about ten wraps for the longest text). The kept text keeps
 * its own spaces and line breaks, so the reader wraps it as it would the whole.
 */
export function fitText(text: string, box: Box): { text: string; cut: boolean } {
  const room = Math.min(box.maxLines ?? Infinity, linesIn(box.h, box.size));
  if (wrapLines(text, box).length <= room) return { text, cut: false };
  // Word ends: the offsets where a beginning may stop.
  const ends: number[] = [];
  for (const m of text.matchAll(/\S+/g)) ends.push(m.index! + m[0].length);
  const cutAt = (k: number) => `${text.slice(0, ends[k]!).replace(/[\s,;:.\-–—(]+$/u, '')}${ELLIPSIS}`;
  let lo = -1; // the most words known to fit (-1: not even one)
  let hi = ends.length - 1; // known not to fit whole
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (wrapLines(cutAt(mid), box).length <= room) lo = mid;
    else hi = mid;
  }
  // The next word is wider than a line (a URL, an id, a run of symbols): a reader breaks it anywhere, so it is
  // cut by characters rather than dropped whole (which could leave a line or more empty).
  const next = lo + 1;
  const start = next === 0 ? 0 : ends[lo]!;
  const word = text.slice(start, ends[next]).trimStart();
  if (measureText(word, box.size, box.bold) > box.w * PT_PER_IN * WIDTH_SLACK) {
    const head = text.slice(0, ends[next]! - word.length);
    const chars = [...word];
    let a = 0; // characters known to fit
    let b = chars.length; // known not to fit (the whole text did not)
    while (b - a > 1) {
      const mid = (a + b) >> 1;
      if (wrapLines(`${head}${chars.slice(0, mid).join('')}${ELLIPSIS}`, box).length <= room) a = mid;
      else b = mid;
    }
    if (a > 0) return { text: `${head}${chars.slice(0, a).join('')}${ELLIPSIS}`, cut: true };
  }
  if (lo >= 0) return { text: cutAt(lo), cut: true };
  return { text: ELLIPSIS, cut: true };
}

/** Vault text made safe (slideText) and fitted to the box (fitText): what the writer is given. */
export const fit = (text: string | null | undefined, box: Box): string => fitText(slideText(text), box).text;

/** Height in inches that `lines` lines of `size` take. */
export const heightOf = (lines: number, size: number) => (lines * size * LINE_HEIGHT) / PT_PER_IN;
