/**
 * Text in the PDF report: the font stack (src/render/font.ts) as PDF fonts, text split into runs by the face
 * that draws each character, right-to-left runs reordered (Unicode bidi algorithm, bidi-js) and shaped
 * (fontkit's OpenType shaping: Arabic letters joined, lam-alef ligatures, marks placed), wrapping and fitting.
 *
 * Fast path: text that the primary face (DejaVu Sans) draws alone and that needs no shaping, which is nearly
 * every cell of a usual report, is one glyph per character from per-code-point caches (no layout call), as
 * before the stack existed. Only other text pays for run splitting, bidi and shaping.
 *
 * A fallback face is read and parsed the first time a character needs it, and embedded (as a subset) only
 * when it drew something. A character no face has is drawn as U+FFFD and reported (`missing`), never silently.
 * One face (widths, glyph codes, shaping, embedding) is pdf-face.ts.
 */
import type { Font as FontkitFont } from '@pdf-lib/fontkit';
import type { PDFRef } from 'pdf-lib';
import { Face, repairCffHeader, REPLACEMENT, type Embedder } from './pdf-face.js';
import { xmlSafe } from '../../core/xml-text.js';
import { INVISIBLE } from '../../core/bidi.js';

type PdfLib = typeof import('pdf-lib');
type Fontkit = typeof import('@pdf-lib/fontkit');
type Bidi = ReturnType<typeof import('bidi-js').default>;

/** Characters that draw nothing themselves but steer shaping: joiners, variation selectors, tags. */
const isJoinControl = (cp: number) =>
  cp === 0x200c ||
  cp === 0x200d ||
  (cp >= 0xfe00 && cp <= 0xfe0f) ||
  (cp >= 0xe0020 && cp <= 0xe007f) ||
  (cp >= 0xe0100 && cp <= 0xe01ef);
/** Text that needs OpenType shaping: right-to-left scripts, combining marks, joiners, emoji modifiers. */
const NEEDS_SHAPING =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|[\ufe00-\ufe0f]|\u200c|\u200d|\p{M}|[\u{1f3fb}-\u{1f3ff}]|[\u{e0020}-\u{e007f}]|[\u{e0100}-\u{e01ef}]/u;
/** Strong right-to-left characters (Hebrew, Arabic, Syriac, Thaana, N'Ko…, their presentation forms; RTL astral blocks). */
const HAS_RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|[\ud802\ud803\ud83a\ud83b][\udc00-\udfff]/;
const combining = /\p{M}/u;

/** A piece of a line in one face, in drawing (visual) order. */
export interface Run {
  face: Face;
  /** Operand and operator: `(…) Tj` or `[…] TJ`. */
  op: string;
  /** Width at the stack's size 1 (1/1000 em). */
  width: number;
}

/**
 * One weight of the stack (regular or bold): the faces, in fallback order, each created on first need.
 * Resource keys: F1, F3, F5… for regular, F2, F4, F6… for bold.
 */
export class FontStack {
  private readonly faces: (Face | undefined)[] = [];
  /** Index of the face drawing each BMP code point: -2 not yet known, -1 none. */
  private readonly bmpFace = new Int8Array(0x10000).fill(-2);
  private readonly astralFace = new Map<number, number>();
  /** Code points no face of the stack has (drawn as U+FFFD). */
  readonly missing = new Set<number>();

  constructor(
    private readonly lib: PdfLib,
    private readonly fontkit: Fontkit,
    private readonly files: readonly string[],
    private readonly bold: boolean,
    private readonly nextRef: () => PDFRef,
    private readonly readFile: (path: string) => Uint8Array,
    private readonly bidi: () => Bidi,
  ) {}

  get primary(): Face {
    return this.face(0);
  }

  /** The faces that drew something, for the resources and the embedding. */
  get used(): Face[] {
    return this.faces.filter((f): f is Face => !!f?.used);
  }

