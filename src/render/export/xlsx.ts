/**
 * xlsx with exceljs's streaming writer: each row is committed (serialised and handed to the zip) as soon as
 * it is written, so memory stays flat however many rows the dataset has.
 *
 * Every data sheet gets the same styling: a bold header on a dark fill with borders, the header row frozen,
 * an auto-filter over the data range, column widths (given, or estimated from the header and the first
 * rows), dates as real Excel dates with a date format, numbers as numbers, and the header row repeated on
 * printed pages. exceljs is loaded on first use (it is heavy; the server must start fast).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Alignment, Style, stream as ExcelStream, Worksheet } from 'exceljs';
import { writeAtomically } from './atomic.js';
import { RowReader, yieldToLoop } from './rows.js';
import { sheetName } from './sheet-name.js';
import { xmlSafe } from '../../core/xml-text.js';
import type { CellValue, TableExport } from './types.js';
import {
  type ColumnType,
  DATE_FORMAT,
  DATETIME_FORMAT,
  displayText,
  isDateFormat,
  longestLine,
  normalizeValue,
  showsAsDate,
} from './values.js';

type ExcelModule = typeof import('exceljs');
type WorkbookWriter = ExcelStream.xlsx.WorkbookWriter;

let excel: Promise<ExcelModule> | undefined;
/** exceljs is CommonJS: its namespace is the default export under Node's ESM loader. */
export const loadExcel = (): Promise<ExcelModule> =>
  (excel ??= import('exceljs').then((m) => ((m as { default?: ExcelModule }).default ?? m) as ExcelModule));

/** Excel's limits. */
export const MAX_SHEET_ROWS = 1_048_576;
export const MAX_CELL_TEXT = 32_767;
export const MAX_COLUMNS = 16_384;
const TRUNCATED = '… [truncated: Excel cells hold at most 32,767 characters]';

/** Rows sampled to estimate column widths. */
const SAMPLE_ROWS = 200;
const MIN_WIDTH = 6;
const MAX_WIDTH = 60;

export const HEADER_FILL = 'FF1F3A5F';
const HEADER_BORDER = 'FF8EA0B5';
/**
 * A named font and size on every styled cell: without them a reader falls back to its own default (LibreOffice
 * drew the header in a serif). Calibri is Excel's default; LibreOffice maps it to the metric-compatible Carlito.
 */
const FONT = { name: 'Calibri', size: 11 } as const;
/** Points per line of 11 pt text, and the most a row may be (Excel's limit). */
const LINE_HEIGHT = 15;
const MAX_ROW_HEIGHT = 409;
const HEADER_STYLE: Partial<Style> = {
  font: { ...FONT, bold: true, color: { argb: 'FFFFFFFF' } },
  fill: { type: 'pattern', pattern: 'solid', fgColor: { argb: HEADER_FILL } },
  border: {
    top: { style: 'thin', color: { argb: HEADER_BORDER } },
    left: { style: 'thin', color: { argb: HEADER_BORDER } },
    bottom: { style: 'thin', color: { argb: HEADER_BORDER } },
    right: { style: 'thin', color: { argb: HEADER_BORDER } },
  },
  alignment: { vertical: 'middle', wrapText: true },
};

export interface SheetColumn {
  header: string;
  key: string;
  type?: ColumnType;
  width?: number;
  numFmt?: string;
}

/** Column letters: 1 → A, 27 → AA. */
export function columnLetter(n: number): string {
  let s = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

/**
 * A value as exceljs takes it: Dates and numbers typed, text cleared of what XML cannot carry (xmlSafe: exceljs
 * writes U+FFFE or U+0001 as they are, and Excel then refuses the whole file), long text cut to Excel's cell limit.
 */
function excelValue(raw: CellValue): CellValue {
  const value = typeof raw === 'string' ? xmlSafe(raw) : raw;
  if (typeof value === 'string' && value.length > MAX_CELL_TEXT) {
    let cut = MAX_CELL_TEXT - TRUNCATED.length;
    // do not split a surrogate pair
    if (/[\ud800-\udbff]/.test(value.charAt(cut - 1))) cut--;
    return value.slice(0, cut) + TRUNCATED;
  }
  return value;
}

interface Plan {
  widths: number[];
  styles: Partial<Style>[];
  /** The same styles with wrapText, for a cell with a line break in a column that does not wrap. */
  wrapped: Partial<Style>[];
}

/** Wide characters (CJK, Hangul, full-width forms, emoji) take about two columns of width. */
const WIDE =
  /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\ud83c-\ud83e][\udc00-\udfff]/g;
