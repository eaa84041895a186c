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
 */
import type { Font as FontkitFont } from '@pdf-lib/fontkit';
import type { PDFRef } from 'pdf-lib';

type PdfLib = typeof import('pdf-lib');
type Fontkit = typeof import('@pdf-lib/fontkit');
type Bidi = ReturnType<typeof import('bidi-js').default>;

/** pdf-lib's subsetting embedder, used directly: pages are written by our own file writer (pdf-file.ts). */
interface Embedder {
  readonly font: FontkitFont;
  encodeText(text: string): { asString(): string };
  embedIntoContext(context: unknown, ref: PDFRef): Promise<PDFRef>;
}

const REPLACEMENT = 0xfffd;

/** A coordinate with at most two decimals, as short as it gets. */
export const num = (n: number) => String(Math.round(n * 100) / 100);

/** Characters that draw nothing themselves but steer shaping: joiners, variation selectors, tags. */
const isJoinControl = (cp: number) => cp === 0x200c || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0020 && cp <= 0xe007f) || (cp >= 0xe0100 && cp <= 0xe01ef);
/** Text that needs OpenType shaping: right-to-left scripts, combining marks, joiners, emoji modifiers. */
const NEEDS_SHAPING = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200c\u200d\ufe00-\ufe0f]|\p{M}|\ud83c[\udffb-\udfff]|\udb40[\udc20-\udc7f\udd00-\uddef]/u;
/** Strong right-to-left characters (Hebrew, Arabic, Syriac, Thaana, N'Ko…, their presentation forms; RTL astral blocks). */
const HAS_RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|[\ud802\ud803\ud83a\ud83b][\udc00-\udfff]/;
const combining = /\p{M}/u;

/** Glyph ids (hex, two bytes each) as the bytes of a PDF literal string: backslash and parentheses escaped, CR and LF written as \\r and \\n. */
function literalBytes(hex: string): string {
  let out = '';
  for (let i = 0; i + 1 < hex.length; i += 2) {
    const byte = parseInt(hex.slice(i, i + 2), 16);
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte === 0x0a) out += '\\n';
    else if (byte === 0x0d) out += '\\r';
    else out += String.fromCharCode(byte);
  }
  return out;
}

const reversedLigatures = new WeakSet<object>();

/** One font file as a PDF font resource (`/F1`…), subset as it is used. */
export class Face {
  /** Advance widths in 1/1000 em, by code point (BMP in an array, the rest in a map); NaN = not yet known. */
  private readonly bmpWidth = new Float64Array(0x10000).fill(Number.NaN);
  private readonly astralWidth = new Map<number, number>();
  /** The literal-string bytes of each code point's glyph (BMP in an array, the rest in a map). */
  private readonly bmpCode: (string | undefined)[] = new Array<string | undefined>(0x10000);
  private readonly astralCode = new Map<number, string>();
  /** Shaped runs: the operator that draws them and their width in 1/1000 em, by (direction, text). */
  private readonly shaped = new Map<string, { op: string; width: number }>();
  /** "/F1 8 Tf", by size. */
  private readonly selectors = new Map<number, string>();
  private readonly scale: number;
  private readonly fk: FontkitFont;
  readonly ascent: number;
  readonly descent: number;
  /** Set once a glyph of this face is on a page: only used faces are embedded. */
  used = false;

  constructor(
    readonly key: string,
    readonly ref: PDFRef,
    private readonly embedder: Embedder,
  ) {
    this.fk = embedder.font;
    this.scale = 1000 / this.fk.unitsPerEm;
    this.ascent = this.fk.ascent / this.fk.unitsPerEm;
    this.descent = -this.fk.descent / this.fk.unitsPerEm;
  }

  has(cp: number): boolean {
    return this.fk.hasGlyphForCodePoint(cp);
  }

  /** The operator selecting this face at a size. */
  selector(size: number): string {
    let op = this.selectors.get(size);
    if (!op) {
      op = `/${this.key} ${num(size)} Tf`;
      this.selectors.set(size, op);
    }
    return op;
  }

  /** Width of one code point in 1/1000 em (U+FFFD's for one the face lacks). */
  cpWidth(cp: number): number {
    let w = cp < 0x10000 ? this.bmpWidth[cp]! : (this.astralWidth.get(cp) ?? Number.NaN);
    if (Number.isNaN(w)) {
      w = this.fk.glyphForCodePoint(this.drawable(cp)).advanceWidth * this.scale;
      if (cp < 0x10000) this.bmpWidth[cp] = w;
      else this.astralWidth.set(cp, w);
    }
    return w;
  }

  private drawable(cp: number): number {
    if (this.fk.hasGlyphForCodePoint(cp)) return cp;
    return this.fk.hasGlyphForCodePoint(REPLACEMENT) ? REPLACEMENT : 0x3f;
  }

