/**
 * The table of a report, in pdf.ts's document: the layout (orientation, font size and column widths chosen from
 * the sample rows, pdf-layout.ts) and TableWriter, which draws the title block, the header row repeated on every
 * page, rows wrapped inside their columns (a row taller than a page continues on the next), zebra rows, section
 * headings kept with their first row, and the running header of pages after the first.
 */
import { Canvas, type PdfFile } from './pdf-file.js';
import { A4, INK, MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X, MUTED, NAVY, RULE, WHITE, ZEBRA } from './pdf-style.js';
import { PAD_X, planColumns, type ColumnPlan, type ColumnSample } from './pdf-layout.js';
import { drawFigure, FIGURE_GAP, figureRows } from './pdf-figures.js';
import type { OpenPage } from './pdf-summary.js';
import { cleanText, fitLine, type FontStack, wrapText } from './pdf-text.js';
import type { CellValue, TableExport } from './types.js';
import { displayText, normalizeValue } from './values.js';

// ------------------------------------------------------------------------------------------------
// Geometry and look (points; A4)

const BODY_SIZE = 7;
const MIN_BODY_SIZE = 6;
/** Line height as a multiple of the font size. */
const LEADING = 1.2;
const PAD_Y = 2.25;
/** Rows read ahead to size the columns. */
export const SAMPLE_ROWS = 200;
/** Cells of a column of single tokens (ids) shrink down to this share of the body size before they break. */
const TOKEN_SHRINK = 0.7;
/** Running header line height. */
const RUNNING_LINE = 10;
/** The most lines a title in the running header, or a section heading, may take. */
const MAX_FURNITURE_LINES = 3;
/** Section headings: font size, and the space above one that follows rows. */
const SECTION_SIZE = 11;
const SECTION_GAP = 14;

export interface Doc {
  regular: FontStack;
  bold: FontStack;
  file: PdfFile;
  size: [number, number];
}

/** Baseline of a line whose box (height `leading`) starts at `top`, text vertically centred in the box. */
function baseline(top: number, stack: FontStack, size: number, leading: number): number {
  const face = stack.primary;
  return top - (leading - (face.ascent + face.descent) * size) / 2 - face.ascent * size;
}

/**
 * Page furniture (running header, section heading) wraps instead of being cut; only a text longer than
 * MAX_FURNITURE_LINES lines (a vault name comes from outside) ends its last line with an ellipsis, so the
 * page keeps its room for the table.
 */
function capLines(lines: string[], stack: FontStack, size: number, width: number): string[] {
  if (lines.length <= MAX_FURNITURE_LINES) return lines;
  return [
    ...lines.slice(0, MAX_FURNITURE_LINES - 1),
    fitLine(`${lines[MAX_FURNITURE_LINES - 1]} …`, stack, size, width),
  ];
}

// ------------------------------------------------------------------------------------------------
// Layout

interface Layout extends ColumnPlan {
  size: [number, number];
  leading: number;
  x: number[];
  right: boolean[];
  /** Columns whose sample cells are single tokens (ids, codes): such a cell shrinks before it breaks. */
  token: boolean[];
}

/** Orientation, font size and column widths for the sample rows: the orientation with fewer estimated pages. */
export function layoutTable(
  table: TableExport,
  sample: Record<string, CellValue>[],
  regular: FontStack,
  bold: FontStack,
): Layout {
  const samples: ColumnSample[] = table.columns.map((column) => ({
    column,
    header: cleanText(column.header),
    texts: sample.map((row) => cleanText(displayText(normalizeValue(row[column.key], column.type), column))),
  }));
  const plan = (size: [number, number]) => {
    const p = planColumns(samples, regular, bold, size[0] - 2 * MARGIN_X, BODY_SIZE, MIN_BODY_SIZE);
    const room = size[1] - MARGIN_TOP - MARGIN_BOTTOM - 40;
    return { ...p, size, pages: (p.lines * p.fontSize * LEADING + sample.length * 2 * PAD_Y) / room };
  };
  const portrait = plan([A4[0], A4[1]]);
  const landscape = plan([A4[1], A4[0]]);
  const best = landscape.pages < portrait.pages * 0.97 || landscape.fontSize > portrait.fontSize ? landscape : portrait;
  const x: number[] = [];
  let at = MARGIN_X;
  for (const w of best.widths) {
    x.push(at);
    at += w;
  }
  return {
    ...best,
    leading: best.fontSize * LEADING,
    x,
    right: table.columns.map((col) => col.type === 'number'),
    token: samples.map((s) => s.column.type !== 'number' && s.texts.length > 0 && s.texts.every((t) => !/\s/.test(t))),
  };
}

