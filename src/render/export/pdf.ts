/**
 * A printable report with pdf-lib: a title page (title, subtitle, meta), then the table, paginated, with the
 * header row repeated on every page, long text wrapped inside its column (a row taller than a page
 * continues on the next one: nothing is ever cut off), zebra rows, a running header and "Page n of N" in
 * every footer. A4, portrait when the columns fit, landscape otherwise.
 *
 * Text is DejaVu Sans (regular and bold), embedded as subsets, so any text the font covers (Latin, Greek,
 * Cyrillic, many symbols) renders and stays searchable and copyable (ToUnicode map). A character the font
 * has no glyph for is drawn as U+FFFD (�); control characters are dropped, tabs become spaces.
 *
 * Memory: pdf-lib keeps the whole document in memory, and its drawing API keeps one object per operator
 * until save: far too much for 100,000 rows (about 18,000 pages). So pages are written here, straight to
 * the file as each one is finished: content operators built as text, deflated, written with the page
 * dictionary, and forgotten. pdf-lib (with fontkit) is used for what it does well: subsetting and
 * embedding the two fonts, whose objects are copied into the file at the end, before the page tree,
 * catalog, xref table and trailer. Memory stays flat whatever the row count (npm run bench:actions measures it).
 * Shaping is one glyph per character (no ligatures, kerning or complex-script shaping), which keeps the
 * width measurement exact and fast.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import type { PDFDocument, PDFFont, PDFRef } from 'pdf-lib';
import type { Font as FontkitFont } from '@pdf-lib/fontkit';
import { boldFontBytes, fontBytes } from '../font.js';
import { writeAtomically } from './atomic.js';
import { RowReader, yieldToLoop } from './rows.js';
import type { CellValue, Column, TableExport } from './types.js';
import { displayText, normalizeValue } from './values.js';

type PdfLib = typeof import('pdf-lib');
type Fontkit = typeof import('@pdf-lib/fontkit');

let libs: Promise<{ pdf: PdfLib; fontkit: Fontkit }> | undefined;
const loadLibs = () =>
  (libs ??= Promise.all([import('pdf-lib'), import('@pdf-lib/fontkit')]).then(([pdf, fk]) => ({
    pdf,
    fontkit: ((fk as { default?: Fontkit }).default ?? fk) as Fontkit,
  })));

// ------------------------------------------------------------------------------------------------
// Geometry and look (points; A4)

const A4: [number, number] = [595.28, 841.89];
const MARGIN_X = 36;
const MARGIN_TOP = 40;
const MARGIN_BOTTOM = 44;
const BODY_SIZE = 8;
const MIN_BODY_SIZE = 6.5;
/** Line height as a multiple of the font size. */
const LEADING = 1.275;
const PAD_X = 4;
const PAD_Y = 3.5;
/** Rows read ahead to size the columns. */
const SAMPLE_ROWS = 200;
/** Widest a text column grows to before it wraps (unless the page has room to spare). */
const MAX_NATURAL_TEXT = 250;
const MIN_COLUMN = 28;
/** zlib level for page content: 6 compresses about 10% better and takes about twice as long. */
const DEFLATE_LEVEL = 3;

/** Colours as PDF operands "r g b" (0..1). */
type RGB = string;
const NAVY: RGB = '0.122 0.227 0.373'; // #1F3A5F, as the xlsx header
const INK: RGB = '0.13 0.15 0.18';
const MUTED: RGB = '0.4 0.44 0.5';
const RULE: RGB = '0.8 0.83 0.87';
const ZEBRA: RGB = '0.955 0.965 0.98';
const WHITE: RGB = '1 1 1';

/** A coordinate with at most two decimals, as short as it gets. */
const num = (n: number) => String(Math.round(n * 100) / 100);

// ------------------------------------------------------------------------------------------------
// Fonts: measure and encode one glyph per code point, with a fallback for what the font cannot draw.

const REPLACEMENT = 0xfffd;

class Face {
  /** Advance widths in 1/1000 em, by code point (BMP in an array, the rest in a map); NaN = not yet known. */
  private readonly bmpWidth = new Float64Array(0x10000).fill(Number.NaN);
  private readonly astralWidth = new Map<number, number>();
  /** The literal-string bytes of each code point's glyph (BMP in an array, the rest in a map). */
  private readonly bmpCode: (string | undefined)[] = new Array<string | undefined>(0x10000);
  private readonly astralCode = new Map<number, string>();
  /** "/F1 8 Tf", by size. */
  private readonly selectors = new Map<number, string>();
  private readonly scale: number;
  readonly ascent: number;
  readonly descent: number;

