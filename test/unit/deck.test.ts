/**
 * export_deck (issue 40): the .pptx a consultant presents, read back from its XML (unzipped with jszip, which
 * pptxgenjs writes with): the slides in order, the featured quotes with their speakers, both claims of every
 * open conflict, the chart pictures, the speaker notes' evidence; an empty vault's short deck; hostile names
 * kept as text; text cut at word boundaries to fit its box. LibreOffice opening it: test/e2e/deck-libreoffice.test.ts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../harness.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { evidenceOf } from '../../src/store/entities.js';
import { listConflicts } from '../../src/store/conflicts.js';
import { fitText, linesIn, slideText, wrapLines } from '../../src/render/deck/fit.js';
import { featureFindings, strongestQuote } from '../../src/render/export/featured.js';
import { FIXTURE_DIRS } from '../helpers.js';

const NW = 'northwind-logistics';
const NOW = new Date('2026-11-27T12:00:00Z');

interface Deck {
  slides: string[];
  notes: string[];
  media: string[];
  /** Every slide's text runs joined, as a reader shows them (XML entities decoded). */
  texts: string[];
  presentation: string;
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
const runs = (xml: string) => [...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => decode(m[1]!)).join(' ');

async function readDeck(url: string): Promise<Deck> {
  const zip = await JSZip.loadAsync(readFileSync(fileURLToPath(url)));
  const numbered = (re: RegExp) =>
    Object.keys(zip.files)
      .filter((n) => re.test(n))
      .sort((a, b) => Number(a.match(/(\d+)\.xml$/)![1]) - Number(b.match(/(\d+)\.xml$/)![1]));
  const slides = await Promise.all(numbered(/^ppt\/slides\/slide\d+\.xml$/).map((n) => zip.file(n)!.async('string')));
  const notes = await Promise.all(
    numbered(/^ppt\/notesSlides\/notesSlide\d+\.xml$/).map((n) => zip.file(n)!.async('string')),
  );
  return {
    slides,
    notes: notes.map(runs),
    media: Object.keys(zip.files).filter((n) => n.startsWith('ppt/media/') && !n.endsWith('/')),
    texts: slides.map(runs),
    presentation: await zip.file('ppt/presentation.xml')!.async('string'),
  };
}

let h: Harness;
let nw: Record<string, any>;
let deck: Deck;

beforeAll(async () => {
  h = harness({ vaults: ['northwind'], now: NOW });
  nw = await h.ok('export_deck', { vault: NW });
  deck = await readDeck(nw.url);
}, 120_000);
afterAll(() => h.close());

