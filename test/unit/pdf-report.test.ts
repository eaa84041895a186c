/**
 * The PDF report as a reader sees it: every script extracted back from the text layer by pdf.js (an
 * independent reader: it decodes the fonts' ToUnicode maps and reorders right-to-left lines itself), the
 * Northwind findings in a few pages, ids whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readVaultDir } from '../../src/vault-format/read.js';
import { loadFixture } from '../../src/vault-format/load.js';
import { datasetTable } from '../../src/render/datasets.js';
import { writePdf, type Column, type TableExport } from '../../src/render/export/index.js';
import { openDb } from '../../src/store/db.js';
import { allVaults } from '../../src/store/vaults.js';
import { readPdf } from '../readers.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

const tmp = tempDir('vt-pdf-');
afterAll(() => tmp.cleanup());
let n = 0;
const out = () => join(tmp.dir, `report-${++n}.pdf`);

/** The text layer as pdf.js extracts it, page by page (items joined, a line break where pdf.js sees one). */
async function pdfjsText(path: string): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(path)), disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  const pages: string[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const content = await (await doc.getPage(p)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  await doc.destroy();
  return pages;
}

const SCRIPTS = {
  chinese: '仓库管理系统',
  japanese: 'ひらがな カタカナ 倉庫',
  korean: '창고 관리 시스템',
  arabic: 'مستودع رئيسي',
  arabicLigature: 'لا إله',
  hebrew: 'מחסן ראשי',
  greek: 'Αποθήκη Ωμέγα',
  cyrillic: 'Склад Привет',
  emoji: '📦 Parcels 🚚',
};

const COLUMNS: Column[] = [
  { header: 'Id', key: 'id' },
  { header: 'Name', key: 'name' },
  { header: 'Description', key: 'description' },
];

function scriptTable(): TableExport {
  return {
    title: `Findings ${SCRIPTS.chinese} ${SCRIPTS.arabic}`,
    subtitle: SCRIPTS.hebrew,
    meta: [{ label: 'Vault', value: SCRIPTS.greek }],
    columns: COLUMNS,
    rows: Object.entries(SCRIPTS).map(([key, text]) => ({ id: key, name: text, description: `Seen at ${text} during the walk` })),
  };
}

describe('PDF report: every script a client writes', () => {
  it('extracts back from the text layer unchanged (pdf.js), with no missing-glyph warning', async () => {
    const path = out();
    const result = await writePdf(path, scriptTable());
    expect(result.warnings).toEqual([]);
    const text = (await pdfjsText(path)).join('\n');
    for (const [script, s] of Object.entries(SCRIPTS)) {
      // in the name column alone, and inside a Latin sentence in the description
      expect(text, script).toContain(s);
      expect(text.split(s).length - 1, script).toBeGreaterThanOrEqual(2);
    }
  });

  it('draws the scripts with their own faces: Arabic joined and right to left, CJK from the CJK face', async () => {
    const path = out();
    await writePdf(path, scriptTable());
    const fonts = readFileSync(path).toString('latin1').match(/\/BaseFont \/[A-Z]{6}\+[\w-]+|\/BaseFont \/[\w-]+/g)!.join(' ');
    for (const face of ['DejaVuSansCondensed', 'NotoSansHans', 'NanumGothic', 'NotoEmoji']) expect(fonts).toContain(face);
    // the run of an Arabic cell is one TJ/Tj whose glyphs, read through ToUnicode, are the letters in drawing
    // (visual) order: reversed, and with the joined forms mapped back to the base letters
    const runs = (await readPdf(path)).pages.flatMap((p) => p.runs.map((r) => r.text));
    expect(runs).toContain([...'رئيسي'].reverse().join('') + ' ' + [...'مستودع'].reverse().join(''));
  });
});

describe('PDF report: tables that read like a report', () => {
  it('puts the 72 Northwind findings on at most 9 pages (18 before), with the Description column the widest', async () => {
    const db = openDb(join(tmp.dir, 'northwind'));
    try {
      loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture' });
      const vault = allVaults(db)[0]!;
      const path = out();
      const result = await writePdf(path, datasetTable(db, vault, 'findings', new Date()));
      expect(result.rows).toBe(72);
      expect(result.pages).toBeLessThanOrEqual(9);
      const page = (await readPdf(path)).pages[0]!;
      const headers = page.runs.filter((r) => r.bold && r.size === 7).sort((a, b) => a.x - b.x);
      const widths = headers.map((h, i) => ({ text: h.text, width: (headers[i + 1]?.x ?? page.width - 30) - h.x }));
      const widest = widths.reduce((a, b) => (b.width > a.width ? b : a));
      expect(widest.text).toBe('Description');
      expect(widest.width).toBeGreaterThan(page.width * 0.35);
    } finally {
      db.close();
    }
  });

  it('keeps ids whole: the id column gets its longest id, and a longer one after the sample shrinks instead of breaking', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => (i === 250 ? 'person-gavin-shaw-leeds-0250' : `person-gavin-shaw-${i}`));
    const path = out();
    await writePdf(path, {
      title: 'Ids',
      meta: [],
      columns: COLUMNS,
      rows: ids.map((id, i) => ({ id, name: `Name ${i}`, description: 'A description long enough to want the room of the page, and then some more words to wrap over two lines. '.repeat(2) })),
    });
    const runs = (await readPdf(path)).pages.flatMap((p) => p.runs.map((r) => r.text));
    for (const id of ids) expect(runs, id).toContain(id);
  });
});