  constructor(
    readonly key: string,
    private readonly pdfFont: PDFFont,
    private readonly fk: FontkitFont,
  ) {
    this.scale = 1000 / fk.unitsPerEm;
    this.ascent = fk.ascent / fk.unitsPerEm;
    this.descent = -fk.descent / fk.unitsPerEm;
  }

  /** The code point actually drawn for `cp`: itself when the font has it, else U+FFFD (or '?'). */
  private drawable(cp: number): number {
    if (this.fk.hasGlyphForCodePoint(cp)) return cp;
    return this.fk.hasGlyphForCodePoint(REPLACEMENT) ? REPLACEMENT : 0x3f;
  }

  /** The operator selecting this font at a size. */
  selector(size: number): string {
    let op = this.selectors.get(size);
    if (!op) {
      op = `/${this.key} ${num(size)} Tf`;
      this.selectors.set(size, op);
    }
    return op;
  }

  /** Width of one code point in 1/1000 em. */
  cpWidth(cp: number): number {
    let w = cp < 0x10000 ? this.bmpWidth[cp]! : (this.astralWidth.get(cp) ?? Number.NaN);
    if (Number.isNaN(w)) {
      w = this.fk.glyphForCodePoint(this.drawable(cp)).advanceWidth * this.scale;
      if (cp < 0x10000) this.bmpWidth[cp] = w;
      else this.astralWidth.set(cp, w);
    }
    return w;
  }

  /** Width of a (clean) text at a size, in points. */
  width(text: string, size: number): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
        w += this.cpWidth(text.codePointAt(i)!);
        i++;
      } else w += this.cpWidth(c);
    }
    return (w * size) / 1000;
  }

  /**
   * A clean text as a PDF literal string of 2-byte glyph ids (half the size of hex, so half the deflate
   * work). The subset embedder records each glyph it hands out, for the subset and the ToUnicode map.
   */
  encode(text: string): string {
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
        code = literalBytes(this.pdfFont.encodeText(String.fromCodePoint(this.drawable(cp))).asString());
        if (cp < 0x10000) this.bmpCode[cp] = code;
        else this.astralCode.set(cp, code);
      }
      out += code;
    }
    return `${out})`;
  }
}

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

/**
 * Text as the report draws it: NFC, line breaks as '\n', tabs as spaces, other control and formatting
 * characters removed (they have no glyph and would show as boxes). Lone surrogates become U+FFFD.
 */
function cleanText(text: string): string {
  let s = text;
  if (/[^\u0020-\u007e]/.test(s)) {
    s = s
      .replace(/\r\n?/g, '\n')
      .replace(/[\t\u000b\u000c]/g, ' ')
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\ufeff]/g, (c) =>
        c === '\u2028' || c === '\u2029' ? '\n' : '',
      )
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .normalize('NFC');
  }
  return s;
}

/** Wrap a clean text into lines no wider than `max` points: at spaces, or inside a word too long for a line. */
function wrapText(text: string, face: Face, size: number, max: number): string[] {
  const lines: string[] = [];
  const space = face.width(' ', size);
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(' ')) {
      if (word === '') continue;
      const w = face.width(word, size);
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
        const cw = face.width(ch, size);
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
const fittedByFace = new WeakMap<Face, Map<string, string>>();
function fitLine(text: string, face: Face, size: number, max: number): string {
  // The same running header is fitted on every page: remember the answer.
  let fitted = fittedByFace.get(face);
  if (!fitted) fittedByFace.set(face, (fitted = new Map()));
  const key = `${size}|${max}|${text}`;
  const known = fitted.get(key);
  if (known !== undefined) return known;
  const flat = text.replace(/\s+/g, ' ').trim();
  let result = flat;
  if (face.width(flat, size) > max) {
    // Binary search for the longest prefix that fits with its ellipsis: O(log n) measurements, not O(n).
    const chars = [...flat];
    let lo = 0;
    let hi = chars.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (face.width(`${chars.slice(0, mid).join('')}…`, size) <= max) lo = mid;
      else hi = mid - 1;
    }
    result = `${chars.slice(0, lo).join('').trimEnd()}…`;
  }
  if (fitted.size > 1000) fitted.clear();
  fitted.set(key, result);
  return result;
}

