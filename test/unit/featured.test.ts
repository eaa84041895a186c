/**
 * What a findings deliverable features (src/render/export/featured.ts), on the Northwind fixture in a real
 * store: the most mentioned problems and opportunities with a line and a quote each, every open conflict with
 * its claims, the problems by mentions for the chart.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { featureFindings, oneLine, strongestQuote } from '../../src/render/export/featured.js';
import { openDb } from '../../src/store/db.js';
import { allVaults } from '../../src/store/vaults.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

const tmp = tempDir('vt-featured-');
afterAll(() => tmp.cleanup());

describe('featureFindings', () => {
  const db = openDb(tmp.dir);
  loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture' });
  const vault = allVaults(db)[0]!;
  const featured = featureFindings(db, vault);
  const mentions = (type: string) =>
    db
      .prepare('SELECT mention_count FROM entities WHERE vault_id = ? AND type = ? ORDER BY mention_count DESC')
      .pluck()
      .all(vault.id, type) as number[];
  afterAll(() => db.close());

  it('features the three most mentioned problems and opportunities, each with a line and a quote', () => {
    expect(featured.problems.map((p) => p.mentions)).toEqual(mentions('problem').slice(0, 3));
    expect(featured.opportunities.map((p) => p.mentions)).toEqual(mentions('opportunity').slice(0, 3));
    for (const f of [...featured.problems, ...featured.opportunities]) {
      expect(f.line.length, f.name).toBeGreaterThan(10);
      expect(f.quote?.speaker, f.name).toBeTruthy();
      expect(f.quote?.meeting, f.name).toBeTruthy();
      expect(f.quote?.date, f.name).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
  });

  it('holds every open conflict with both its claims, the headline numbers and the chart data', () => {
    const open = db
      .prepare("SELECT count(*) FROM conflicts WHERE vault_id = ? AND status = 'open'")
      .pluck()
      .get(vault.id) as number;
    expect(featured.openConflicts).toHaveLength(open);
    for (const c of featured.openConflicts) expect(c.claims.length, c.title).toBe(2);
    expect(featured.headline.find((h) => h.label === 'Open conflicts')?.value).toBe(String(open));
    expect(featured.problemsByMentions.map((p) => p.mentions)).toEqual(mentions('problem').slice(0, 8));
  });
});

describe('strongestQuote and oneLine', () => {
  it('prefers a quote with a number, readable in length, then the latest', () => {
    const q = (quote: string, date: string) => ({ quote, speaker: 'A', date });
    expect(
      strongestQuote([
        q('the RF guns drop the Wi-Fi', '2026-11-01'),
        q('Detention charges were two hundred and fourteen thousand, 214k year to date', '2026-10-01'),
      ])?.date,
    ).toBe('2026-10-01');
    expect(
      strongestQuote([
        q('It is slow on the dock every single afternoon shift', '2026-10-01'),
        q('It is slow on the dock every single morning shift too', '2026-11-01'),
      ])?.date,
    ).toBe('2026-11-01');
    expect(strongestQuote([])).toBeUndefined();
  });

  it("keeps a description's first sentence, cut at a word", () => {
    expect(oneLine('Carriers charge £45 per hour. Second sentence.')).toBe('Carriers charge £45 per hour.');
    const long = oneLine(`${'word '.repeat(60)}end.`, 40);
    expect(long.endsWith('…')).toBe(true);
    expect(long.length).toBeLessThanOrEqual(40);
  });
});
