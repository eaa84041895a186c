/**
 * One font file of the PDF report's stack as a PDF font resource (`/F1`…): glyph widths and codes from
 * per-code-point caches, OpenType shaping of a run (fontkit), and the subset embedded once it drew something.
 * The stack that picks a face per character is in pdf-text.ts.
 */
import type { Font as FontkitFont } from '@pdf-lib/fontkit';
import type { PDFRef } from 'pdf-lib';

/** pdf-lib's subsetting embedder, used directly: pages are written by our own file writer (pdf-file.ts). */
export interface Embedder {
  readonly font: FontkitFont;
  encodeText(text: string): { asString(): string };
  embedIntoContext(context: unknown, ref: PDFRef): Promise<PDFRef>;
}

export const REPLACEMENT = 0xfffd;

/** A coordinate with at most two decimals, as short as it gets. */
export const num = (n: number) => String(Math.round(n * 100) / 100);

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
export function repairCffHeader(embedder: Embedder): void {
  const target = embedder as unknown as { serializeFont(): Promise<Uint8Array> };
  const serialize = target.serializeFont.bind(embedder);
  target.serializeFont = async () => {
    const bytes = await serialize();
    // a bare CFF (a TrueType subset starts 00 01 00 00): major 1, minor 0, header size 4, then offSize
    if (bytes[0] === 1 && bytes[1] === 0 && bytes[2] === 4 && (bytes[3]! < 1 || bytes[3]! > 4)) bytes[3] = 4;
    return bytes;
  };
}
