/**
 * The PDF report as a reader sees it: every script extracted back from the text layer by pdf.js (an
 * independent reader: it decodes the fonts' ToUnicode maps and reorders right-to-left lines itself), the
 * Northwind findings in a few pages, ids whole; the Northwind findings report opening on a summary, grouped
 * by type, without internal ids, its running header and footer never cut.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVaultDir } from '../../src/vault-format/read.js';
import { loadFixture } from '../../src/load/load.js';
import { datasetTable } from '../../src/render/datasets.js';
import { writePdf, type Column, type TableExport } from '../../src/render/export/index.js';
import { openDb } from '../../src/store/db.js';
import { allVaults } from '../../src/store/vaults.js';
import { readPdf, type ReadPdf } from '../readers.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

const tmp = tempDir('vt-pdf-');
afterAll(() => tmp.cleanup());
let n = 0;
const out = () => join(tmp.dir, `report-${++n}.pdf`);

/** The text layer as pdf.js extracts it, page by page (items joined, a line break where pdf.js sees one). */
async function pdfjsText(path: string): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(readFileSync(path)),
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
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
    rows: Object.entries(SCRIPTS).map(([key, text]) => ({
      id: key,
      name: text,
      description: `Seen at ${text} during the walk`,
    })),
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
    const fonts = readFileSync(path)
      .toString('latin1')
      .match(/\/BaseFont \/[A-Z]{6}\+[\w-]+|\/BaseFont \/[\w-]+/g)!
      .join(' ');
    for (const face of ['DejaVuSansCondensed', 'NotoSansHans', 'NanumGothic', 'NotoEmoji'])
      expect(fonts).toContain(face);
    // the run of an Arabic cell is one TJ/Tj whose glyphs, read through ToUnicode, are the letters in drawing
    // (visual) order: reversed, and with the joined forms mapped back to the base letters
    const runs = (await readPdf(path)).pages.flatMap((p) => p.runs.map((r) => r.text));
    expect(runs).toContain(`${[...'رئيسي'].reverse().join('')} ${[...'مستودع'].reverse().join('')}`);
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
    const ids = Array.from({ length: 300 }, (_, i) =>
      i === 250 ? 'person-gavin-shaw-leeds-0250' : `person-gavin-shaw-${i}`,
    );
    const path = out();
    await writePdf(path, {
      title: 'Ids',
      meta: [],
      columns: COLUMNS,
      rows: ids.map((id, i) => ({
        id,
        name: `Name ${i}`,
        description:
          'A description long enough to want the room of the page, and then some more words to wrap over two lines. '.repeat(
            2,
          ),
      })),
    });
    const runs = (await readPdf(path)).pages.flatMap((p) => p.runs.map((r) => r.text));
    for (const id of ids) expect(runs, id).toContain(id);
  });
});

