import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { parseCsv, readPdf } from '../readers.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  type CellValue,
  type Column,
  type TableExport,
  type WorkbookSheet,
  WorkbookError,
  validateWorkbook,
  writeCsv,
  writePdf,
  writeWorkbook,
  writeXlsx,
} from '../../src/render/export/index.js';

const DIR = mkdtempSync(join(tmpdir(), 'vt-export-'));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));
let fileNo = 0;
const out = (ext: string) => join(DIR, `out-${++fileNo}.${ext}`);

// ------------------------------------------------------------------------------------------------
// Data

const COLUMNS: Column[] = [
  { header: 'Id', key: 'id' },
  { header: 'Name', key: 'name', width: 30 },
  { header: 'Mentions', key: 'mentions', type: 'number' },
  { header: 'Score', key: 'score', type: 'number', numFmt: '0.00' },
  { header: 'First seen', key: 'firstSeen', type: 'datetime' },
  { header: 'Due', key: 'due', type: 'date' },
  { header: 'Description', key: 'description' },
];

const WORDS = 'warehouse dock scheduling carrier manifest forklift Zürich Ωmega Привет customs pallet delay'.split(' ');

function findingRow(i: number): Record<string, CellValue> {
  return {
    id: `ent_${i}`,
    name: `Entity ${i} ${WORDS[i % WORDS.length]}`,
    mentions: i % 3 === 0 ? String((i * 7) % 500) : (i * 7) % 500, // numeric strings become numbers
    score: i / 8,
    firstSeen: new Date(Date.UTC(2024, 2, 5, 14, 30) + i * 3_600_000).toISOString(), // ISO strings become dates
    due: new Date(Date.UTC(2024, 4, 1 + (i % 28))),
    description: Array.from({ length: 3 + (i % 25) }, (_, k) => WORDS[(i + k) % WORDS.length]).join(' '),
  };
}

function* findings(n: number): Generator<Record<string, CellValue>> {
  for (let i = 0; i < n; i++) yield findingRow(i);
}

function table(rows: TableExport['rows'], columns: Column[] = COLUMNS): TableExport {
  return {
    title: 'Findings: Northwind Logistics',
    subtitle: 'Everything the vault knows',
    meta: [
      { label: 'Vault', value: 'Northwind Logistics (northwind)' },
      { label: 'Generated', value: '2024-06-01 12:00 UTC' },
      { label: 'Findings', value: '1,000' },
    ],
    columns,
    rows,
  };
}

/** A row source that fails after `failAt` rows and records whether it was closed. */
function failingRows(failAt: number) {
  const state = { pulled: 0, closed: false };
  async function* rows(): AsyncGenerator<Record<string, CellValue>> {
    try {
      for (let i = 0; ; i++) {
        if (i === failAt) throw new Error('database went away');
        state.pulled++;
        yield findingRow(i);
      }
    } finally {
      state.closed = true;
    }
  }
  return { rows: rows(), state };
}

/** Every xref entry in use must point at "<n> 0 obj". */
function checkXref(path: string): number {
  const text = readFileSync(path).toString('latin1');
  const at = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const head = /^xref\n0 (\d+)\n/.exec(text.slice(at))!;
  const count = Number(head[1]);
  let used = 0;
  for (let n = 0; n < count; n++) {
    const entry = text.substr(at + head[0].length + n * 20, 20);
    expect(entry).toMatch(/^\d{10} \d{5} [nf] \n$/);
    if (entry[17] === 'n') {
      used++;
      expect(text.startsWith(`${n} 0 obj`, Number(entry.slice(0, 10)))).toBe(true);
    }
  }
  return used;
}

// ------------------------------------------------------------------------------------------------