// ------------------------------------------------------------------------------------------------
// Table

export class TableWriter {
  private canvas!: Canvas;
  private y = 0;
  private rowsOnPage = 0;
  private zebra = false;
  private first = true;
  /** The value of the section key of the rows being written (undefined before the first row). */
  private section: string | undefined;
  /** Height of the running header of the current section (the title may wrap; it is never cut). */
  private runningHeaderHeight = RUNNING_LINE;
  private readonly headerLines: string[][];
  private readonly headerHeight: number;
  private readonly tableWidth: number;

  constructor(
    private readonly d: Doc,
    private readonly table: TableExport,
    private readonly layout: Layout,
    /** the executive summary's last page, when one comes first: the table continues on it (same size) or after it */
    private readonly after?: OpenPage,
  ) {
    this.headerLines = table.columns.map((col, i) =>
      wrapText(cleanText(col.header), d.bold, layout.fontSize, layout.widths[i]! - 2 * PAD_X),
    );
    this.headerHeight = Math.max(...this.headerLines.map((l) => l.length)) * layout.leading + 2 * PAD_Y + 1;
    this.tableWidth = layout.widths.reduce((a, b) => a + b, 0);
  }

  /** Room for row lines on a page that has only the running header, below the table header. */
  private get pageRoom() {
    return this.d.size[1] - MARGIN_TOP - this.runningHeaderHeight - this.headerHeight - MARGIN_BOTTOM;
  }

  /** The first page: the title block, then the table header (a grouped table starts with a section heading instead). */
  start() {
    this.startPage(!this.table.sections);
  }

  private startPage(withTableHeader: boolean) {
    this.canvas = new Canvas();
    this.rowsOnPage = 0;
    if (this.first && this.after) {
      this.first = false;
      if (this.after.size[0] === this.d.size[0] && this.after.size[1] === this.d.size[1]) {
        ({ canvas: this.canvas, y: this.y } = this.after.openDetail());
        this.rowsOnPage = 1; // the summary is above: a section heading that does not fit goes to the next page
      } else {
        this.d.file.addPage(this.after.canvas.content(), this.after.size);
        this.y = this.runningHeader();
      }
    } else if (this.first) {
      this.y = this.titleBlock();
      this.first = false;
    } else {
      this.y = this.runningHeader();
    }
    if (withTableHeader) this.tableHeader();
  }

  /** The lines of the running header: the title at the left, the section at the right, each wrapped, never cut. */
  private runningHeaderLines(): { title: string[]; section: string[] } {
    const d = this.d;
    const contentWidth = d.size[0] - 2 * MARGIN_X;
    const sectionText =
      this.section === undefined || !this.table.sections ? '' : cleanText(this.table.sections.heading(this.section));
    const section = sectionText ? wrapText(sectionText, d.regular, 7, contentWidth * 0.4) : [];
    const sectionWidth = Math.max(0, ...section.map((l) => d.regular.width(l, 7)));
    const titleWidth = contentWidth - (sectionWidth ? sectionWidth + 16 : 0);
    const title = wrapText(cleanText(this.table.title), d.bold, 8, titleWidth);
    return {
      title: capLines(title, d.bold, 8, titleWidth),
      section: capLines(section, d.regular, 7, contentWidth * 0.4),
    };
  }

  /** Draws the running header of a page after the first; returns where the body starts. */
  private runningHeader(): number {
    const d = this.d;
    const c = this.canvas;
    const [width, height] = d.size;
    const { title, section } = this.runningHeaderLines();
    const top = height - MARGIN_TOP + 4;
    title.forEach((line, k) => c.text(line, MARGIN_X, top - k * RUNNING_LINE, d.bold, 8, NAVY));
    section.forEach((line, k) => c.textRight(line, width - MARGIN_X, top - k * RUNNING_LINE, d.regular, 7, MUTED));
    const lines = Math.max(title.length, section.length);
    const rule = top - (lines - 1) * RUNNING_LINE - 4;
    c.line(MARGIN_X, rule, width - MARGIN_X, rule, RULE, 0.5);
    this.runningHeaderHeight = lines * RUNNING_LINE + 2;
    return height - MARGIN_TOP - this.runningHeaderHeight;
  }

