/**
 * export_workbook: the caller's sheets as a styled xlsx (the same styling as writeXlsx: bold header on a
 * fill with borders, frozen header row, auto-filter, widths, numFmt per column), then a "Provenance" sheet.
 * `validateWorkbook` checks everything Excel would refuse or silently mangle before a byte is written, and
 * names the offending place: 'sheets[1].name', 'sheets[0].columns[2].key', 'sheets[0].rows[3].foo'.
 */
import { writeAtomically } from './atomic.js';
import { RowProgress, type Tracking } from '../progress.js';
import type { CellValue, WorkbookInput, WorkbookSheet } from './types.js';
import { WorkbookError } from './types.js';
import { SHEET_NAME_RULE, type SheetName, sheetName } from './sheet-name.js';
import { MAX_CELL_TEXT, MAX_COLUMNS, MAX_SHEET_ROWS, openWorkbook, writeDataSheet, writeInfoSheet } from './xlsx.js';

export const PROVENANCE_SHEET = 'Provenance';
export const MAX_SHEETS = 100;

/** The sheet's name once made valid (see sheet-name.ts); refused only when nothing is left of it. */
function checkSheetName(name: unknown, path: string): SheetName {
  if (typeof name !== 'string') throw new WorkbookError(path, 'a sheet name must be a string');
  const valid = sheetName(name);
  if (valid.name === '') throw new WorkbookError(path, `a sheet name must not be empty (${SHEET_NAME_RULE})`);
  return valid;
}

/** A path segment for a key: `.foo` when it reads as an identifier, `["first name"]` otherwise. */
const keySegment = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

function checkValue(value: unknown, path: string): void {
  if (value === null || value === undefined || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new WorkbookError(path, 'a number must be finite (Excel has no NaN or Infinity)');
    return;
  }
  if (typeof value === 'string') {
    if (value.length > MAX_CELL_TEXT)
      throw new WorkbookError(path, `a cell holds at most ${MAX_CELL_TEXT} characters (this one has ${value.length})`);
    return;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new WorkbookError(path, 'invalid date');
    return;
  }
  throw new WorkbookError(path, 'a cell must be a string, a number, a boolean, a date or null');
}

/**
 * Throws a WorkbookError naming the first problem; when the workbook can be written, returns each sheet's
 * name as it will be written, and a warning for each name that had to be made valid.
 */