const textWidth = (text: string) => text.length + (text.match(WIDE)?.length ?? 0);

/**
 * Lines a text takes in a wrapping cell `width` characters wide (Excel's width unit is about one digit):
 * each paragraph wrapped at spaces, a word longer than a line broken. An estimate a little on the high side,
 * so rows are never too low for their text (overlapping the next row is what readers showed).
 */
export function wrappedLines(text: string, width: number): number {
  // Calibri's average character is narrower than a digit; LibreOffice's stand-ins (Carlito, DejaVu) are wider:
  // 10% more than the width fills a line in both (checked by converting a findings export with LibreOffice).
  const room = Math.max(1, Math.floor(width * 1.1) - 1);
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    let at = 0;
    lines++;
    for (const word of paragraph.split(' ')) {
      const w = textWidth(word);
      if (at > 0 && at + 1 + w > room) {
        lines++;
        at = 0;
      }
      if (w > room) {
        lines += Math.ceil(w / room) - 1;
        at = w % room;
      } else at += (at > 0 ? 1 : 0) + w;
    }
  }
  return lines;
}

/** Height for a row whose tallest wrapping cell has `lines` lines (undefined: one line, the default height). */
const rowHeight = (lines: number) => (lines > 1 ? Math.min(MAX_ROW_HEIGHT, lines * LINE_HEIGHT) : undefined);

/** Widths (given, or estimated from the header and sample rows) and the style of each column's data cells. */
function planColumns(columns: SheetColumn[], sample: Record<string, CellValue>[]): Plan {
  const widths: number[] = [];
  const styles: Partial<Style>[] = [];
  const wrapped: Partial<Style>[] = [];
  for (const column of columns) {
    let longest = 0;
    let dates = 0;
    let datetimes = 0;
    for (const row of sample) {
      const value = normalizeValue(row[column.key], column.type);
      if (value instanceof Date) {
        if (showsAsDate(value, column.type)) dates++;
        else datetimes++;
      }
      const text = displayText(value, column);
      longest = Math.max(longest, longestLine(text));
    }
    // +3 leaves room for the auto-filter button beside the header text
    const estimate = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, longestLine(column.header) + 3, longest + 2));
    const width = column.width && column.width > 0 ? Math.min(255, column.width) : estimate;
    // exceljs leaves out a width of exactly 9 (its idea of the default), which Excel then shows as 8.43
    widths.push(width === 9 ? 9.01 : width);

    let numFmt = column.numFmt;
    if (!numFmt) {
      if (column.type === 'date') numFmt = DATE_FORMAT;
      else if (column.type === 'datetime') numFmt = DATETIME_FORMAT;
      else if (!column.type && (dates || datetimes)) numFmt = datetimes ? DATETIME_FORMAT : DATE_FORMAT;
    }
    const alignment: Partial<Alignment> = { vertical: 'top' };
    // Text longer than the column wraps instead of spilling over the next cells.
    if (longest > width && column.type !== 'number') alignment.wrapText = true;
    styles.push(numFmt ? { font: FONT, numFmt, alignment } : { font: FONT, alignment });
    wrapped.push({ ...styles[styles.length - 1], alignment: { ...alignment, wrapText: true } });
  }
  return { widths, styles, wrapped };
}

export interface SheetOptions {
  /** Text at the left of the printed footer. */
  footer?: string;
  /** Convert ISO strings in columns whose numFmt shows a date (workbook sheets have no `type`). */
  datesFromNumFmt?: boolean;
}

/**
 * Write one styled data sheet (or several, `name (2)`…, if the rows exceed Excel's 1,048,575 data rows).
 * Returns the number of data rows written.
 */