describe('writeXlsx', () => {
  it('writes a styled sheet that reads back cell by cell', async () => {
    const path = out('xlsx');
    const long = 'x'.repeat(40_000);
    const rows = [...findings(1000)];
    rows[5] = { ...rows[5], description: long };
    const result = await writeXlsx(path, table(rows));
    expect(result).toEqual({ rows: 1000, bytes: statSync(path).size, warnings: [] });

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Findings - Northwind Logistics', 'Report info']);
    const ws = wb.worksheets[0]!;
    expect(ws.rowCount).toBe(1001);

    // header: text, bold, fill, border
    const header = ws.getRow(1);
    expect(COLUMNS.map((_, i) => header.getCell(i + 1).value)).toEqual(COLUMNS.map((c) => c.header));
    for (let i = 1; i <= COLUMNS.length; i++) {
      const cell = header.getCell(i);
      expect(cell.font?.bold).toBe(true);
      expect(cell.fill).toMatchObject({ type: 'pattern', pattern: 'solid', fgColor: { argb: 'FF1F3A5F' } });
      expect(cell.border?.bottom?.style).toBe('thin');
    }
    expect(ws.getRow(2).getCell(1).font?.bold).not.toBe(true);

    // frozen header row and the auto-filter over the data range
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBe('A1:G1001');

    // values keep their types
    const row = (r: number) => ws.getRow(r + 2);
    expect(row(0).getCell(1).value).toBe('ent_0');
    expect(row(3).getCell(3).value).toBe(21); // '21' in a number column
    expect(row(4).getCell(3).value).toBe(28);
    expect(row(4).getCell(4).value).toBe(0.5);
    expect(row(4).getCell(4).numFmt).toBe('0.00');
    const firstSeen = row(2).getCell(5);
    expect(firstSeen.value).toBeInstanceOf(Date); // an ISO string in a datetime column
    expect((firstSeen.value as Date).toISOString()).toBe('2024-03-05T16:30:00.000Z');
    expect(firstSeen.numFmt).toBe('yyyy-mm-dd hh:mm');
    const due = row(2).getCell(6);
    expect(due.value).toEqual(new Date(Date.UTC(2024, 4, 3)));
    expect(due.numFmt).toBe('yyyy-mm-dd');

    // widths: given (Name: 30) or estimated from header and values
    const widths = ws.columns.map((c) => c.width);
    expect(widths[1]).toBe(30);
    for (const w of widths) expect(w).toBeGreaterThanOrEqual(6);
    expect(widths[4]).toBeGreaterThanOrEqual('2024-03-05 14:30'.length);
    expect(widths[6]).toBeGreaterThan(widths[0]!);

    // Excel's 32,767-character cell limit
    const cut = row(5).getCell(7).value as string;
    expect(cut.length).toBe(32_767);
    expect(cut.endsWith('[truncated: Excel cells hold at most 32,767 characters]')).toBe(true);

    // the title, subtitle and meta in the info sheet
    const info = wb.worksheets[1]!;
    expect(info.getCell('A1').value).toBe('Findings: Northwind Logistics');
    const pairs = Object.fromEntries(
      Array.from({ length: info.rowCount }, (_, i) => [info.getCell(i + 1, 1).value, info.getCell(i + 1, 2).value]),
    );
    expect(pairs).toMatchObject({
      Subtitle: 'Everything the vault knows',
      Vault: 'Northwind Logistics (northwind)',
      Rows: 1000,
    });
  });

  it('streams from an async source and closes it', async () => {
    const state = { closed: false, pulled: 0 };
    const path = out('xlsx');
    let partialSizeMidway = -1;
    async function* rows(): AsyncGenerator<Record<string, CellValue>> {
      try {
        for (let i = 0; i < 3000; i++) {
          if (i === 2500) {
            // The writer streams while the source is paused here: wait until rows reached the disk.
            await vi.waitFor(() => expect(statSync(`${path}.partial`).size).toBeGreaterThan(0), { timeout: 10_000 });
            partialSizeMidway = statSync(`${path}.partial`).size;
          }
          state.pulled++;
          yield findingRow(i);
        }
      } finally {
        state.closed = true;
      }
    }
    const result = await writeXlsx(path, table(rows()));
    expect(result.rows).toBe(3000);
    expect(state).toEqual({ closed: true, pulled: 3000 });
    // rows already went to disk while the source was still producing
    expect(partialSizeMidway).toBeGreaterThan(0);
    expect(existsSync(`${path}.partial`)).toBe(false);
  });
});