  /** The table header, repeated on every page and under every section heading. */
  private tableHeader() {
    const d = this.d;
    const c = this.canvas;
    const { fontSize, leading, x, widths, right } = this.layout;
    c.fillRect(MARGIN_X, this.y - this.headerHeight, this.tableWidth, this.headerHeight, NAVY);
    this.headerLines.forEach((lines, i) => {
      lines.forEach((line, k) => {
        const base = baseline(this.y - PAD_Y - k * leading, d.bold, fontSize, leading);
        if (right[i]) c.textRight(line, x[i]! + widths[i]! - PAD_X, base, d.bold, fontSize, WHITE);
        else c.text(line, x[i]! + PAD_X, base, d.bold, fontSize, WHITE);
      });
    });
    this.y -= this.headerHeight;
  }

  /**
   * A new group of rows: its heading, then the table header. On a new page when the heading, the header and
   * the group's first row would not fit below the rows already there (a heading is never left alone at a
   * page's foot).
   */
  private startSection(value: string, firstRowHeight: number) {
    const d = this.d;
    this.section = value;
    this.zebra = false;
    const heading = capLines(
      wrapText(cleanText(this.table.sections!.heading(value)), d.bold, SECTION_SIZE, this.tableWidth),
      d.bold,
      SECTION_SIZE,
      this.tableWidth,
    );
    const headingHeight = heading.length * SECTION_SIZE * LEADING + 4;
    const gap = this.rowsOnPage > 0 ? SECTION_GAP : 0;
    if (this.y - gap - headingHeight - this.headerHeight - firstRowHeight < MARGIN_BOTTOM && this.rowsOnPage > 0) {
      this.endPage();
      this.startPage(false);
    } else this.y -= gap;
    for (const line of heading) {
      this.y -= SECTION_SIZE * LEADING;
      this.canvas.text(line, MARGIN_X, this.y + (LEADING - 1) * SECTION_SIZE * 0.5, d.bold, SECTION_SIZE, NAVY);
    }
    this.y -= 4;
    this.tableHeader();
  }

  /**
   * The first page's top: "REPORT", the title, the subtitle, the meta as label/value lines, then the key
   * figures as tiles. Returns where the table starts. A block taller than the page (an enormous subtitle)
   * continues on the next page.
   */
  private titleBlock(): number {
    const d = this.d;
    const { table } = this;
    const [width, height] = d.size;
    const contentWidth = width - 2 * MARGIN_X;
    let c = this.canvas;
    let y = height - MARGIN_TOP + 6;
    const room = (need: number) => {
      if (y - need >= MARGIN_BOTTOM + 20) return;
      this.d.file.addPage(c.content(), d.size);
      c = this.canvas = new Canvas();
      y = height - MARGIN_TOP;
    };
    c.fillRect(0, height - 6, width, 6, NAVY);
    c.text('REPORT', MARGIN_X, y - 8, d.bold, 7, MUTED);
    y -= 10;
    for (const line of wrapText(cleanText(table.title), d.bold, 16, contentWidth)) {
      room(20);
      y -= 20;
      c.text(line, MARGIN_X, y, d.bold, 16, NAVY);
    }
    if (table.subtitle) {
      y -= 2;
      for (const line of wrapText(cleanText(table.subtitle), d.regular, 9, contentWidth)) {
        room(12);
        y -= 12;
        c.text(line, MARGIN_X, y, d.regular, 9, MUTED);
      }
    }
    y -= 8;
    const entries = table.meta.map((m) => ({ label: cleanText(m.label), value: cleanText(m.value) }));
    if (table.columns.some((col) => col.type === 'date' || col.type === 'datetime'))
      entries.push({ label: 'Time zone', value: 'Dates and times are in UTC.' });
    const size = 8;
    const leading = 10.5;
    const labelWidth = Math.min(
      contentWidth * 0.3,
      Math.max(60, ...entries.map((e) => d.bold.width(e.label, size))) + 12,
    );
    for (const entry of entries) {
      const labels = wrapText(entry.label, d.bold, size, labelWidth - 12);
      const values = wrapText(entry.value, d.regular, size, contentWidth - labelWidth);
      for (let i = 0; i < Math.max(labels.length, values.length); i++) {
        room(leading);
        const base = baseline(y, d.regular, size, leading);
        if (labels[i]) c.text(labels[i]!, MARGIN_X, base, d.bold, size, MUTED);
        if (values[i]) c.text(values[i]!, MARGIN_X + labelWidth, base, d.regular, size, INK);
        y -= leading;
      }
    }
    if (table.figures?.length) {
      y -= 8;
      const style = { regular: d.regular, bold: d.bold, value: NAVY, label: MUTED, fill: ZEBRA };
      for (const row of figureRows(table.figures, style, MARGIN_X, contentWidth)) {
        room(row.height);
        for (const tile of row.tiles) drawFigure(c, style, tile, y, row.height);
        y -= row.height + FIGURE_GAP;
      }
    }
    y -= 10;
    room(this.headerHeight + 3 * this.layout.leading);
    return y;
  }