  /** Width in 1/1000 em of text drawn one glyph per character. */
  simpleWidth(text: string): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
        w += this.cpWidth(text.codePointAt(i)!);
        i++;
      } else w += this.cpWidth(c);
    }
    return w;
  }

  /**
   * Text drawn one glyph per character, as a PDF literal string of 2-byte glyph ids (half the size of hex, so
   * half the deflate work). The subset embedder records each glyph it hands out, for the subset and the
   * ToUnicode map.
   */
  simple(text: string): string {
    this.used = true;
    let out = '(';
    for (let i = 0; i < text.length; i++) {
      let cp = text.charCodeAt(i);
      if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < text.length) {
        cp = text.codePointAt(i)!;
        i++;
      }
      let code = cp < 0x10000 ? this.bmpCode[cp] : this.astralCode.get(cp);
      if (code === undefined) {
        // usually one glyph id (4 hex digits); whatever fontkit's layout returns is kept whole
        code = literalBytes(this.embedder.encodeText(String.fromCodePoint(this.drawable(cp))).asString());
        if (cp < 0x10000) this.bmpCode[cp] = code;
        else this.astralCode.set(cp, code);
      }
      out += code;
    }
    return `${out})`;
  }

  /**
   * A run shaped by fontkit (substitutions such as Arabic joining forms and ligatures, positioning such as
   * marks and kerning; a right-to-left script comes out in visual order), drawn with TJ so each glyph lands
   * where the shaping put it. The ToUnicode map gives each glyph the characters it stands for, so the text
   * copies and searches as written.
   */
  shape(text: string): { op: string; width: number } {
    let known = this.shaped.get(text);
    if (!known) {
      this.used = true;
      const ids = this.embedder.encodeText(text).asString(); // the same layout as below, glyph ids of the subset
      const { glyphs, positions, direction } = this.fk.layout(text);
      if (direction === 'rtl') {
        // Readers turn a right-to-left line back into reading order by reversing its characters, so a
        // ligature's characters (lam-alef) are mapped in drawing order, to come out in reading order.
        for (const glyph of glyphs) {
          if (glyph.codePoints.length > 1 && !reversedLigatures.has(glyph)) {
            glyph.codePoints = [...glyph.codePoints].reverse();
            reversedLigatures.add(glyph);
          }
        }
      }
      // TJ operands: glyph strings, and between them adjustments (1/1000 em; positive moves left)
      const parts: string[] = [];
      let glyphRun = '';
      let width = 0;
      let pending = 0; // adjustment owed before the next glyph
      const adjust = (by: number) => {
        if (Math.abs(by) <= 0.01) return;
        if (glyphRun) parts.push(`(${glyphRun})`);
        glyphRun = '';
        parts.push(num(by));
      };
      glyphs.forEach((glyph, i) => {
        const p = positions[i]!;
        adjust(pending - p.xOffset * this.scale);
        glyphRun += literalBytes(ids.slice(4 * i, 4 * i + 4));
        pending = (glyph.advanceWidth - p.xAdvance + p.xOffset) * this.scale;
        width += p.xAdvance * this.scale;
      });
      adjust(pending);
      if (glyphRun) parts.push(`(${glyphRun})`);
      known = { op: `[${parts.join(' ')}] TJ`, width };
      if (this.shaped.size > 5000) this.shaped.clear();
      this.shaped.set(text, known);
    }
    return known;
  }

  /** Put the subset into the document (at the end, when every glyph is known). */
  embed(context: unknown): Promise<PDFRef> {
    return this.embedder.embedIntoContext(context, this.ref);
  }
}

/**
 * fontkit 1.x writes the CFF table's length into the subset's header byte `offSize`, which must be 1 to 4:
 * FreeType (poppler, Chrome) and pdf.js then reject the font and draw nothing. The byte is only a hint
 * (every INDEX carries its own offset size), so 4 is always right.
 */
function repairCffHeader(embedder: Embedder): void {
  const target = embedder as unknown as { serializeFont(): Promise<Uint8Array> };
  const serialize = target.serializeFont.bind(embedder);
  target.serializeFont = async () => {
    const bytes = await serialize();
    // a bare CFF (a TrueType subset starts 00 01 00 00): major 1, minor 0, header size 4, then offSize
    if (bytes[0] === 1 && bytes[1] === 0 && bytes[2] === 4 && (bytes[3]! < 1 || bytes[3]! > 4)) bytes[3] = 4;
    return bytes;
  };
}

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
      const Subset = this.lib.CustomFontSubsetEmbedder as unknown as new (font: FontkitFont, data: Uint8Array) => Embedder;
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
    if (this.plain(text)) return [{ face: primary, op: `${primary.simple(text)} Tj`, width: primary.simpleWidth(text) }];

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
      const text = rtl ? [...run.text].reverse().map((c) => bidi!.getMirroredCharacter(c) ?? c).join('') : run.text;
      return { face, op: `${face.simple(text)} Tj`, width: face.simpleWidth(text) };
    });
  }
}

/**
 * Text as the report draws it: NFC, line breaks as '\n', tabs as spaces, other control and invisible
 * formatting characters removed (they have no glyph and would show as boxes); the joiners (ZWJ, ZWNJ) and
 * variation selectors stay, for shaping. Lone surrogates become U+FFFD.
 */
export function cleanText(text: string): string {
  let s = text;
  if (/[^\u0020-\u007e]/.test(s)) {
    s = s
      .replace(/\r\n?/g, '\n')
      .replace(/[\t\u000b\u000c]/g, ' ')
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\ufeff]/g, (c) =>
        c === '\u2028' || c === '\u2029' ? '\n' : '',
      )
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