export async function writeDataSheet(
  workbook: WorkbookWriter,
  name: string,
  columns: SheetColumn[],
  reader:
    | RowReader<Record<string, CellValue>>
    | Iterable<Record<string, CellValue>>
    | AsyncIterable<Record<string, CellValue>>,
  sample: Record<string, CellValue>[],
  options: SheetOptions = {},
): Promise<number> {
  if (columns.length === 0) throw new Error('A sheet needs at least one column');
  if (columns.length > MAX_COLUMNS) throw new Error(`Excel sheets hold at most ${MAX_COLUMNS} columns`);
  const typed: SheetColumn[] = columns.map((c) =>
    options.datesFromNumFmt && !c.type && isDateFormat(c.numFmt) ? { ...c, type: 'datetime' } : c,
  );
  const plan = planColumns(typed, sample);
  const lastColumn = columnLetter(columns.length);
  const headers = columns.map((c) => xmlSafe(c.header));
  const keys = columns.map((c) => c.key);
  const types = typed.map((c) => c.type);
  const n = columns.length;

  let part = 1;
  let total = 0;
  let sheet = openSheet(workbook, name, plan, headers, n, options.footer);
  let sheetRows = 0;
  const cells: CellValue[] = new Array<CellValue>(n);

  for await (const row of reader as AsyncIterable<Record<string, CellValue>>) {
    if (sheetRows === MAX_SHEET_ROWS - 1) {
      await closeSheet(sheet, lastColumn, sheetRows);
      part++;
      sheet = openSheet(
        workbook,
        `${name.slice(0, 31 - ` (${part})`.length)} (${part})`,
        plan,
        headers,
        n,
        options.footer,
      );
      sheetRows = 0;
    }
    for (let i = 0; i < n; i++) cells[i] = excelValue(normalizeValue(row[keys[i]!], types[i]));
    const added = sheet.addRow(cells);
    let lines = 1;
    for (let i = 0; i < n; i++) {
      const value = cells[i];
      const breaks = typeof value === 'string' && value.includes('\n');
      const style = breaks ? plan.wrapped[i]! : plan.styles[i]!;
      added.getCell(i + 1).style = style;
      // a wrapping cell sets the row's height (readers do not grow rows by themselves when they open a file)
      if (style.alignment?.wrapText && typeof value === 'string')
        lines = Math.max(lines, wrappedLines(value, plan.widths[i]!));
    }
    const height = rowHeight(lines);
    if (height) added.height = height;
    added.commit();
    sheetRows++;
    total++;
    if ((total & 255) === 0) await drain(sheet);
  }
  await closeSheet(sheet, lastColumn, sheetRows);
  return total;
}

function openSheet(
  workbook: WorkbookWriter,
  name: string,
  plan: Plan,
  headers: string[],
  n: number,
  footer?: string,
): Worksheet {
  const safeForDefinedName = !name.includes("'");
  const sheet = workbook.addWorksheet(name, {
    views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
    pageSetup: {
      orientation: n > 6 ? 'landscape' : 'portrait',
      paperSize: 9, // A4
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
      // exceljs writes the sheet name into the defined name unescaped: skip print titles for names with '
      ...(safeForDefinedName ? { printTitlesRow: '1:1' } : {}),
    },
    headerFooter: {
      oddFooter: `&L${escapeHeaderFooter(footer ?? name)}&RPage &P of &N`,
    },
  });
  sheet.columns = plan.widths.map((width) => ({ width }));
  const header = sheet.addRow(headers);
  header.height = Math.max(20, ...headers.map((h, i) => wrappedLines(h, plan.widths[i]!) * LINE_HEIGHT + 5));
  for (let i = 1; i <= n; i++) header.getCell(i).style = HEADER_STYLE;
  header.commit();
  return sheet;
}

async function closeSheet(sheet: Worksheet, lastColumn: string, rows: number): Promise<void> {
  sheet.autoFilter = `A1:${lastColumn}${rows + 1}`;
  sheet.commit();
  await drain(sheet);
}

const escapeHeaderFooter = (text: string) => xmlSafe(text).replace(/&/g, '&&').slice(0, 200);

/**
 * Backpressure. exceljs writes each committed row into a buffer piped (through a PassThrough the archiver
 * adds) to the zip, and ignores the answer of write(); deflate is slower than row serialisation, so with a
 * fast row source the sheet XML piles up in that pipe (measured: 150 MB at 300,000 rows). So every few
 * hundred rows, wait until the pipe holds less than a megabyte (polling, so it can never hang).
 */
type PipeLike = {
  writableLength?: number;
  readableLength?: number;
  _writableState?: { length?: number };
  _readableState?: { length?: number };
};

/** Bytes waiting in the pipe: archiver's PassThrough comes from readable-stream 2, which lacks writableLength. */
function buffered(pipe: PipeLike): number | undefined {
  const writable = pipe.writableLength ?? pipe._writableState?.length;
  const readable = pipe.readableLength ?? pipe._readableState?.length ?? 0;
  return typeof writable === 'number' ? writable + readable : undefined;
}

const HIGH_WATER = 1 << 20;

