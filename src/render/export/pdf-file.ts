/**
 * The PDF file, written as it is drawn (pages go to disk as they are finished, so memory stays flat whatever
 * the row count), and the canvas that collects one page's operators.
 */
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import type { PDFDocument } from 'pdf-lib';
import { num } from './pdf-face.js';
import type { FontStack } from './pdf-text.js';

type PdfLib = typeof import('pdf-lib');

/** zlib level for page content: 6 compresses about 10% better and takes about twice as long. */
const DEFLATE_LEVEL = 3;

/** Colours as PDF operands "r g b" (0..1). */
export type RGB = string;

/** A font the file embeds at the end: its resource key, and how to put its (subset) objects into the document. */
export interface EmbeddedFont {
  key: string;
  ref: { objectNumber: number };
  embed(context: unknown): Promise<unknown>;
}

/**
 * The PDF file, written as it is drawn: every finished page goes to disk at once (its content stream and
 * page dictionary), so memory does not grow with the page count. Object numbers come from the pdf-lib
 * context that embeds the fonts (nextRef() only counts: nothing is stored there), so the font objects
 * pdf-lib creates at the end never clash with ours. At the end: the "Page n of N" streams, the page tree
 * (nodes of at most 128 pages), the fonts, catalog, info, xref table and trailer.
 */
export class PdfFile {
  /** Byte offset of each object written, by object number. */
  private readonly offsets: number[] = [];
  private chunks: Buffer[] = [];
  private pending = 0;
  private position = 0;
  private readonly groups: { ref: number; kids: number[] }[] = [];
  /** The object number reserved for each page's "Page n of N" stream. */
  private readonly pageNumberRefs: number[] = [];
  /** Images the pages draw (a chart), by resource name: pdf-lib embeds them, finish() copies them with the fonts. */
  private readonly images: { key: string; ref: number }[] = [];
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
    this.write(
      Buffer.from(
        `${ref} 0 obj\n<< /Length ${bytes.length}${flate ? ' /Filter /FlateDecode' : ''} >>\nstream\n`,
        'latin1',
      ),
    );
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

  /** A PNG the pages can draw (Canvas.image) under the name this returns. */
  async addPng(png: Uint8Array): Promise<string> {
    const image = await this.fontDoc.embedPng(png);
    await image.embed();
    const key = `Im${this.images.length + 1}`;
    this.images.push({ key, ref: image.ref.objectNumber });
    return key;
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
    fonts: EmbeddedFont[],
    info: Record<string, string>,
  ) {
    const total = this.pageCount;
    this.stream(this.footerRef, deflated(footer.shared), true);
    for (let i = 0; i < total; i++) {
      this.stream(this.pageNumberRefs[i]!, Buffer.from(footer.pageNumber(i + 1, total), 'latin1'), false);
      if ((i & 1023) === 1023) await this.flush();
    }
    for (const group of this.groups) {
      this.object(
        group.ref,
        `<< /Type /Pages /Parent ${this.pagesRef} 0 R /Kids [${group.kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${group.kids.length} >>`,
      );
    }
    this.object(
      this.pagesRef,
      `<< /Type /Pages /Kids [${this.groups.map((g) => `${g.ref} 0 R`).join(' ')}] /Count ${total} >>`,
    );

    // The fonts: pdf-lib subsets and embeds them into its own context; copy those objects (not its empty catalog).
    for (const font of fonts) await font.embed(this.fontDoc.context);
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
    const xobjects = this.images.length
      ? ` /XObject << ${this.images.map((i) => `/${i.key} ${i.ref} 0 R`).join(' ')} >>`
      : '';
    this.object(
      this.resourcesRef,
      `<< /Font << ${fonts.map((f) => `/${f.key} ${f.ref.objectNumber} 0 R`).join(' ')} >>${xobjects} >>`,
    );

    const infoRef = this.nextRef();
    this.object(
      infoRef,
      `<< ${Object.entries(info)
        .map(([k, v]) => `/${k} ${v}`)
        .join(' ')} >>`,
    );
    this.object(
      this.catalogRef,
      `<< /Type /Catalog /Pages ${this.pagesRef} 0 R /ViewerPreferences << /DisplayDocTitle true >> >>`,
    );

    // Cross-reference table: exactly 20 bytes an entry; numbers reserved but never written are free.
    const size = context.largestObjectNumber + 1;
    const xrefAt = this.position;
    const lines = [`xref\n0 ${size}\n0000000000 65535 f \n`];
    for (let n = 1; n < size; n++) {
      const at = this.offsets[n];
      lines.push(at === undefined ? '0000000000 00001 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`);
    }
    const id = randomBytes(16).toString('hex');
    lines.push(
      `trailer\n<< /Size ${size} /Root ${this.catalogRef} 0 R /Info ${infoRef} 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xrefAt}\n%%EOF\n`,
    );
    this.write(Buffer.from(lines.join(''), 'latin1'));
    await this.flush(true);
    return { pages: total, bytes: this.position };
  }
}

/**
 * One page being drawn: PDF operators collected as text, handed to the file when the page is done.
 * Colour, line width and font are emitted only when they change; text runs share one BT … ET.
 */
export class Canvas {
  private ops: string[] = [];
  private inText = false;
  private fill = '';
  private stroke = '';
  private lineWidth = '';
  private font = '';

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

  /** One line of clean text with its baseline at y: run by run, each in the face of the stack that draws it. */
  text(s: string, x: number, y: number, stack: FontStack, size: number, color: RGB) {
    if (!s) return;
    if (!this.inText) {
      this.ops.push('BT');
      this.inText = true;
    }
    this.setFill(color);
    this.ops.push(`1 0 0 1 ${num(x)} ${num(y)} Tm`);
    for (const run of stack.runs(s)) {
      const font = run.face.selector(size);
      if (font !== this.font) {
        this.ops.push(font);
        this.font = font;
      }
      this.ops.push(run.op);
    }
  }

  /** An image added with PdfFile.addPng, its lower left corner at (x, y), drawn w × h. */
  image(key: string, x: number, y: number, w: number, h: number) {
    this.endText();
    this.ops.push(`q ${num(w)} 0 0 ${num(h)} ${num(x)} ${num(y)} cm /${key} Do Q`);
  }

  /** Text right-aligned at x. */
  textRight(s: string, x: number, y: number, stack: FontStack, size: number, color: RGB) {
    this.text(s, x - stack.width(s, size), y, stack, size, color);
  }

  /** The operators so far (closing any text run). */
  content(): string {
    this.endText();
    const content = this.ops.join('\n');
    this.ops = [];
    return content;
  }
}

/** One scratch buffer for the latin1 bytes of page content, so pages do not each allocate outside the heap. */
let scratch = Buffer.allocUnsafe(1 << 16);

export function deflated(content: string): Buffer {
  if (content.length > scratch.length) scratch = Buffer.allocUnsafe(Math.max(content.length, scratch.length * 2));
  const length = scratch.write(content, 0, 'latin1');
  return deflateSync(scratch.subarray(0, length), { level: DEFLATE_LEVEL });
}