  endPage() {
    this.d.file.addPage(this.canvas.content(), this.d.size);
  }

  row(row: Record<string, CellValue>) {
    const { columns, sections } = this.table;
    const { fontSize, widths, token } = this.layout;
    const sizes: number[] = [];
    const cells = columns.map((col, i) => {
      const text = cleanText(displayText(normalizeValue(row[col.key], col.type), col));
      const room = widths[i]! - 2 * PAD_X;
      let size = fontSize;
      if (token[i] && !/\s/.test(text)) {
        // an id wider than its column: smaller, rather than broken mid-word
        const w = this.d.regular.width(text, fontSize);
        if (w > room) size = Math.max(fontSize * TOKEN_SHRINK, Math.floor(((fontSize * room) / w) * 4) / 4);
      }
      sizes.push(size);
      return wrapText(text, this.d.regular, size, room);
    });
    const { leading } = this.layout;
    const lineCount = Math.max(1, ...cells.map((l) => l.length));
    const height = lineCount * leading + 2 * PAD_Y;
    if (sections) {
      const value = String(row[sections.key] ?? '');
      // the section's first row goes with its heading (two lines of it, when the row is taller than a page)
      if (value !== this.section) this.startSection(value, height <= this.pageRoom ? height : 2 * leading + 2 * PAD_Y);
    }
    const room = this.y - MARGIN_BOTTOM;
    // A row that fits on a fresh page never splits: start a new page for it.
    if (height > room && this.rowsOnPage > 0 && height <= this.pageRoom) {
      this.endPage();
      this.startPage(true);
    }
    let from = 0;
    while (from < lineCount) {
      const fit = Math.floor((this.y - MARGIN_BOTTOM - 2 * PAD_Y) / leading);
      if (fit < 1) {
        this.endPage();
        this.startPage(true);
        continue;
      }
      const to = Math.min(lineCount, from + fit);
      this.drawSlice(cells, sizes, from, to);
      from = to;
      if (from < lineCount) {
        // the rest of this row continues below the header of the next page
        this.endPage();
        this.startPage(true);
      }
    }
    this.zebra = !this.zebra;
  }

  private drawSlice(cells: string[][], sizes: number[], from: number, to: number) {
    const c = this.canvas;
    const d = this.d;
    const { leading, x, widths, right } = this.layout;
    const height = (to - from) * leading + 2 * PAD_Y;
    const bottom = this.y - height;
    if (this.zebra) c.fillRect(MARGIN_X, bottom, this.tableWidth, height, ZEBRA);
    cells.forEach((lines, i) => {
      const size = sizes[i]!;
      for (let k = from; k < to && k < lines.length; k++) {
        const line = lines[k]!;
        const base = baseline(this.y - PAD_Y - (k - from) * leading, d.regular, size, leading);
        if (right[i]) c.textRight(line, x[i]! + widths[i]! - PAD_X, base, d.regular, size, INK);
        else c.text(line, x[i]! + PAD_X, base, d.regular, size, INK);
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
