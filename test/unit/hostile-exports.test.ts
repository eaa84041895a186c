/**
 * Issue 45, items 10–13: every export writes a well-formed file for any text the store can hold, bounded by
 * documented limits. Each test reproduces one item of the issue on the Meridian vault:
 * - 11: a finding named with U+FFFE: export_deck answered internal_error, and the findings PDF left its chart out;
 * - 12: U+FFFE (and U+0001, a lone surrogate) in a description made the xlsx unreadable;
 * - 13: a conflict's claims had no bound: all went into the deck's notes and, side by side, into the PDF's summary;
 *   here 4 × 3,000 claims (the 4 × 15,000 made a 358 MB deck and a PDF that ran out of memory).
 * Item 10 (a client "Procter & Gamble", U+0001 in a vault name, U+000B in a title, U+0001 in an id) is in
 * test/unit/deck-package.test.ts with the package checks. Files are read back with real readers: saxes for
 * every XML part, exceljs for the workbook, pdf.js for the PDF.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../harness.js';
import { checkPackage } from '../ooxml-check.js';
import { insertConflict } from '../../src/store/conflicts.js';
import { xmlSafe } from '../../src/core/xml-text.js';

const MH = 'meridian-health';
const NOW = new Date('2026-11-27T12:00:00Z');
let h: Harness;
let top: string;

const path = (url: string) => fileURLToPath(url);

/** The XML parts of a zip that a conformant XML parser refuses, with its message. */
async function malformedParts(file: string): Promise<string[]> {
  const zip = await JSZip.loadAsync(readFileSync(file));
  const bad: string[] = [];
  for (const name of Object.keys(zip.files).filter((n) => /\.(xml|rels)$/.test(n))) {
    const parser = new SaxesParser({ xmlns: true });
    let error: string | undefined;
    parser.on('error', (e) => (error ??= e.message));
    try {
      parser.write(await zip.file(name)!.async('string')).close();
    } catch (e) {
      error ??= (e as Error).message;
    }
    if (error) bad.push(`${name}: ${error}`);
  }
  return bad;
}

async function pdf(file: string) {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(readFileSync(file)),
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  const pages: { text: string; images: number }[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    const text = (await page.getTextContent()).items
      .map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : ' ') : ''))
      .join('');
    const ops = await page.getOperatorList();
    pages.push({ text, images: ops.fnArray.filter((f) => f === pdfjs.OPS.paintImageXObject).length });
  }
  await doc.destroy();
  return pages;
}

beforeAll(() => {
  h = harness({ vaults: ['meridian'], now: NOW });
  top = h.db
    .prepare("SELECT id FROM entities WHERE vault_id = ? AND type = 'problem' ORDER BY mention_count DESC, id LIMIT 1")
    .pluck()
    .get(MH) as string;
});
afterAll(() => h.close());

describe('one character the XML cannot carry', () => {
  it('xmlSafe drops what XML 1.0 cannot carry and keeps the rest, astral characters included', () => {
    expect(xmlSafe('a\u0001b\u0008c\u000bd\u000ce\ufffef\uffffg')).toBe('abc d efg');
    expect(xmlSafe('tab\tline\ncr\r')).toBe('tab\tline\ncr\r');
    expect(xmlSafe('lone \ud800 and \udc00, pair \ud83d\ude00')).toBe('lone \ufffd and \ufffd, pair \ud83d\ude00');
    expect(xmlSafe('€ é 漢 \ufffd \ue000')).toBe('€ é 漢 \ufffd \ue000');
  });

  it('item 11: a finding named with U+FFFE makes a deck (not internal_error) that passes the package checks', async () => {
    h.db.prepare('UPDATE entities SET name = ? WHERE vault_id = ? AND id = ?').run('ED\ufffe Boarding', MH, top);
    const r = await h.call('export_deck', { vault: MH });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (r.ok) expect(await checkPackage(readFileSync(path(r.data.url as string)))).toEqual([]);
  });

  it('item 11: the findings PDF keeps its chart when a finding is named with U+FFFE', async () => {
    h.db.prepare('UPDATE entities SET name = ? WHERE vault_id = ? AND id = ?').run('ED\ufffe Boarding\uffff', MH, top);
    const r = await h.ok('export_report', { vault: MH, dataset: 'findings', format: 'pdf' });
    const pages = await pdf(path(r.url));
    expect(pages[0]!.images, 'the chart of problems by mentions on the first page').toBe(1);
    expect(pages[0]!.text).toContain('ED Boarding');
  });

  it('item 12: U+FFFE, U+0001 and a lone surrogate in a description leave the xlsx readable', async () => {
    h.db
      .prepare('UPDATE entities SET description = ? WHERE vault_id = ? AND id = ?')
      .run('Held\ufffe in ED\u0001 for hours \ud800 <b>&</b>', MH, top);
    for (const dataset of ['findings', 'conflicts'] as const) {
      const r = await h.ok('export_report', { vault: MH, dataset, format: 'xlsx' });
      expect(await malformedParts(path(r.url)), dataset).toEqual([]);
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(path(r.url));
      if (dataset === 'findings') {
        const cells = book.worksheets[0]!.getSheetValues().flat().map(String);
        expect(cells).toContain('Held in ED for hours \ufffd <b>&</b>');
      }
    }
  });
});