// ------------------------------------------------------------------------------------------------
// Pages

interface Doc {
  regular: Face;
  bold: Face;
  file: PdfFile;
  size: [number, number];
}

/**
 * The PDF file, written as it is drawn: every finished page goes to disk at once (its content stream and
 * page dictionary), so memory does not grow with the page count. Object numbers come from the pdf-lib
 * context that embeds the fonts (nextRef() only counts: nothing is stored there), so the font objects
 * pdf-lib creates at the end never clash with ours. At the end: the "Page n of N" streams, the page tree
 * (nodes of at most 128 pages), the fonts, catalog, info, xref table and trailer.
 */
class PdfFile {
  /** Byte offset of each object written, by object number. */
  private readonly offsets: number[] = [];
  private chunks: Buffer[] = [];
  private pending = 0;
  private position = 0;
  private readonly groups: { ref: number; kids: number[] }[] = [];
  /** The object number reserved for each page's "Page n of N" stream. */
  private readonly pageNumberRefs: number[] = [];
  readonly catalogRef: number;
  readonly pagesRef: number;
  readonly resourcesRef: number;
  readonly footerRef: number;

  constructor(
    private readonly lib: PdfLib,
    private readonly fontDoc: PDFDocument,
    private readonly handle: FileHandle,
  ) {
    this.catalogRef = this.nextRef();
    this.pagesRef = this.nextRef();
    this.resourcesRef = this.nextRef();
    this.footerRef = this.nextRef();
    // header, and a comment with high bytes so tools treat the file as binary
    this.write(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
  }

  get pageCount() {
    return this.pageNumberRefs.length;
  }

  get bytes() {
    return this.position;
  }

  private nextRef(): number {
    return this.fontDoc.context.nextRef().objectNumber;
  }

  private write(bytes: Uint8Array) {
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.chunks.push(buffer);
    this.pending += buffer.length;
    this.position += buffer.length;
  }

  private object(ref: number, body: string) {
    this.offsets[ref] = this.position;
    this.write(Buffer.from(`${ref} 0 obj\n${body}\nendobj\n`, 'latin1'));
  }

  private stream(ref: number, bytes: Uint8Array, flate: boolean) {
    this.offsets[ref] = this.position;
    this.write(Buffer.from(`${ref} 0 obj\n<< /Length ${bytes.length}${flate ? ' /Filter /FlateDecode' : ''} >>\nstream\n`, 'latin1'));
    this.write(bytes);
    this.write(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  }

  /** Write out what has been buffered once there is enough of it (or always, with force). */
  async flush(force = false): Promise<void> {
    if (!this.pending || (!force && this.pending < 1 << 20)) return;
    const data = Buffer.concat(this.chunks);
    this.chunks = [];
    this.pending = 0;
    await this.handle.write(data);
  }

  /** A finished page: its content stream and its page dictionary go out now. */
  addPage(content: string, size: [number, number]) {
    let group = this.groups[this.groups.length - 1];
    if (!group || group.kids.length >= 128) {
      group = { ref: this.nextRef(), kids: [] };
      this.groups.push(group);
    }
    const contentRef = this.nextRef();
    const pageRef = this.nextRef();
    const pageNumberRef = this.nextRef();
    this.stream(contentRef, deflated(content), true);
    this.object(
      pageRef,
      `<< /Type /Page /Parent ${group.ref} 0 R /MediaBox [0 0 ${num(size[0])} ${num(size[1])}] /Resources ${this.resourcesRef} 0 R ` +
        `/Contents [${contentRef} 0 R ${this.footerRef} 0 R ${pageNumberRef} 0 R] >>`,
    );
    group.kids.push(pageRef);
    this.pageNumberRefs.push(pageNumberRef);
  }

  /** Footers (one shared stream for rule and title; a small one per page for its number), then the rest. */
  async finish(
    footer: { shared: string; pageNumber: (page: number, total: number) => string },
    fonts: { key: string; ref: PDFRef }[],
    info: Record<string, string>,
  ) {
    const total = this.pageCount;
    this.stream(this.footerRef, deflated(footer.shared), true);
    for (let i = 0; i < total; i++) {
      this.stream(this.pageNumberRefs[i]!, Buffer.from(footer.pageNumber(i + 1, total), 'latin1'), false);
      if ((i & 1023) === 1023) await this.flush();
    }
    for (const group of this.groups) {
      this.object(group.ref, `<< /Type /Pages /Parent ${this.pagesRef} 0 R /Kids [${group.kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${group.kids.length} >>`);
    }
    this.object(this.pagesRef, `<< /Type /Pages /Kids [${this.groups.map((g) => `${g.ref} 0 R`).join(' ')}] /Count ${total} >>`);

    // The fonts: pdf-lib subsets and embeds them into its own context; copy those objects (not its empty catalog).
    await this.fontDoc.flush();
    const context = this.fontDoc.context;
    const skip = new Set<number>();
    const root = context.trailerInfo.Root;
    if (root instanceof this.lib.PDFRef) {
      skip.add(root.objectNumber);
      const pages = this.fontDoc.catalog.get(this.lib.PDFName.of('Pages'));
      if (pages instanceof this.lib.PDFRef) skip.add(pages.objectNumber);
    }
    for (const [ref, object] of context.enumerateIndirectObjects()) {
      if (skip.has(ref.objectNumber)) continue;
      const bytes = new Uint8Array(object.sizeInBytes());
      object.copyBytesInto(bytes, 0);
      this.offsets[ref.objectNumber] = this.position;
      this.write(Buffer.from(`${ref.objectNumber} 0 obj\n`, 'latin1'));
      this.write(bytes);
      this.write(Buffer.from('\nendobj\n', 'latin1'));
    }
    this.object(this.resourcesRef, `<< /Font << ${fonts.map((f) => `/${f.key} ${f.ref.objectNumber} 0 R`).join(' ')} >> >>`);

    const infoRef = this.nextRef();
    this.object(
      infoRef,
      `<< ${Object.entries(info)
        .map(([k, v]) => `/${k} ${v}`)
        .join(' ')} >>`,
    );
    this.object(this.catalogRef, `<< /Type /Catalog /Pages ${this.pagesRef} 0 R /ViewerPreferences << /DisplayDocTitle true >> >>`);

    // Cross-reference table: exactly 20 bytes an entry; numbers reserved but never written are free.
    const size = context.largestObjectNumber + 1;
    const xrefAt = this.position;
    const lines = [`xref\n0 ${size}\n0000000000 65535 f \n`];
    for (let n = 1; n < size; n++) {
      const at = this.offsets[n];
      lines.push(at === undefined ? '0000000000 00001 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`);
    }
    const id = randomBytes(16).toString('hex');
    lines.push(`trailer\n<< /Size ${size} /Root ${this.catalogRef} 0 R /Info ${infoRef} 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xrefAt}\n%%EOF\n`);
    this.write(Buffer.from(lines.join(''), 'latin1'));
    await this.flush(true);
    return { pages: total, bytes: this.position };
  }
}

/**
 * One page being drawn: PDF operators collected as text, handed to the file when the page is done.
 * Colour, line width and font are emitted only when they change; text runs share one BT … ET.
 */
class Canvas {
  private ops: string[] = [];
  private inText = false;
  private fill = '';
  private stroke = '';
  private lineWidth = '';
  private font = '';

  constructor(private readonly d?: Doc) {}

  private setFill(color: RGB) {
    if (color !== this.fill) {
      this.ops.push(`${color} rg`);
      this.fill = color;
    }
  }

  private endText() {
    if (this.inText) {
      this.ops.push('ET');
      this.inText = false;
    }
  }

  fillRect(x: number, y: number, w: number, h: number, color: RGB) {
    this.endText();
    this.setFill(color);
    this.ops.push(`${num(x)} ${num(y)} ${num(w)} ${num(h)} re f`);
  }

  line(x1: number, y1: number, x2: number, y2: number, color: RGB, width: number) {
    this.endText();
    if (color !== this.stroke) {
      this.ops.push(`${color} RG`);
      this.stroke = color;
    }
    const w = num(width);
    if (w !== this.lineWidth) {
      this.ops.push(`${w} w`);
      this.lineWidth = w;
    }
    this.ops.push(`${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S`);
  }

  /** One line of clean text with its baseline at y. */
  text(s: string, x: number, y: number, face: Face, size: number, color: RGB) {
    if (!s) return;
    if (!this.inText) {
      this.ops.push('BT');
      this.inText = true;
    }
    const font = face.selector(size);
    if (font !== this.font) {
      this.ops.push(font);
      this.font = font;
    }
    this.setFill(color);
    this.ops.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${face.encode(s)} Tj`);
  }

  /** Text right-aligned at x. */
  textRight(s: string, x: number, y: number, face: Face, size: number, color: RGB) {
    this.text(s, x - face.width(s, size), y, face, size, color);
  }

  /** The operators so far (closing any text run). */
  content(): string {
    this.endText();
    const content = this.ops.join('\n');
    this.ops = [];
    return content;
  }

  /** Hand the page to the file. */
  finish() {
    if (!this.d) throw new Error('this canvas is not a page');
    this.d.file.addPage(this.content(), this.d.size);
  }
}

/** One scratch buffer for the latin1 bytes of page content, so pages do not each allocate outside the heap. */
let scratch = Buffer.allocUnsafe(1 << 16);

function deflated(content: string): Buffer {
  if (content.length > scratch.length) scratch = Buffer.allocUnsafe(Math.max(content.length, scratch.length * 2));
  const length = scratch.write(content, 0, 'latin1');
  return deflateSync(scratch.subarray(0, length), { level: DEFLATE_LEVEL });
}

function newPage(d: Doc): Canvas {
  return new Canvas(d);
}

/** Baseline of a line whose box (height `leading`) starts at `top`, text vertically centred in the box. */
const baseline = (top: number, face: Face, size: number, leading: number) =>
  top - (leading - (face.ascent + face.descent) * size) / 2 - face.ascent * size;

// ------------------------------------------------------------------------------------------------
// Title page

function drawTitlePages(d: Doc, table: TableExport): void {
  const [width, height] = d.size;
  const x0 = MARGIN_X + 18;
  const contentWidth = width - 2 * x0;
  let c = newPage(d);
  c.fillRect(0, height - 10, width, 10, NAVY);
  let y = height - (height > width ? 190 : 120);

  c.text('REPORT', x0, y, d.bold, 9, MUTED);
  y -= 16;
  for (const line of wrapText(cleanText(table.title), d.bold, 24, contentWidth)) {
    y -= 28;
    c.text(line, x0, y, d.bold, 24, NAVY);
  }
  if (table.subtitle) {
    y -= 6;
    for (const line of wrapText(cleanText(table.subtitle), d.regular, 13, contentWidth)) {
      y -= 17;
      c.text(line, x0, y, d.regular, 13, MUTED);
    }
  }
  y -= 18;
  c.fillRect(x0, y, 56, 2.5, NAVY);
  y -= 26;

  const entries = [...table.meta.map((m) => ({ label: m.label, value: m.value })), { label: 'Columns', value: table.columns.map((col) => col.header).join(', ') }];
  if (table.columns.some((col) => col.type === 'date' || col.type === 'datetime')) entries.push({ label: 'Time zone', value: 'Dates and times are in UTC.' });
  const size = 10;
  const leading = 14;
  const labelWidth = Math.min(
    contentWidth * 0.35,
    Math.max(90, ...entries.map((e) => d.bold.width(cleanText(e.label), size))) + 18,
  );
  for (const entry of entries) {
    const labels = wrapText(cleanText(entry.label), d.bold, size, labelWidth - 18);
    const values = wrapText(cleanText(entry.value), d.regular, size, contentWidth - labelWidth);
    for (let i = 0; i < Math.max(labels.length, values.length); i++) {
      if (y - leading < MARGIN_BOTTOM + 10) {
        c.finish();
        c = newPage(d);
        y = height - MARGIN_TOP - 20;
      }
      const base = baseline(y, d.regular, size, leading);
      if (labels[i]) c.text(labels[i]!, x0, base, d.bold, size, MUTED);
      if (values[i]) c.text(values[i]!, x0 + labelWidth, base, d.regular, size, INK);
      y -= leading;
    }
    y -= 5;
    c.line(x0, y, x0 + contentWidth, y, RULE, 0.5);
    y -= 6;
  }
  c.finish();
}

// ------------------------------------------------------------------------------------------------
// Table

interface Layout {
  size: [number, number];
  /** Font size and line height of the table (smaller when many columns must share the page). */
  fontSize: number;
  leading: number;
  x: number[];
  widths: number[];
  right: boolean[];
}

/** Natural and minimum widths of each column at a font size, from its header and the sample rows. */
function measureColumns(columns: Column[], texts: string[][], regular: Face, bold: Face, fontSize: number) {
  const natural: number[] = [];
  const minimum: number[] = [];
  const stretchy: boolean[] = [];
  columns.forEach((column, c) => {
    const header = cleanText(column.header);
    const headerWidth = bold.width(header, fontSize);
    const headerWord = Math.max(0, ...header.split(/\s+/).map((w) => bold.width(w, fontSize)));
    let longest = 0;
    let longestWord = 0;
    for (const text of texts[c]!) {
      for (const line of text.split('\n')) longest = Math.max(longest, regular.width(line, fontSize));
      if (column.type === 'text' || !column.type) {
        for (const word of text.split(/\s+/)) longestWord = Math.max(longestWord, regular.width(word, fontSize));
      }
    }
    const compact = column.type === 'number' || column.type === 'date' || column.type === 'datetime';
    // A given width (in characters) caps what the sample asks for, or stands in for it when there is no sample.
    const given = column.width && column.width > 0 ? column.width * regular.width('0', fontSize) : undefined;
    const content = texts[c]!.length ? longest : (given ?? 0);
    const nat = Math.max(headerWidth, compact ? content : Math.min(content, given ?? MAX_NATURAL_TEXT)) + 2 * PAD_X;
    natural.push(nat);
    const min = compact ? Math.max(longest, headerWord) : Math.min(Math.max(headerWord, longestWord, 40), 110);
    minimum.push(Math.min(nat, Math.max(MIN_COLUMN, min + 2 * PAD_X)));
    stretchy.push(!compact);
  });
  return { natural, minimum, stretchy };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Page orientation, font size and column widths: portrait when the natural widths fit it, else landscape;
 * the font shrinks from 8 pt (to 6.5 pt at least) while the columns' minimum widths do not fit; then
 * columns are stretched to the page width (text columns take the extra) or squeezed towards their minimum.
 */
function layoutColumns(columns: Column[], sample: Record<string, CellValue>[], regular: Face, bold: Face): Layout {
  const texts = columns.map((column) => sample.map((row) => cleanText(displayText(normalizeValue(row[column.key], column.type), column))));
  let fontSize = BODY_SIZE;
  let { natural, minimum, stretchy } = measureColumns(columns, texts, regular, bold, fontSize);
  const portraitWidth = A4[0] - 2 * MARGIN_X;
  const size: [number, number] = sum(natural) <= portraitWidth && columns.length <= 7 ? [A4[0], A4[1]] : [A4[1], A4[0]];
  const usable = size[0] - 2 * MARGIN_X;
  while (sum(minimum) > usable && fontSize > MIN_BODY_SIZE) {
    fontSize -= 0.5;
    ({ natural, minimum, stretchy } = measureColumns(columns, texts, regular, bold, fontSize));
  }
  const total = sum(natural);
  let widths: number[];
  if (total <= usable) {
    const grow = natural.map((w, i) => (stretchy[i] ? w : 0));
    const growTotal = grow.reduce((a, b) => a + b, 0);
    const extra = usable - total;
    widths = natural.map((w, i) => w + (growTotal > 0 ? (extra * grow[i]!) / growTotal : extra / natural.length));
  } else {
    const minTotal = minimum.reduce((a, b) => a + b, 0);
    if (minTotal >= usable) widths = minimum.map((w) => (w * usable) / minTotal);
    else {
      const slack = natural.map((w, i) => w - minimum[i]!);
      const slackTotal = slack.reduce((a, b) => a + b, 0);
      widths = minimum.map((w, i) => w + (slackTotal > 0 ? (slack[i]! * (usable - minTotal)) / slackTotal : 0));
    }
  }
  const x: number[] = [];
  let at = MARGIN_X;
  for (const w of widths) {
    x.push(at);
    at += w;
  }
  return { size, fontSize, leading: fontSize * LEADING, x, widths, right: columns.map((col) => col.type === 'number') };
}

class TableWriter {
  private canvas!: Canvas;
  private y = 0;
  private rowsOnPage = 0;
  private zebra = false;
  private readonly headerLines: string[][];
  private readonly headerHeight: number;
  private readonly tableWidth: number;
  readonly top: number;

  constructor(
    private readonly d: Doc,
    private readonly table: TableExport,
    private readonly layout: Layout,
  ) {
    this.headerLines = table.columns.map((col, i) => wrapText(cleanText(col.header), d.bold, layout.fontSize, layout.widths[i]! - 2 * PAD_X));
    this.headerHeight = Math.max(...this.headerLines.map((l) => l.length)) * layout.leading + 2 * PAD_Y;
    this.tableWidth = layout.widths.reduce((a, b) => a + b, 0);
    this.top = d.size[1] - MARGIN_TOP - 14;
  }

  /** Room for row lines on an empty page, below the header. */
  private get pageRoom() {
    return this.top - this.headerHeight - MARGIN_BOTTOM;
  }

  startPage() {
    const d = this.d;
    const [width, height] = d.size;
    this.canvas = newPage(d);
    const c = this.canvas;
    // running header: title left, subtitle right, a rule below
    const titleY = height - MARGIN_TOP + 4;
    const half = (width - 2 * MARGIN_X) / 2;
    const subtitle = this.table.subtitle ? fitLine(cleanText(this.table.subtitle), d.regular, 7.5, half - 10) : '';
    const titleRoom = width - 2 * MARGIN_X - (subtitle ? d.regular.width(subtitle, 7.5) + 16 : 0);
    c.text(fitLine(cleanText(this.table.title), d.bold, 8.5, titleRoom), MARGIN_X, titleY, d.bold, 8.5, NAVY);
    if (subtitle) c.textRight(subtitle, width - MARGIN_X, titleY, d.regular, 7.5, MUTED);
    c.line(MARGIN_X, titleY - 5, width - MARGIN_X, titleY - 5, RULE, 0.5);
    // table header, repeated on every page
    this.y = this.top;
    c.fillRect(MARGIN_X, this.y - this.headerHeight, this.tableWidth, this.headerHeight, NAVY);
    this.headerLines.forEach((lines, i) => {
      lines.forEach((line, k) => {
        const base = baseline(this.y - PAD_Y - k * this.layout.leading, d.bold, this.layout.fontSize, this.layout.leading);
        if (this.layout.right[i]) c.textRight(line, this.layout.x[i]! + this.layout.widths[i]! - PAD_X, base, d.bold, this.layout.fontSize, WHITE);
        else c.text(line, this.layout.x[i]! + PAD_X, base, d.bold, this.layout.fontSize, WHITE);
      });
    });
    this.y -= this.headerHeight;
    this.rowsOnPage = 0;
  }

  endPage() {
    this.canvas.finish();
  }

  row(row: Record<string, CellValue>) {
    const { columns } = this.table;
    const cells = columns.map((col, i) =>
      wrapText(cleanText(displayText(normalizeValue(row[col.key], col.type), col)), this.d.regular, this.layout.fontSize, this.layout.widths[i]! - 2 * PAD_X),
    );
    const lineCount = Math.max(1, ...cells.map((l) => l.length));
    const height = lineCount * this.layout.leading + 2 * PAD_Y;
    const room = this.y - MARGIN_BOTTOM;
    // A row that fits on a fresh page never splits: start a new page for it.
    if (height > room && this.rowsOnPage > 0 && height <= this.pageRoom) {
      this.endPage();
      this.startPage();
    }
    let from = 0;
    while (from < lineCount) {
      const fit = Math.floor((this.y - MARGIN_BOTTOM - 2 * PAD_Y) / this.layout.leading);
      if (fit < 1) {
        this.endPage();
        this.startPage();
        continue;
      }
      const to = Math.min(lineCount, from + fit);
      this.drawSlice(cells, from, to);
      from = to;
      if (from < lineCount) {
        // the rest of this row continues below the header of the next page
        this.endPage();
        this.startPage();
      }
    }
    this.zebra = !this.zebra;
  }

  private drawSlice(cells: string[][], from: number, to: number) {
    const c = this.canvas;
    const d = this.d;
    const height = (to - from) * this.layout.leading + 2 * PAD_Y;
    const bottom = this.y - height;
    if (this.zebra) c.fillRect(MARGIN_X, bottom, this.tableWidth, height, ZEBRA);
    cells.forEach((lines, i) => {
      for (let k = from; k < to && k < lines.length; k++) {
        const line = lines[k]!;
        const base = baseline(this.y - PAD_Y - (k - from) * this.layout.leading, d.regular, this.layout.fontSize, this.layout.leading);
        if (this.layout.right[i]) c.textRight(line, this.layout.x[i]! + this.layout.widths[i]! - PAD_X, base, d.regular, this.layout.fontSize, INK);
        else c.text(line, this.layout.x[i]! + PAD_X, base, d.regular, this.layout.fontSize, INK);
      }
    });
    c.line(MARGIN_X, bottom, MARGIN_X + this.tableWidth, bottom, RULE, 0.4);
    this.y = bottom;
    this.rowsOnPage++;
  }

  /** Shown when the dataset is empty. */
  emptyNote() {
    const base = baseline(this.y - PAD_Y, this.d.regular, this.layout.fontSize, this.layout.leading) - 4;
    this.canvas.text('No rows.', MARGIN_X + PAD_X, base, this.d.regular, this.layout.fontSize, MUTED);
  }
}

export async function writePdf(path: string, table: TableExport): Promise<{ rows: number; pages: number; bytes: number }> {
  if (table.columns.length === 0) throw new Error('A report needs at least one column');
  const { pdf, fontkit } = await loadLibs();
  return writeAtomically(path, async (partial) => {
    const reader = await RowReader.open(table.rows, SAMPLE_ROWS);
    const handle = await open(partial, 'w');
    try {
      // This document only embeds (and subsets) the fonts; the pages are written by PdfFile.
      const fontDoc = await pdf.PDFDocument.create({ updateMetadata: false });
      fontDoc.registerFontkit(fontkit);
      const [regularPdf, boldPdf] = await Promise.all([
        fontDoc.embedFont(fontBytes(), { subset: true }),
        fontDoc.embedFont(boldFontBytes(), { subset: true }),
      ]);
      const regular = new Face('F1', regularPdf, fontkit.create(fontBytes()));
      const bold = new Face('F2', boldPdf, fontkit.create(boldFontBytes()));
      const layout = layoutColumns(table.columns, reader.head, regular, bold);
      const file = new PdfFile(pdf, fontDoc, handle);
      const d: Doc = { regular, bold, file, size: layout.size };

      drawTitlePages(d, table);
      const writer = new TableWriter(d, table, layout);
      writer.startPage();
      let rows = 0;
      for await (const row of reader) {
        writer.row(row);
        rows++;
        if ((rows & 255) === 0) {
          await file.flush();
          await yieldToLoop();
        }
      }
      if (rows === 0) writer.emptyNote();
      writer.endPage();

      // Footers: the rule and the title are the same on every page, the page number is not.
      const [width] = layout.size;
      const y = MARGIN_BOTTOM - 27;
      const shared = new Canvas();
      shared.line(MARGIN_X, MARGIN_BOTTOM - 16, width - MARGIN_X, MARGIN_BOTTOM - 16, RULE, 0.5);
      shared.text(fitLine(cleanText(table.title), regular, 7.5, (width - 2 * MARGIN_X) * 0.7), MARGIN_X, y, regular, 7.5, MUTED);
      const pageNumber = (page: number, total: number) => {
        const c = new Canvas();
        c.textRight(`Page ${page} of ${total}`, width - MARGIN_X, y, regular, 7.5, MUTED);
        return c.content();
      };
      const { PDFHexString, PDFString } = pdf;
      const info: Record<string, string> = {
        Title: PDFHexString.fromText(cleanText(table.title)).toString(),
        Creator: PDFHexString.fromText('vault-tools').toString(),
        Producer: PDFHexString.fromText('vault-tools (pdf-lib, fontkit)').toString(),
        CreationDate: PDFString.fromDate(new Date()).toString(),
      };
      if (table.subtitle) info.Subject = PDFHexString.fromText(cleanText(table.subtitle)).toString();
      const { pages, bytes } = await file.finish(
        { shared: shared.content(), pageNumber },
        [
          { key: regular.key, ref: regularPdf.ref },
          { key: bold.key, ref: boldPdf.ref },
        ],
        info,
      );
      return { rows, pages, bytes };
    } finally {
      await handle.close();
      await reader.close();
    }
  });
}