describe('export_deck on the Northwind vault', () => {
  it('answers like export_report: a stored .pptx artifact with url and artifactId, one slide per outline entry', async () => {
    expect(nw).toMatchObject({
      kind: 'report',
      mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      fileName: 'northwind-logistics-deck-2026-11-27.pptx',
    });
    expect(nw.url).toMatch(/^file:\/\//);
    expect(readFileSync(fileURLToPath(nw.url)).subarray(0, 2).toString()).toBe('PK');
    expect(deck.slides).toHaveLength(nw.slides);
    expect(nw.outline[0]).toBe('Cover');
    expect(nw.outline.at(-1)).toBe('Sources');
    // 16:9 (13.333 × 7.5 in in EMU)
    expect(deck.presentation).toMatch(/<p:sldSz cx="12192000" cy="6858000"/);
    const found = await h.ok('find_artifact', { vault: NW, query: 'what we found' });
    expect(found.artifacts.map((a: { artifactId: string }) => a.artifactId)).toContain(nw.artifactId);
  });

  it('the cover names the engagement, the client and the date; the numbers slide the counts', () => {
    expect(deck.texts[0]).toContain('Northwind Logistics: what we found');
    expect(deck.texts[0]).toContain('Warehouse Operations Discovery for Northwind Logistics');
    expect(deck.texts[0]).toContain('27 November 2026');
    expect(deck.texts[1]).toMatch(/72 findings in the vault/);
    expect(deck.texts[1]).toMatch(/3 open conflicts/);
  });

  it('features the top problems and opportunities, each with its description, mentions and strongest quote with speaker, meeting and date', () => {
    const featured = nw.outline.flatMap((o: string, i: number) => (o.startsWith('Top ') ? [i] : []));
    expect(featured.length).toBeGreaterThanOrEqual(2);
    expect(nw.featured).toBe(6);
    const text = featured.map((i: number) => deck.texts[i]).join(' ');
    const top = h.db
      .prepare(
        "SELECT id, name, mention_count FROM entities WHERE vault_id = ? AND type = 'problem' ORDER BY mention_count DESC, id LIMIT 1",
      )
      .get(NW) as { id: string; name: string; mention_count: number };
    expect(text).toContain(top.name);
    expect(text).toContain(`${top.mention_count} mentions`);
    // the report's own choice of quote (src/render/export/featured.ts), with where it was said
    const evidence = evidenceOf(h.db, NW, top.id);
    const quote = strongestQuote(
      evidence.map((q) => ({
        quote: q.quote,
        speaker: q.speaker,
        meeting: q.meetingName,
        date: q.spokenAt.slice(0, 10),
        meetingId: q.meetingId,
      })),
    )!;
    expect(text).toContain(`“${quote.quote}”`);
    expect(text).toContain(`— ${quote.speaker}`);
    expect(text).toContain(quote.meeting);
    expect(text).toMatch(/\d{1,2} (Oct|Nov) 2026 · /);
    // every featured card carries a quote and its speaker
    expect((text.match(/— /g) ?? []).length).toBe(6);
    // the notes carry the evidence references: entity id, meeting id and turn, the call that shows all quotes
    const notes = featured.map((i: number) => deck.notes[i]).join('\n');
    expect(notes).toContain(`entity ${top.id}`);
    expect(notes).toContain(`meeting ${quote.meetingId}`);
    expect(notes).toMatch(/turn \d+/);
    expect(notes).toContain(`get_entity {"entityId": "${top.id}", "includeEvidence": true}`);
  });

  it("features the findings report's own choice: its top problems and opportunities with their quotes, and its open conflicts", () => {
    const report = featureFindings(h.db, { id: NW });
    const text = deck.texts.filter((_, i) => nw.outline[i].startsWith('Top ')).join(' ');
    for (const f of [...report.problems, ...report.opportunities]) {
      expect(text).toContain(f.name);
      if (f.quote) expect(text).toContain(`“${f.quote.quote.slice(0, 40)}`);
    }
    for (const c of report.openConflicts) expect(deck.texts.some((t) => t.includes(c.title))).toBe(true);
  });

  it('shows each open conflict with both claims side by side, each with its speaker', () => {
    const open = listConflicts(h.db, NW, { status: 'open' });
    expect(open.length).toBe(3);
    expect(nw.conflicts).toBe(3);
    for (const conflict of open) {
      const i = deck.texts.findIndex((t) => t.includes(conflict.title));
      expect(i, conflict.title).toBeGreaterThan(0);
      expect(nw.outline[i]).toBe('Open conflict');
      for (const claim of conflict.claims) {
        expect(deck.texts[i]).toContain(`“${claim.quote}”`);
        expect(deck.texts[i]).toContain(`— ${claim.speaker}`);
        expect(deck.notes[i]).toContain(claim.meetingId!);
      }
      expect(deck.notes[i]).toContain(conflict.id);
    }
  });

  it('carries the charts as PNG pictures drawn by the render_chart renderer, one a slide', async () => {
    expect(nw.charts).toBeGreaterThanOrEqual(2);
    const chartSlides = nw.outline.flatMap((o: string, i: number) => (o.startsWith('Chart: ') ? [i] : []));
    expect(chartSlides).toHaveLength(nw.charts);
    expect(nw.outline).toContain('Chart: Problems by how often they came up');
    expect(nw.outline).toContain('Chart: Opportunities by how often they came up');
    expect(nw.outline).not.toContain('Chart: Findings by type');
    for (const i of chartSlides) expect(deck.slides[i]).toMatch(/<p:pic>[\s\S]*r:embed="rId\d+"/);
    const pngs = deck.media.filter((m) => m.endsWith('.png'));
    expect(pngs.length).toBe(nw.charts);
    const zip = await JSZip.loadAsync(readFileSync(fileURLToPath(nw.url)));
    const png = await zip.file(pngs[0]!)!.async('nodebuffer');
    expect(png.readUInt32BE(16)).toBe(1600); // the renderer's slide canvas: 1600 × 900 px
    expect(png.readUInt32BE(20)).toBe(900);
  });

  it('ends on the next steps (open tasks by milestone, plan steps) and the sources (meetings with dates)', () => {
    const next = deck.texts[nw.outline.indexOf('Next steps')]!;
    expect(next).toMatch(/Open tasks by milestone \(\d+\)/);
    expect(next).toMatch(/NWL-\d+/);
    expect(next).toMatch(/Plan steps ahead/);
    const sources = deck.texts.at(-1)!;
    expect(sources).toContain('7 meetings recorded');
    expect(sources).toMatch(/12 Oct 2026 Kickoff/);
  });

  it('is local: no outbox entry for sync to push, and an Idempotency-Key does not apply', async () => {
    expect(h.outbox(NW).filter((e) => e.tool === 'export_deck')).toEqual([]);
    const tool = h.service.tool('export_deck')!;
    expect(tool.sync.localOnly).toBe(true);
    expect(tool.description).toMatch(/^LOCAL to vault-tools/);
  });

  it('refuses bad arguments naming the field', async () => {
    for (const [args, field] of [
      [{ focus: ['problem', 'problem'] }, 'focus'],
      [{ focus: ['risk'] }, 'focus.0'],
      [{ maxItems: 0 }, 'maxItems'],
      [{ title: '' }, 'title'],
    ] as const) {
      const r = await h.call('export_deck', { vault: NW, ...args });
      expect(r.ok, JSON.stringify(args)).toBe(false);
      if (!r.ok) expect(r.message).toContain(`\`${field}\``);
    }
    const member = await h.call('export_deck', { vault: NW }, 'member');
    expect(member).toMatchObject({ ok: false, code: 'forbidden' });
  });
});

describe('export_deck on other vaults', () => {
  it('an empty vault makes a short, honest deck, not an error', async () => {
    const f = readVaultDir(FIXTURE_DIRS.northwind);
    const empty = Object.fromEntries(
      Object.entries(f).map(([k, v]) => [k, Array.isArray(v) ? [] : v]),
    ) as unknown as typeof f;
    loadFixture(
      h.db,
      { ...empty, vault: { ...f.vault, id: 'empty-vault', name: 'Empty engagement' } },
      { origin: 'fixture', now: NOW },
    );
    const r = await h.ok('export_deck', { vault: 'empty-vault' });
    expect(r.outline).toEqual(['Cover', 'At a glance', 'Next steps', 'Sources']);
    expect(r).toMatchObject({ featured: 0, conflicts: 0, charts: 0 });
    const d = await readDeck(r.url);
    expect(d.texts[1]).toContain('Nothing has been extracted from this vault yet');
    expect(d.texts[2]).toContain('No open tasks on the board.');
    expect(d.texts[3]).toContain('No meetings are recorded in this vault yet.');
    expect(d.media).toEqual([]);
  });

  it('keeps hostile names as text: HTML escaped, bidi and control characters dropped', async () => {
    const hostile = '<img src=x onerror=alert(1)>\u202eexe.\u2066Carrier\u0007 & "Charges"';
    const top = h.db
      .prepare(
        "SELECT id FROM entities WHERE vault_id = ? AND type = 'problem' ORDER BY mention_count DESC, id LIMIT 1",
      )
      .pluck()
      .get(NW) as string;
    h.db
      .prepare('UPDATE entities SET name = ?, description = ? WHERE vault_id = ? AND id = ?')
      .run(hostile, `<script>alert(1)</script> ${'word '.repeat(2000)}`, NW, top);
    h.db
      .prepare("UPDATE conflicts SET title = ? WHERE vault_id = ? AND status = 'open'")
      .run('</a:t><a:t>injected', NW);
    const r = await h.ok('export_deck', { vault: NW });
    const d = await readDeck(r.url);
    const xml = d.slides.join('');
    expect(xml).not.toMatch(/<img|<script|\u202e|\u2066|\u0007/);
    expect(xml).toContain('&lt;img src=x onerror=alert(1)&gt;exe.Carrier &amp; &quot;Charges&quot;');
    expect(xml).not.toContain('<a:t>injected');
    expect(d.texts.join(' ')).toContain('</a:t><a:t>injected');
    // the 10,000-character description was cut at a word boundary to its box
    const card = d.texts.find((t) => t.includes('<script>alert(1)</script>'))!;
    expect(card).toMatch(/<script>alert\(1\)<\/script>( word)+…/);
    expect(card.length).toBeLessThan(3000);
  });
});

describe('fitting text to a box', () => {
  const box = { w: 3, h: 1, size: 12 };
  it('keeps text that fits, whole', () => {
    expect(fitText('A short line.', box)).toEqual({ text: 'A short line.', cut: false });
  });

  it('cuts at a word boundary with an ellipsis, within the lines the box holds', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const { text, cut } = fitText(long, box);
    expect(cut).toBe(true);
    expect(text).toMatch(/^word0 word1 .* word\d+…$/);
    expect(long.startsWith(text.slice(0, -1))).toBe(true);
    expect(linesIn(box.h, box.size)).toBe(5); // 72 pt of 12 pt lines at 1.2
    expect(wrapLines(text, box).length).toBe(5);
    expect(wrapLines(`${text} word`, box).length).toBeGreaterThanOrEqual(5);
    expect(fitText(long, { ...box, maxLines: 1 }).text.split(' ').length).toBeLessThan(6);
  });

  it('cuts a single word too long for the box by characters', () => {
    const { text } = fitText('x'.repeat(500), { ...box, maxLines: 1 });
    expect(text).toMatch(/^x+…$/);
    expect(text.length).toBeLessThan(60);
  });

  it('cuts a word wider than a line (a URL, an id) by characters rather than dropping it whole', () => {
    const { text } = fitText(`See https://example.com/${'a'.repeat(300)} for more`, { ...box, maxLines: 2 });
    expect(text).toMatch(/^See https:\/\/example\.com\/a+…$/);
    expect(wrapLines(text, box).length).toBe(2);
    expect(wrapLines(text.replace('…', 'aaaaaaaaa…'), box).length).toBeGreaterThan(2);
  });

  it('makes vault text safe for a slide', () => {
    expect(slideText('a\u202eb\u2067c\u0000d\ufffe e\r\nf')).toBe('abcd e\nf');
    expect(slideText(null)).toBe('');
  });
});