describe('writeCsv', () => {
  const tricky: Record<string, CellValue>[] = [
    { a: 'plain', b: 'with, comma', c: 'with "quotes"' },
    { a: 'line\nbreak', b: 'crlf\r\ninside', c: 'Zürich Ωmega Привет 中文 😀' },
    { a: '=1+1', b: '+x', c: '-x' },
    { a: '@x', b: '\tx', c: '\rx' },
    { a: -5, b: '-5', c: 3.25 },
    { a: null, b: undefined, c: true },
    { a: new Date(Date.UTC(2024, 2, 5)), b: new Date(Date.UTC(2024, 2, 5, 14, 30)), c: '＝1+1' },
    { a: 'a=b', b: ' =x', c: '' },
  ];
  const columns: Column[] = [
    { header: 'A', key: 'a' },
    { header: 'B', key: 'b' },
    { header: 'C', key: 'c' },
  ];

  it('writes RFC 4180 with a BOM, CRLF, quoting and the formula-injection rule', async () => {
    const path = out('csv');
    const result = await writeCsv(path, table(tricky, columns));
    const bytes = readFileSync(path);
    expect(result).toEqual({ rows: tricky.length, bytes: bytes.length });
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.startsWith('A,B,C\r\n')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text).toContain('"with ""quotes"""');

    const records = parseCsv(text);
    expect(records).toEqual([
      ['A', 'B', 'C'],
      ['plain', 'with, comma', 'with "quotes"'],
      // line breaks inside fields are CRLF, like the record ends (a lone LF or CR too)
      ['line\r\nbreak', 'crlf\r\ninside', 'Zürich Ωmega Привет 中文 😀'],
      ["'=1+1", "'+x", "'-x"],
      ["'@x", "'\tx", "'\r\nx"],
      ['-5', "'-5", '3.25'], // a negative NUMBER is not text; the text '-5' is
      ['', '', 'true'],
      ['2024-03-05', '2024-03-05T14:30:00Z', "'＝1+1"],
      ['a=b', ' =x', ''],
    ]);
  });

  it('turns numeric strings of number columns into numbers (no prefix) and dates into ISO 8601', async () => {
    const path = out('csv');
    await writeCsv(path, table(findings(1000)));
    const records = parseCsv(readFileSync(path).subarray(3).toString('utf8'));
    expect(records).toHaveLength(1001);
    expect(records[0]).toEqual(COLUMNS.map((c) => c.header));
    expect(records[1]).toEqual([
      'ent_0',
      'Entity 0 warehouse',
      '0',
      '0',
      '2024-03-05T14:30:00Z',
      '2024-05-01',
      'warehouse dock scheduling',
    ]);
    expect(records[4]![2]).toBe('21');
  });
});