  private face(i: number): Face {
    let face = this.faces[i];
    if (!face) {
      const bytes = this.readFile(this.files[i]!);
      // pdf-lib's embedder constructor is private in its types only; `for()` would make a first use async.
      const Subset = this.lib.CustomFontSubsetEmbedder as unknown as new (
        font: FontkitFont,
        data: Uint8Array,
      ) => Embedder;
      const embedder = new Subset(this.fontkit.create(bytes as Buffer), bytes);
      repairCffHeader(embedder);
      face = new Face(`F${2 * i + (this.bold ? 2 : 1)}`, this.nextRef(), embedder);
      this.faces[i] = face;
    }
    return face;
  }

  /** Index of the first face that has a glyph for `cp`, -1 when none has. */
  private faceIndex(cp: number): number {
    let i = cp < 0x10000 ? this.bmpFace[cp]! : (this.astralFace.get(cp) ?? -2);
    if (i === -2) {
      i = -1;
      for (let k = 0; k < this.files.length; k++) {
        if (this.face(k).has(cp)) {
          i = k;
          break;
        }
      }
      if (cp < 0x10000) this.bmpFace[cp] = i;
      else this.astralFace.set(cp, i);
    }
    return i;
  }

  /** True when the primary face draws every character of `text` one glyph each (the fast path). */
  private plain(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x02ea) continue; // Latin and most spacing modifiers: the primary face has all of them
      if (c >= 0xd800 && c < 0xdc00) return false;
      if (this.faceIndex(c) !== 0) return false;
    }
    return !NEEDS_SHAPING.test(text);
  }

  /** Width of a (clean) one-line text at a size, in points. */
  width(text: string, size: number): number {
    if (this.plain(text)) return (this.primary.simpleWidth(text) * size) / 1000;
    let w = 0;
    for (const run of this.runs(text)) w += run.width;
    return (w * size) / 1000;
  }

  /**
   * A (clean) one-line text as runs in drawing order: split by face, right-to-left runs reordered by the
   * bidi algorithm (paragraph direction from the first strong character), shaped where the script needs it.
   */
  runs(text: string): Run[] {
    const primary = this.primary;
    if (this.plain(text))
      return [{ face: primary, op: `${primary.simple(text)} Tj`, width: primary.simpleWidth(text) }];

    const levels = HAS_RTL.test(text) ? this.bidi().getEmbeddingLevels(text, 'auto').levels : undefined;
    // Logical runs of one face and one bidi level; marks and joiners stay with the character before them.
    const logical: { face: number; level: number; text: string }[] = [];
    let at = 0;
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      const level = levels ? levels[at]! : 0;
      at += ch.length;
      const last = logical[logical.length - 1];
      if (last && last.level === level && (isJoinControl(cp) || (combining.test(ch) && this.face(last.face).has(cp)))) {
        last.text += ch;
        continue;
      }
      let face = this.faceIndex(cp);
      let drawn = ch;
      if (face < 0) {
        if (isJoinControl(cp)) continue; // nothing to draw, nothing lost to the eye
        this.missing.add(cp);
        face = 0;
        drawn = String.fromCodePoint(REPLACEMENT);
      }
      if (last && last.face === face && last.level === level) last.text += drawn;
      else logical.push({ face, level, text: drawn });
    }

    // L2: from the highest level down to the lowest odd one, reverse every sequence of runs at that level or above.
    const order = logical.map((_, i) => i);
    if (levels) {
      const max = Math.max(...logical.map((r) => r.level));
      const minOdd = Math.min(...logical.map((r) => r.level | 1));
      for (let level = max; level >= minOdd; level--) {
        for (let i = 0; i < order.length; ) {
          if (logical[order[i]!]!.level < level) {
            i++;
            continue;
          }
          let j = i;
          while (j < order.length && logical[order[j]!]!.level >= level) j++;
          order.splice(i, j - i, ...order.slice(i, j).reverse());
          i = j;
        }
      }
    }

    const bidi = levels ? this.bidi() : undefined;
    return order.map((k) => {
      const run = logical[k]!;
      const face = this.face(run.face);
      const rtl = (run.level & 1) === 1;
      if (NEEDS_SHAPING.test(run.text)) {
        // fontkit lays out Arabic and Hebrew right to left itself; mirror brackets first (a "(" reads ")" there).
        const text = rtl ? [...run.text].map((c) => bidi!.getMirroredCharacter(c) ?? c).join('') : run.text;
        const { op, width } = face.shape(text);
        return { face, op, width };
      }
      const text = rtl
        ? [...run.text]
            .reverse()
            .map((c) => bidi!.getMirroredCharacter(c) ?? c)
            .join('')
        : run.text;
      return { face, op: `${face.simple(text)} Tj`, width: face.simpleWidth(text) };
    });
  }
}