describe('item 13: a conflict of thousands of claims', () => {
  const CLAIMS = 3_000;
  beforeAll(() => {
    const meeting = h.db.prepare('SELECT id FROM meetings WHERE vault_id = ? LIMIT 1').pluck().get(MH) as string;
    for (let c = 0; c < 4; c++) {
      insertConflict(h.db, MH, {
        id: `zz-many-claims-${c}`,
        entityId: top,
        title: `Many claims ${c}`,
        status: 'open',
        note: null,
        createdAt: '2026-11-01T00:00:00Z',
        updatedAt: '2026-11-01T00:00:00Z',
        claims: Array.from({ length: CLAIMS }, (_, i) => ({
          meetingId: meeting,
          turnIndex: i,
          speaker: `Speaker ${i}`,
          quote: `Claim number ${i} of conflict ${c}, said with some words around it`,
          spokenAt: '2026-11-01T10:00:00Z',
        })),
      });
    }
  });

  it('the deck cites at most 10 claims of each in its notes and counts the rest; its size does not grow with them', async () => {
    const r = await h.ok('export_deck', { vault: MH, focus: ['kpi'], maxItems: 1 });
    expect(r.conflicts).toBe(4);
    const zip = await JSZip.loadAsync(readFileSync(path(r.url)));
    const notes = await Promise.all(
      Object.keys(zip.files)
        .filter((n) => /notesSlide\d+\.xml$/.test(n))
        .map((n) => zip.file(n)!.async('string')),
    );
    const many = notes.filter((n) => n.includes('zz-many-claims-'));
    // The first four open conflicts by title: the vault's own three, then "Many claims 0".
    expect(many.length).toBeGreaterThanOrEqual(1);
    for (const n of many) {
      expect(n.match(/Claim \d+: /g)!.length).toBe(10);
      expect(n).toContain(`And ${(CLAIMS - 10).toLocaleString('en-GB')} more claims`);
    }
    expect(r.sizeBytes).toBeLessThan(400_000);
  });

  it('the findings PDF lists the open conflicts with three claims side by side and "and N more"', async () => {
    const r = await h.ok('export_report', { vault: MH, dataset: 'findings', format: 'pdf' });
    const text = (await pdf(path(r.url))).map((p) => p.text).join('\n');
    expect(text).toContain('Many claims 0');
    expect(text).toContain(`and ${(CLAIMS - 3).toLocaleString('en')} more claims`);
    expect(text).not.toContain('Claim number 3 of conflict 0');
  });

  it('the conflicts report holds 50 claims a conflict, then how many more', async () => {
    const r = await h.ok('export_report', { vault: MH, dataset: 'conflicts', format: 'csv' });
    const csv = readFileSync(path(r.url), 'utf8');
    expect(csv).toContain(`… and ${(CLAIMS - 50).toLocaleString('en')} more claims`);
    expect(csv).not.toContain('Claim number 50 of conflict 0');
    expect(csv.length).toBeLessThan(200_000);
  });
});