describe('writePdf', () => {
  it('writes a title block, then tables with the header on every page and numbered pages', async () => {
    const path = out('pdf');
    const result = await writePdf(path, table(findings(1000)));
    const pdf = await readPdf(path);
    expect(result.rows).toBe(1000);
    expect(result.pages).toBe(pdf.pages.length);
    expect(result.bytes).toBe(statSync(path).size);
    expect(result.pages).toBeGreaterThan(10);
    expect(pdf.doc.getTitle()).toBe('Findings: Northwind Logistics');
    expect(checkXref(path)).toBeGreaterThan(result.pages * 2);

    // the first page opens with the title block (title, subtitle, meta), then the table starts
    const title = pdf.pages[0]!;
    for (const s of [
      'REPORT',
      'Findings: Northwind Logistics',
      'Everything the vault knows',
      'Vault',
      'Northwind Logistics (northwind)',
      'Generated',
      '2024-06-01 12:00 UTC',
      'Findings',
      '1,000',
    ])
      expect(title.runs.map((r) => r.text)).toContain(s);
    const block = title.runs.find((r) => r.text === 'Findings: Northwind Logistics')!;
    expect(title.runs.find((r) => r.text === 'ent_0')!.y).toBeLessThan(block.y);

    const seen = new Map<string, number>();
    pdf.pages.forEach((page, i) => {
      expect(page.runs.map((r) => r.text)).toContain(`Page ${i + 1} of ${pdf.pages.length}`);
      // A4, in the orientation that needs fewer pages: portrait for these seven columns
      expect([page.width, page.height]).toEqual([595.28, 841.89]);
      for (const run of page.runs) {
        expect(run.x).toBeGreaterThanOrEqual(29.9);
        expect(run.x + run.width).toBeLessThanOrEqual(page.width - 29.9);
      }
      // the header row, in bold, on every page
      const bold = page.runs.filter((r) => r.bold).map((r) => r.text);
      for (const c of COLUMNS) expect(bold).toContain(c.header);
      for (const r of page.runs) if (/^ent_\d+$/.test(r.text)) seen.set(r.text, (seen.get(r.text) ?? 0) + 1);
    });
    // every row exactly once, in order
    expect([...seen.keys()]).toEqual(Array.from({ length: 1000 }, (_, i) => `ent_${i}`));
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    // numbers right-aligned and formatted per numFmt, dates in UTC
    const page2 = pdf.pages[0]!.runs.map((r) => r.text);
    expect(page2).toContain('0.13'); // 1/8 with numFmt 0.00
    // a date-time wraps at its space when its column is narrow, never inside the date
    expect(page2.includes('2024-03-05 15:30') || (page2.includes('2024-03-05') && page2.includes('15:30'))).toBe(true);
    expect(page2).toContain('2024-05-02');
  });

  it('paginates a known number of rows onto a known number of pages', async () => {
    // One-line rows in three short columns: portrait A4 (fewer pages than landscape). Below the running
    // header the table starts at 841.89 - 34 - 12 = 795.89; header 7 × 1.2 + 4.5 + 1 = 13.9 high, rows
    // 8.4 + 4.5 = 12.9 high, bottom margin 38: floor((795.89 - 13.9 - 38) / 12.9) = 57 rows a page. The
    // first page has the title block above its table.
    const path = out('pdf');
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: `row_${i}`, n: i, s: 'short' }));
    const cols: Column[] = [
      { header: 'Id', key: 'id' },
      { header: 'N', key: 'n', type: 'number' },
      { header: 'Status', key: 's' },
    ];
    const rows150 = [...rows, ...Array.from({ length: 50 }, (_, i) => ({ id: `row_${100 + i}`, n: i, s: 'short' }))];
    const result = await writePdf(path, table(rows150, cols));
    expect(result.pages).toBe(3);
    const pdf = await readPdf(path);
    expect(pdf.pages).toHaveLength(3);
    expect([pdf.pages[0]!.width, pdf.pages[0]!.height]).toEqual([595.28, 841.89]);
    const perPage = pdf.pages.map((p) => p.runs.filter((r) => /^row_\d+$/.test(r.text)).length);
    expect(perPage[1]).toBe(57);
    expect(perPage[0]).toBeGreaterThan(40);
    expect(perPage[0]).toBeLessThan(57);
    expect(perPage[0]! + perPage[1]! + perPage[2]!).toBe(150);
  });

  it('wraps long text inside its column and continues a row taller than a page', async () => {
    const path = out('pdf');
    const words = Array.from({ length: 4000 }, (_, i) => `word${i}`);
    const rows = [
      { id: 'first', text: 'short' },
      { id: 'long', text: `${words.join(' ')} ${'y'.repeat(500)}` },
      { id: 'last', text: 'after' },
    ];
    const cols: Column[] = [
      { header: 'Id', key: 'id' },
      { header: 'Text', key: 'text' },
    ];
    const result = await writePdf(path, table(rows, cols));
    const pdf = await readPdf(path);
    expect(result.pages).toBeGreaterThan(3); // the long row spans several pages
    const all = pdf.pages.flatMap((p) =>
      p.runs.filter((r) => !r.bold && r.size === 7 && r.text !== 'Findings: Northwind Logistics'),
    );
    const text = all.map((r) => r.text).join(' ');
    for (const w of words) expect(text).toContain(`${w} `); // nothing cut off
    expect(all.filter((r) => /^y+$/.test(r.text)).reduce((n, r) => n + r.text.length, 0)).toBe(500);
    // wrapped: many lines, each within the column (the Text column's header marks where it starts)
    const textColumnX = pdf.pages[0]!.runs.find((r) => r.bold && r.text === 'Text')!.x;
    const lines = all.filter((r) => r.x >= textColumnX - 0.01);
    expect(lines.length).toBeGreaterThan(50);
    for (const page of pdf.pages)
      for (const r of page.runs) expect(r.x + r.width).toBeLessThanOrEqual(page.width - 29.9);
    for (const page of pdf.pages)
      expect(page.runs.filter((r) => r.bold).map((r) => r.text)).toEqual(expect.arrayContaining(['Id', 'Text']));
    expect(pdf.pages.at(-1)!.runs.map((r) => r.text)).toContain('after');
  });

  it('draws any Unicode the font stack has, replaces what it lacks and says so, without crashing', async () => {
    const path = out('pdf');
    const rows = [{ id: 'u', text: 'Zürich Ωmega Привет 😀 中文 ok\u0000\u0007 tab\there \ue000' }];
    const result = await writePdf(
      path,
      table(rows, [
        { header: 'Id', key: 'id' },
        { header: 'Text — ünïcödé', key: 'text' },
      ]),
    );
    const pdf = await readPdf(path);
    const text = pdf.pages[0]!.text;
    expect(text).toContain('Zürich Ωmega Привет 😀 中文 ok tab here \ufffd');
    expect(pdf.pages[0]!.runs.filter((r) => r.bold).map((r) => r.text)).toContain('Text — ünïcödé');
    expect(result.warnings).toEqual([
      '1 character has no glyph in the report\'s fonts and is shown as "\ufffd": U+E000.',
    ]);
  });

  it('round-trips hundreds of distinct characters (glyph ids that need escaping in PDF strings)', async () => {
    const range = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i)).join('');
    const alphabet = `${range(0x21, 0x7e) + range(0xc0, 0xff) + range(0x391, 0x3a1) + range(0x3a3, 0x3c9) + range(0x410, 0x44f)}€™←→√∞≈≠≤≥`;
    const chunks = alphabet.match(/.{1,40}/gu)!;
    expect(alphabet.length).toBeGreaterThan(256); // subset glyph ids 10, 13, 40, 41 and 92 are all in use
    const path = out('pdf');
    // each character alone too, so no escaped byte can hide inside a balanced pair of parentheses
    const texts = [...chunks, ...alphabet];
    await writePdf(
      path,
      table(
        texts.map((text, i) => ({ id: `c${i}`, text })),
        [
          { header: 'Id', key: 'id' },
          { header: 'Text', key: 'text' },
        ],
      ),
    );
    const runs = (await readPdf(path)).pages.flatMap((p) => p.runs.map((r) => r.text));
    for (const text of texts) expect(runs).toContain(text);
  });

  it('writes an empty dataset as a title block and an empty table', async () => {
    const path = out('pdf');
    const result = await writePdf(path, table([]));
    expect(result).toMatchObject({ rows: 0, pages: 1, warnings: [] });
    const pdf = await readPdf(path);
    expect(pdf.pages[0]!.runs.map((r) => r.text)).toEqual(
      expect.arrayContaining(['Findings: Northwind Logistics', 'Id', 'No rows.', 'Page 1 of 1']),
    );
  });
});