/**
 * Text as the report, the deck and the charts draw it: what XML cannot carry removed first (xmlSafe: the same rule
 * as the deck and the workbooks; lone surrogates become U+FFFD, U+FFFE and U+FFFF go), then NFC, line breaks as
 * '\n', tabs as spaces, other control characters and the invisible ones (core/bidi's INVISIBLE: bidi controls,
 * zero width space, BOM…) removed (they have no glyph and would show as boxes, or reorder the text); the joiners
 * (ZWJ, ZWNJ) and variation selectors stay, for shaping.
 */
export function cleanText(text: string): string {
  let s = text;
  if (/[^\u0020-\u007e]/.test(s)) {
    s = xmlSafe(s)
      .replace(/\r\n?/g, '\n')
      .replace(/[\t\u000b\u000c]/g, ' ')
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
        c === '\u2028' || c === '\u2029' ? '\n' : '',
      )
      .replace(INVISIBLE, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .normalize('NFC');
  }
  return s;
}

/** Wrap a clean text into lines no wider than `max` points: at spaces, or inside a word too long for a line. */
export function wrapText(text: string, stack: FontStack, size: number, max: number): string[] {
  const lines: string[] = [];
  const space = stack.width(' ', size);
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(' ')) {
      if (word === '') continue;
      const w = stack.width(word, size);
      if (line && lineWidth + space + w <= max) {
        line += ` ${word}`;
        lineWidth += space + w;
        continue;
      }
      if (line) lines.push(line);
      if (w <= max) {
        line = word;
        lineWidth = w;
        continue;
      }
      // A word wider than the column: break it between characters.
      line = '';
      lineWidth = 0;
      for (const ch of word) {
        const cw = stack.width(ch, size);
        if (line && lineWidth + cw > max) {
          lines.push(line);
          line = '';
          lineWidth = 0;
        }
        line += ch;
        lineWidth += cw;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** A text cut to fit `max` points, with an ellipsis (for one-line page furniture only, never for data). */
const fittedByStack = new WeakMap<FontStack, Map<string, string>>();
export function fitLine(text: string, stack: FontStack, size: number, max: number): string {
  // The same running header is fitted on every page: remember the answer.
  let fitted = fittedByStack.get(stack);
  if (!fitted) fittedByStack.set(stack, (fitted = new Map()));
  const key = `${size}|${max}|${text}`;
  const known = fitted.get(key);
  if (known !== undefined) return known;
  const flat = text.replace(/\s+/g, ' ').trim();
  let result = flat;
  if (stack.width(flat, size) > max) {
    // Binary search for the longest prefix that fits with its ellipsis: O(log n) measurements, not O(n).
    const chars = [...flat];
    let lo = 0;
    let hi = chars.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (stack.width(`${chars.slice(0, mid).join('')}…`, size) <= max) lo = mid;
      else hi = mid - 1;
    }
    result = `${chars.slice(0, lo).join('').trimEnd()}…`;
  }
  if (fitted.size > 1000) fitted.clear();
  fitted.set(key, result);
  return result;
}