async function drain(sheet: Worksheet): Promise<void> {
  await yieldToLoop();
  const pipe = (sheet as unknown as { _stream?: { pipes?: PipeLike[] } })._stream?.pipes?.[0];
  if (!pipe) return;
  for (let waits = 0; waits < 30_000; waits++) {
    const bytes = buffered(pipe);
    if (bytes === undefined || bytes < HIGH_WATER) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Open a streaming workbook on a file; `finish()` commits it, `abort()` tears it down after a failure. */
export async function openWorkbook(path: string, properties: { title: string; subject?: string; creator?: string }) {
  const ExcelJS = await loadExcel();
  const out: WriteStream = createWriteStream(path);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  workbook.creator = xmlSafe(properties.creator ?? 'vault-tools');
  workbook.lastModifiedBy = workbook.creator;
  workbook.title = xmlSafe(properties.title);
  if (properties.subject) workbook.subject = xmlSafe(properties.subject);
  let outError: Error | undefined;
  out.on('error', (error) => (outError = error));
  return {
    workbook,
    async finish(): Promise<number> {
      if (outError) throw outError;
      await workbook.commit();
      if (outError) throw outError;
      // commit() resolves on 'finish'; wait for the descriptor to close too before the file is renamed
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      return (await stat(path)).size;
    },
    async abort(): Promise<void> {
      const zip = (workbook as unknown as { zip?: { abort?: () => void } }).zip;
      try {
        zip?.abort?.();
      } catch {
        // tearing down anyway
      }
      if (!out.closed) {
        await new Promise<void>((resolve) => {
          out.once('close', () => resolve());
          out.destroy();
        });
      }
    },
  };
}

/** A key/value sheet (report info, provenance): bold labels, wrapped values, no filter. */
export function writeInfoSheet(
  workbook: WorkbookWriter,
  name: string,
  title: string,
  entries: { label: string; value: CellValue }[],
): void {
  const sheet = workbook.addWorksheet(name, {
    pageSetup: { orientation: 'portrait', paperSize: 9, fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  const longestLabel = Math.max(10, ...entries.map((e) => longestLine(e.label)));
  const longestValue = Math.max(20, ...entries.map((e) => (typeof e.value === 'string' ? longestLine(e.value) : 20)));
  const widths = [Math.min(40, longestLabel + 2), Math.min(100, longestValue + 2)];
  sheet.columns = widths.map((width) => ({ width }));
  const heading = sheet.addRow([excelValue(title)]);
  heading.getCell(1).style = { font: { ...FONT, bold: true, size: 14, color: { argb: HEADER_FILL } } };
  heading.height = 22;
  heading.commit();
  sheet.addRow([]).commit();
  for (const entry of entries) {
    const value = excelValue(entry.value);
    const row = sheet.addRow([xmlSafe(entry.label), value]);
    row.getCell(1).style = { font: { ...FONT, bold: true }, alignment: { vertical: 'top', wrapText: true } };
    row.getCell(2).style =
      value instanceof Date
        ? {
            font: FONT,
            numFmt: showsAsDate(value, undefined) ? DATE_FORMAT : 'yyyy-mm-dd hh:mm:ss',
            alignment: { horizontal: 'left', vertical: 'top' },
          }
        : { font: FONT, alignment: { vertical: 'top', wrapText: true } };
    const height = rowHeight(
      Math.max(wrappedLines(entry.label, widths[0]!), typeof value === 'string' ? wrappedLines(value, widths[1]!) : 1),
    );
    if (height) row.height = height;
    row.commit();
  }
  sheet.commit();
}

/** The whole dataset as one styled sheet, plus a "Report info" sheet with the title, subtitle and meta. */
export async function writeXlsx(
  path: string,
  table: TableExport,
): Promise<{ rows: number; bytes: number; warnings: string[] }> {
  return writeAtomically(path, async (partial) => {
    const reader = await RowReader.open(table.rows, SAMPLE_ROWS);
    const sample = [...reader.head];
    const book = await openWorkbook(partial, { title: table.title, subject: table.subtitle });
    try {
      // The report names its sheet after its title, written without the colon a sheet name cannot hold
      // ("Findings - Northwind Logistics"); a name too long for Excel is cut, and the result says so.
      const named = sheetName(table.title.replace(/:\s*/g, ' - '));
      const dataName = named.name || 'Report';
      const warning = named.warning;
      const rows = await writeDataSheet(book.workbook, dataName, table.columns, reader, sample, {
        footer: table.title,
      });
      sample.length = 0;
      const infoName = dataName.toLowerCase().startsWith('report info') ? 'About this report' : 'Report info';
      writeInfoSheet(book.workbook, infoName, table.title, [
        ...(table.subtitle ? [{ label: 'Subtitle', value: table.subtitle }] : []),
        ...table.meta.map((m) => ({ label: m.label, value: m.value })),
        { label: 'Rows', value: rows },
      ]);
      const bytes = await book.finish();
      return { rows, bytes, warnings: warning ? [warning] : [] };
    } catch (error) {
      await book.abort();
      throw error;
    } finally {
      await reader.close();
    }
  });
}