export function validateWorkbook(input: { sheets: WorkbookSheet[] }): { names: string[]; warnings: string[] } {
  const valid: string[] = [];
  const warnings: string[] = [];
  const sheets: unknown = input?.sheets;
  if (!Array.isArray(sheets) || sheets.length === 0) throw new WorkbookError('sheets', 'give at least one sheet');
  if (sheets.length > MAX_SHEETS)
    throw new WorkbookError('sheets', `at most ${MAX_SHEETS} sheets (got ${sheets.length})`);
  const names = new Map<string, number>([[PROVENANCE_SHEET.toLowerCase(), -1]]);
  sheets.forEach((sheet: WorkbookSheet, s) => {
    const at = `sheets[${s}]`;
    if (!sheet || typeof sheet !== 'object')
      throw new WorkbookError(at, 'a sheet must be an object {name, columns, rows}');
    const { name, warning } = checkSheetName(sheet.name, `${at}.name`);
    const clash = names.get(name.toLowerCase());
    if (clash !== undefined) {
      const became = name === sheet.name ? '' : ` ("${sheet.name}" becomes "${name}": ${SHEET_NAME_RULE})`;
      throw new WorkbookError(
        `${at}.name`,
        clash < 0
          ? `"${PROVENANCE_SHEET}" is the name of the sheet added at the end of every workbook${became}`
          : `the name "${name}" is already used by sheets[${clash}] (sheet names are compared ignoring case)${became}`,
      );
    }
    names.set(name.toLowerCase(), s);
    valid.push(name);
    if (warning) warnings.push(`sheets[${s}].name: ${warning}`);

    if (!Array.isArray(sheet.columns) || sheet.columns.length === 0)
      throw new WorkbookError(`${at}.columns`, 'a sheet needs at least one column');
    if (sheet.columns.length > MAX_COLUMNS) throw new WorkbookError(`${at}.columns`, `at most ${MAX_COLUMNS} columns`);
    const keys = new Map<string, number>();
    sheet.columns.forEach((column, c) => {
      const cat = `${at}.columns[${c}]`;
      if (!column || typeof column !== 'object')
        throw new WorkbookError(cat, 'a column must be an object {header, key, numFmt?}');
      if (typeof column.key !== 'string' || column.key === '')
        throw new WorkbookError(`${cat}.key`, 'a column key must be a non-empty string');
      if (typeof column.header !== 'string')
        throw new WorkbookError(`${cat}.header`, 'a column header must be a string');
      if (column.header.length > MAX_CELL_TEXT)
        throw new WorkbookError(`${cat}.header`, `at most ${MAX_CELL_TEXT} characters`);
      if (
        column.numFmt !== undefined &&
        (typeof column.numFmt !== 'string' || column.numFmt === '' || column.numFmt.length > 255)
      ) {
        throw new WorkbookError(
          `${cat}.numFmt`,
          'a number format must be a string of 1 to 255 characters, e.g. "#,##0.00" or "yyyy-mm-dd"',
        );
      }
      const previous = keys.get(column.key);
      if (previous !== undefined)
        throw new WorkbookError(`${cat}.key`, `the key "${column.key}" is already used by columns[${previous}]`);
      keys.set(column.key, c);
    });

    if (!Array.isArray(sheet.rows)) throw new WorkbookError(`${at}.rows`, 'rows must be an array');
    if (sheet.rows.length > MAX_SHEET_ROWS - 1)
      throw new WorkbookError(`${at}.rows`, `a sheet holds at most ${MAX_SHEET_ROWS - 1} rows`);
    sheet.rows.forEach((row, r) => {
      const rat = `${at}.rows[${r}]`;
      if (!row || typeof row !== 'object' || Array.isArray(row))
        throw new WorkbookError(rat, 'a row must be an object {<key>: value}');
      for (const [key, value] of Object.entries(row)) {
        if (!keys.has(key))
          throw new WorkbookError(`${rat}${keySegment(key)}`, `"${key}" is not the key of a column of this sheet`);
        checkValue(value, `${rat}${keySegment(key)}`);
      }
    });
  });
  return { names: valid, warnings };
}

export async function writeWorkbook(
  path: string,
  input: WorkbookInput,
  tracking?: Tracking,
): Promise<{ sheets: number; rows: number; bytes: number; warnings: string[] }> {
  const { names, warnings } = validateWorkbook(input);
  // Progress over all sheets' rows together; a cancel stops at the next page of rows (the partial file is removed).
  const progress =
    tracking &&
    new RowProgress(
      input.sheets.reduce((n, sheet) => n + sheet.rows.length, 0),
      tracking,
    );
  progress?.start();
  return writeAtomically(path, async (partial) => {
    const book = await openWorkbook(partial, { title: input.title, creator: input.provenance.by });
    try {
      let rows = 0;
      const counts: string[] = [];
      for (const [i, sheet] of input.sheets.entries()) {
        const name = names[i]!;
        const rowSource = progress ? progress.track(sheet.rows) : sheet.rows;
        const written = await writeDataSheet(book.workbook, name, sheet.columns, rowSource, sheet.rows.slice(0, 200), {
          footer: `${input.title}: ${name}`,
          datesFromNumFmt: true,
        });
        rows += written;
        counts.push(`${name} (${written} ${written === 1 ? 'row' : 'rows'})`);
      }
      const sources = input.sources?.length ? input.sources : undefined;
      const entries: { label: string; value: CellValue }[] = [
        { label: 'Title', value: input.title },
        { label: 'Vault', value: input.provenance.vault },
        { label: 'Generated at (UTC)', value: input.provenance.generatedAt },
        { label: 'Generated by', value: input.provenance.by },
        { label: 'Sheets', value: counts.join(', ') },
        ...(sources
          ? sources.map((source, i) => ({ label: sources.length > 1 ? `Source ${i + 1}` : 'Source', value: source }))
          : [{ label: 'Sources', value: 'none given' }]),
      ];
      writeInfoSheet(book.workbook, PROVENANCE_SHEET, 'Provenance', entries);
      const bytes = await book.finish();
      // `sheets` counts the caller's sheets; the file has one more, Provenance.
      return { sheets: input.sheets.length, rows, bytes, warnings };
    } catch (error) {
      await book.abort();
      throw error;
    }
  });
}
