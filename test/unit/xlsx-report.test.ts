/**
 * xlsx that opens right in every reader: named header font, rows as tall as their wrapped text (readers do
 * not grow rows themselves when opening a file, so text overlapped the next row), wrap on cells with line
 * breaks, and one sheet-name rule for export_report and export_workbook.
 */
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { writeWorkbook, writeXlsx, type Column, type TableExport } from '../../src/render/export/index.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vt-xlsx-');
afterAll(() => tmp.cleanup());
let n = 0;
const out = () => join(tmp.dir, `book-${++n}.xlsx`);

const COLUMNS: Column[] = [
  { header: 'Id', key: 'id', width: 10 },
  { header: 'Note', key: 'note', width: 20 },
  { header: 'Description', key: 'description', width: 40 },
];
const LONG =
  'The warehouse management system at all three DCs since 2014, on-prem on two servers in the Leeds comms room, with 143 custom reports.';

function table(title = 'Findings: Northwind'): TableExport {
  return {
    title,
    meta: [],
    columns: COLUMNS,
    rows: [
      { id: 'short', note: 'ok', description: 'one line' },
      { id: 'long', note: 'ok', description: LONG },
      { id: 'breaks', note: 'first\nsecond\nthird', description: 'short' },
      ...Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, note: 'ok', description: LONG })),
    ],
  };
}

async function read(path: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  return wb;
}

describe('xlsx: opens right everywhere', () => {
  it('names the header font and its size', async () => {
    const path = out();
    await writeXlsx(path, table());
    const sheet = (await read(path)).worksheets[0]!;
    for (let c = 1; c <= COLUMNS.length; c++)
      expect(sheet.getRow(1).getCell(c).font).toMatchObject({ name: 'Calibri', size: 11, bold: true });
    expect(sheet.getRow(2).getCell(1).font).toMatchObject({ name: 'Calibri', size: 11 });
  });

  it('gives a row with wrapped text the height of its lines, and wraps a cell with line breaks', async () => {
    const path = out();
    await writeXlsx(path, table());
    const sheet = (await read(path)).worksheets[0]!;
    const row = (id: string) => {
      for (let r = 2; r <= sheet.rowCount; r++) if (sheet.getRow(r).getCell(1).value === id) return sheet.getRow(r);
      throw new Error(`no row ${id}`);
    };
    // one line: the default height
    expect(row('short').height ?? 15).toBeLessThanOrEqual(15);
    // 134 characters in a column 40 wide: 4 lines (an estimate a little high, never low)
    expect(row('long').getCell(3).alignment).toMatchObject({ wrapText: true });
    expect(row('long').height).toBeGreaterThanOrEqual(4 * 14);
    expect(row('long').height).toBeLessThanOrEqual(5 * 15);
    // three lines by line breaks, in a column whose other cells are short (so it does not wrap as a column)
    expect(row('breaks').getCell(2).alignment).toMatchObject({ wrapText: true });
    expect(row('breaks').height).toBeGreaterThanOrEqual(3 * 14);
  });
});

describe('xlsx: one sheet-name rule for export_report and export_workbook', () => {
  it('cuts a name to 31 characters and replaces : \\ / ? * [ ] the same way in both, with the same warning', async () => {
    const requested = 'Q1/Q2 inventory accuracy by distribution centre';
    const report = out();
    const r = await writeXlsx(report, table(requested));
    const workbook = out();
    const w = await writeWorkbook(workbook, {
      title: 'KPIs',
      sheets: [{ name: requested, columns: [{ header: 'A', key: 'a' }], rows: [{ a: 1 }] }],
      provenance: { vault: 'v', generatedAt: new Date(), by: 'me' },
    });
    const reportName = (await read(report)).worksheets[0]!.name;
    const workbookName = (await read(workbook)).worksheets[0]!.name;
    expect(reportName).toBe('Q1 - Q2 inventory accuracy by d');
    expect(workbookName).toBe(reportName);
    expect(r.warnings).toHaveLength(1);
    expect(w.warnings).toEqual([`sheets[0].name: ${r.warnings[0]}`]);
    expect(r.warnings[0]).toContain(`"${requested}" became "${reportName}"`);
  });

  it('leaves a valid name alone, without a warning', async () => {
    const path = out();
    const r = await writeXlsx(path, table('Findings: Northwind'));
    expect(r.warnings).toEqual([]);
    expect((await read(path)).worksheets[0]!.name).toBe('Findings - Northwind');
  });
});