describe('failed exports leave no file', () => {
  for (const [format, write] of [
    ['xlsx', writeXlsx],
    ['csv', writeCsv],
    ['pdf', writePdf],
  ] as const) {
    it(`${format}: a source failing midway rejects, closes the source, removes the partial file and keeps an older file`, async () => {
      const path = out(format);
      const { rows, state } = failingRows(700);
      await expect(write(path, table(rows))).rejects.toThrow('database went away');
      expect(state.pulled).toBe(700);
      expect(state.closed).toBe(true);
      expect(existsSync(path)).toBe(false);
      expect(existsSync(`${path}.partial`)).toBe(false);

      writeFileSync(path, 'the previous export');
      const again = failingRows(300);
      await expect(write(path, table(again.rows))).rejects.toThrow('database went away');
      expect(readFileSync(path, 'utf8')).toBe('the previous export');
      expect(existsSync(`${path}.partial`)).toBe(false);
    });
  }
});

describe('validateWorkbook', () => {
  const sheet = (over: Partial<WorkbookSheet> = {}): WorkbookSheet => ({
    name: 'Tasks',
    columns: [
      { header: 'Task', key: 'task' },
      { header: 'Hours', key: 'hours' },
    ],
    rows: [{ task: 'a', hours: 1 }],
    ...over,
  });
  const pathOf = (sheets: WorkbookSheet[]): string | undefined => {
    try {
      validateWorkbook({ sheets });
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(WorkbookError);
      return (error as WorkbookError).path;
    }
  };

  it('accepts a valid workbook', () => {
    expect(pathOf([sheet(), sheet({ name: "Q1 'plan' (draft)" })])).toBeUndefined();
    expect(pathOf(Array.from({ length: 100 }, (_, i) => sheet({ name: `S${i}` })))).toBeUndefined();
  });

  it('names the place of every problem', () => {
    expect(pathOf([])).toBe('sheets');
    expect(pathOf(Array.from({ length: 101 }, (_, i) => sheet({ name: `S${i}` })))).toBe('sheets');
    expect(pathOf([sheet({ name: '' })])).toBe('sheets[0].name');
    expect(pathOf([sheet({ name: '   ' })])).toBe('sheets[0].name');
    // names Excel would refuse are made valid, with a warning (see 'one sheet-name rule' below), not refused
    expect(pathOf([sheet(), sheet({ name: 'x'.repeat(32) })])).toBeUndefined();
    for (const bad of [':', '\\', '/', '?', '*', '[', ']'])
      expect(pathOf([sheet(), sheet({ name: `a${bad}b` })])).toBeUndefined();
    expect(pathOf([sheet({ name: "'quoted" })])).toBeUndefined();
    expect(pathOf([sheet({ name: 'History' })])).toBeUndefined();
    // names that clash (ignoring case, or once made valid) are refused
    expect(pathOf([sheet({ name: 'Tasks' }), sheet({ name: 'TASKS' })])).toBe('sheets[1].name');
    expect(pathOf([sheet({ name: 'x'.repeat(31) }), sheet({ name: 'x'.repeat(40) })])).toBe('sheets[1].name');
    expect(pathOf([sheet({ name: 'provenance' })])).toBe('sheets[0].name');
    expect(pathOf([sheet({ columns: [] })])).toBe('sheets[0].columns');
    expect(
      pathOf([
        sheet({
          columns: [
            { header: 'A', key: 'a' },
            { header: 'B', key: 'a' },
          ],
        }),
      ]),
    ).toBe('sheets[0].columns[1].key');
    expect(pathOf([sheet({ columns: [{ header: 'A', key: '' }] })])).toBe('sheets[0].columns[0].key');
    expect(pathOf([sheet({ columns: [{ header: 'A', key: 'a', numFmt: '' }] })])).toBe('sheets[0].columns[0].numFmt');
    const rows = [{ task: 'a' }, { task: 'b' }, { task: 'c' }, { task: 'd', foo: 1 }];
    expect(pathOf([sheet(), sheet({ name: 'Other', rows })])).toBe('sheets[1].rows[3].foo');
    expect(pathOf([sheet({ rows: [{ 'first name': 'x' }] })])).toBe('sheets[0].rows[0]["first name"]');
    expect(pathOf([sheet({ rows: [{ hours: Number.NaN }] })])).toBe('sheets[0].rows[0].hours');
    expect(pathOf([sheet({ rows: [{ hours: { nested: true } as unknown as CellValue }] })])).toBe(
      'sheets[0].rows[0].hours',
    );
    expect(pathOf([sheet({ rows: [{ task: 'x'.repeat(32_768) }] })])).toBe('sheets[0].rows[0].task');
  });

  it('puts the path in the message too', () => {
    expect(() => validateWorkbook({ sheets: [sheet({ name: '   ' })] })).toThrow(
      /^sheets\[0\]\.name: a sheet name must not be empty/,
    );
  });
});