describe('PDF report: the Northwind findings read as a report', () => {
  const NOW = new Date('2026-11-26T12:00:00Z');
  /** The report's order of types: problems and opportunities first. */
  const ORDER = ['problem', 'opportunity', 'kpi', 'process', 'system', 'department', 'person'];
  const HEADINGS: Record<string, string> = {
    problem: 'Problems',
    opportunity: 'Opportunities',
    kpi: 'KPIs',
    process: 'Processes',
    system: 'Systems',
    department: 'Departments',
    person: 'People',
  };
  let report: ReadPdf;
  let entities: { id: string; type: string; mention_count: number }[];
  let openConflicts: number;

  beforeAll(async () => {
    const db = openDb(join(tmp.dir, 'northwind-report'));
    try {
      loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture' });
      const vault = allVaults(db)[0]!;
      entities = db
        .prepare('SELECT id, type, mention_count FROM entities WHERE vault_id = ?')
        .all(vault.id) as typeof entities;
      openConflicts = (
        db.prepare("SELECT count(*) AS n FROM conflicts WHERE vault_id = ? AND status = 'open'").get(vault.id) as {
          n: number;
        }
      ).n;
      const path = out();
      const result = await writePdf(path, datasetTable(db, vault, 'findings', NOW, { printed: true }));
      expect(result.rows).toBe(72);
      report = await readPdf(path);
    } finally {
      db.close();
    }
  });

  const countOf = (type: string) => entities.filter((e) => e.type === type).length;
  const typesInOrder = () => ORDER.filter((t) => countOf(t) > 0);
  /** Section headings: bold 11 pt. */
  const isHeading = (r: { bold: boolean; size: number }) => r.bold && r.size === 11;

  it('opens on a summary: findings by type and open conflicts, above the first finding', () => {
    expect(entities).toHaveLength(72);
    expect(typesInOrder()).toHaveLength(7); // every type is in the fixture, so every group is checked
    const page = report.pages[0]!;
    // a figure is its number (bold, large) with its label just below it, in the same tile
    const figure = (label: string) => {
      const labelRun = page.runs.find((r) => !r.bold && r.text === label)!;
      expect(labelRun, label).toBeDefined();
      const value = page.runs.find(
        (r) => r.bold && r.size > 11 && Math.abs(r.x - labelRun.x) < 1 && r.y > labelRun.y && r.y - labelRun.y < 25,
      );
      return { text: value?.text, y: labelRun.y };
    };
    const figures = [figure('Findings'), ...typesInOrder().map((t) => figure(HEADINGS[t]!)), figure('Open conflicts')];
    expect(figures.map((f) => f.text)).toEqual([
      '72',
      ...typesInOrder().map((t) => String(countOf(t))),
      String(openConflicts),
    ]);
    const firstHeading = page.runs.find(isHeading)!;
    expect(firstHeading.text).toBe(`Problems (${countOf('problem')})`);
    for (const f of figures) expect(f.y).toBeGreaterThan(firstHeading.y);
    for (const s of ['Client', 'Northwind Logistics', '2026-11-26 12:00:00 UTC'])
      expect(page.runs.map((r) => r.text)).toContain(s);
    expect(page.text).not.toContain('(northwind-logistics)'); // plain words: no vault id
  });

  it('groups the findings by type, problems and opportunities first, each group most mentioned first, no heading left alone', () => {
    const headings = report.pages.flatMap((p) => p.runs.filter(isHeading).map((r) => r.text));
    expect(headings).toEqual(typesInOrder().map((t) => `${HEADINGS[t]} (${countOf(t)})`));
    // The Mentions cells, right-aligned under their header, read in drawing order (top to bottom, page by
    // page) and split at the section headings: each group holds exactly its type's counts, largest first.
    // A heading is never alone at the foot of a page: its group's first row is on the same page.
    const groups: number[][] = [];
    const headingPage: number[] = [];
    const firstRowPage: number[] = [];
    report.pages.forEach((page, p) => {
      const header = page.runs.find((r) => r.bold && r.text === 'Mentions')!;
      const right = header.x + header.width;
      for (const r of page.runs) {
        if (isHeading(r)) {
          groups.push([]);
          headingPage.push(p);
        } else if (!r.bold && /^\d+$/.test(r.text) && Math.abs(r.x + r.width - right) < 0.5) {
          if (groups.at(-1)!.length === 0) firstRowPage.push(p);
          groups.at(-1)!.push(Number(r.text));
        }
      }
    });
    const expected = typesInOrder().map((t) =>
      entities
        .filter((e) => e.type === t)
        .map((e) => e.mention_count)
        .sort((a, b) => b - a),
    );
    expect(groups).toEqual(expected);
    expect(firstRowPage).toEqual(headingPage);
  });

  it('shows no internal id: no Id column, no entity id in the text', () => {
    for (const page of report.pages) {
      expect(page.runs.filter((r) => r.bold).map((r) => r.text)).not.toContain('Id');
      for (const e of entities) expect(page.text, e.id).not.toContain(e.id);
    }
  });

  it('never cuts its running header or footer: the whole title on every page, the generation time in every footer', () => {
    expect(report.pages.length).toBeGreaterThan(1);
    const cut = report.pages.flatMap((page) =>
      page.runs.filter((r) => r.text.endsWith('…') || r.text.endsWith('...')).map((r) => r.text),
    );
    expect(cut).toEqual([]);
    report.pages.forEach((page, i) => {
      const texts = page.runs.map((r) => r.text);
      expect(texts).toContain(`Page ${i + 1} of ${report.pages.length}`);
      expect(texts).toContain('Generated 2026-11-26 12:00:00 UTC by vault-tools');
      if (i > 0) expect(texts).toContain('Findings: Northwind Logistics');
    });
  });
});

describe('PDF report: running header', () => {
  it('wraps a title too long for one line instead of cutting it', async () => {
    const title = `Findings: ${'Northwind Logistics Warehouse Operations Discovery '.repeat(4).trim()}`;
    const path = out();
    await writePdf(path, {
      title,
      meta: [],
      columns: COLUMNS,
      rows: Array.from({ length: 300 }, (_, i) => ({
        id: `id-${i}`,
        name: `Name ${i}`,
        description: 'A description of the finding.',
      })),
    });
    const pages = (await readPdf(path)).pages;
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages.slice(1)) {
      // the running header: bold 8 pt lines at the top of the page
      const header = page.runs.filter((r) => r.bold && r.size === 8 && r.y > page.height - 60);
      expect(header.length).toBeGreaterThan(1);
      expect(header.map((r) => r.text).join(' ')).toBe(title);
    }
  });
});