describe('writeWorkbook', () => {
  const generatedAt = new Date(Date.UTC(2024, 5, 1, 12, 0, 0));

  it('validates before writing anything', async () => {
    const path = out('xlsx');
    await expect(
      writeWorkbook(path, {
        title: 'Bad',
        sheets: [{ name: ' ', columns: [{ header: 'A', key: 'a' }], rows: [] }],
        provenance: { vault: 'v', generatedAt, by: 'me' },
      }),
    ).rejects.toMatchObject({ name: 'WorkbookError', path: 'sheets[0].name' });
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.partial`)).toBe(false);
  });

  it('writes the sheets with styling and numFmt, then a Provenance sheet', async () => {
    const path = out('xlsx');
    const budget: WorkbookSheet = {
      name: 'Budget',
      columns: [
        { header: 'Item', key: 'item' },
        { header: 'Amount', key: 'amount', numFmt: '#,##0.00' },
        { header: 'Share', key: 'share', numFmt: '0.0%' },
        { header: 'Due', key: 'due', numFmt: 'yyyy-mm-dd' },
      ],
      rows: [
        { item: 'Forklifts', amount: 125000.5, share: 0.625, due: '2024-07-01' },
        { item: 'Dock doors', amount: 75000, share: 0.375, due: new Date(Date.UTC(2024, 8, 15)) },
      ],
    };
    const owners: WorkbookSheet = {
      name: "Owners' list",
      columns: [
        { header: 'Name', key: 'name' },
        { header: 'Active', key: 'active' },
      ],
      rows: [{ name: 'Ana' }, { name: 'Ben', active: true }, { name: 'Cy', active: false }],
    };
    const result = await writeWorkbook(path, {
      title: 'Q3 plan',
      sheets: [budget, owners],
      sources: ['meeting mtg_1: weekly ops', 'email thr_9: budget approval'],
      provenance: { vault: 'Northwind Logistics', generatedAt, by: 'ana@northwind.example' },
    });
    expect(result).toEqual({ sheets: 2, rows: 5, warnings: [], bytes: statSync(path).size });

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Budget', "Owners' list", 'Provenance']);

    const ws = wb.getWorksheet('Budget')!;
    expect(ws.getRow(1).values).toEqual([undefined, 'Item', 'Amount', 'Share', 'Due']);
    expect(ws.getCell('A1').font?.bold).toBe(true);
    expect(ws.getCell('D1').fill).toMatchObject({ pattern: 'solid' });
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBe('A1:D3');
    expect(ws.getCell('B2').value).toBe(125000.5);
    expect(ws.getCell('B2').numFmt).toBe('#,##0.00');
    expect(ws.getCell('B3').numFmt).toBe('#,##0.00');
    expect(ws.getCell('C2').numFmt).toBe('0.0%');
    expect(ws.getCell('A2').numFmt).toBeUndefined();
    expect(ws.getCell('D2').value).toEqual(new Date(Date.UTC(2024, 6, 1))); // ISO text under a date format
    expect(ws.getCell('D3').value).toEqual(new Date(Date.UTC(2024, 8, 15)));
    expect(ws.getCell('D2').numFmt).toBe('yyyy-mm-dd');
    for (const c of ws.columns) expect(c.width).toBeGreaterThan(0);

    const owners2 = wb.getWorksheet("Owners' list")!;
    expect(owners2.autoFilter).toBe('A1:B4');
    expect(owners2.getCell('B2').value).toBeNull();
    expect(owners2.getCell('B3').value).toBe(true);

    const prov = wb.getWorksheet('Provenance')!;
    expect(prov.getCell('A1').value).toBe('Provenance');
    const entries = Array.from({ length: prov.rowCount }, (_, i) => [
      prov.getCell(i + 1, 1).value,
      prov.getCell(i + 1, 2).value,
    ]);
    expect(entries).toEqual(
      expect.arrayContaining([
        ['Title', 'Q3 plan'],
        ['Vault', 'Northwind Logistics'],
        ['Generated at (UTC)', generatedAt],
        ['Generated by', 'ana@northwind.example'],
        ['Sheets', "Budget (2 rows), Owners' list (3 rows)"],
        ['Source 1', 'meeting mtg_1: weekly ops'],
        ['Source 2', 'email thr_9: budget approval'],
      ]),
    );
    expect(prov.getCell('A3').font?.bold).toBe(true);
  });

  it('says when no sources were given', async () => {
    const path = out('xlsx');
    await writeWorkbook(path, {
      title: 'T',
      sheets: [{ name: 'S', columns: [{ header: 'A', key: 'a' }], rows: [] }],
      provenance: { vault: 'v', generatedAt, by: 'me' },
    });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path);
    const prov = wb.getWorksheet('Provenance')!;
    const entries = Array.from({ length: prov.rowCount }, (_, i) => [
      prov.getCell(i + 1, 1).value,
      prov.getCell(i + 1, 2).value,
    ]);
    expect(entries).toContainEqual(['Sources', 'none given']);
    expect(wb.getWorksheet('S')!.autoFilter).toBe('A1:A1');
  });
});
