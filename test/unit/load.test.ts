/** Loading fixture vaults: date shifting, derived mention counts, and all-or-nothing writes. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture, shiftDates, shiftDaysFor } from '../../src/fixtures/load.js';
import { readVaultDir } from '../../src/fixtures/read.js';
import { countMentions, normalize } from '../../src/store/text.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

let db: Db;
let cleanup: () => void;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDb(t.dir);
});
afterEach(() => {
  db.close();
  cleanup();
});

describe('loading a fixture vault', () => {
  it("shifts every date so the reference day becomes today's", () => {
    const f = readVaultDir(FIXTURE_DIRS.northwind);
    const now = new Date('2027-03-10T15:00:00Z');
    const days = shiftDaysFor(f.vault.referenceDate, now);
    const shifted = shiftDates(f, days);
    const m = f.meetings[0]!;
    const sm = shifted.meetings[0]!;
    expect(Date.parse(sm.startedAt) - Date.parse(m.startedAt)).toBe(days * 86_400_000);
    expect(shifted.milestones[0]!.targetDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sm.transcript[3]!.at).toBe(m.transcript[3]!.at); // offsets in seconds are not dates
    expect(sm.transcript[3]!.text).toBe(m.transcript[3]!.text);
  });

  it('derives mention counts from the extracted transcripts', () => {
    const f = readVaultDir(FIXTURE_DIRS.meridian);
    loadFixture(db, f, { origin: 'fixture' });
    const e = f.entities.find((x) => x.aliases.length && x.source === 'meeting')!;
    const terms = [e.name, ...e.aliases].map(normalize);
    const expected = f.meetings
      .filter((m) => m.extractionStatus === 'extracted')
      .reduce((n, m) => n + countMentions(normalize(m.transcript.map((t) => t.text).join('\n')), terms), 0);
    const row = db.prepare('SELECT mention_count FROM entities WHERE vault_id = ? AND id = ?').get(f.vault.id, e.id) as { mention_count: number };
    expect(row.mention_count).toBe(expected);
    expect(expected).toBeGreaterThan(0);
  });

  it('a load that fails half-way changes nothing: the earlier copy of the vault stays whole', () => {
    const f = readVaultDir(FIXTURE_DIRS.northwind);
    loadFixture(db, f, { origin: 'fixture' });
    const count = () => db.prepare('SELECT (SELECT count(*) FROM entities) + (SELECT count(*) FROM transcript_turns) AS n').pluck().get();
    const before = count();
    // Bypass validation: an edge to a missing entity fails on the foreign key, after many rows were written.
    const broken = { ...f, edges: [...f.edges, { from: f.entities[0]!.id, to: 'no-such-entity', relation: 'breaks' }] };
    expect(() => loadFixture(db, broken, { origin: 'import', force: true })).toThrow(/FOREIGN KEY/);
    expect(count()).toBe(before);
    expect(db.prepare('SELECT origin FROM vaults WHERE id = ?').pluck().get(f.vault.id)).toBe('fixture');
  });

  it('the same files on the same day are a no-op; another day reloads', () => {
    const f = readVaultDir(FIXTURE_DIRS.northwind);
    const day1 = new Date('2027-01-05T08:00:00Z');
    expect(loadFixture(db, f, { origin: 'fixture', now: day1 }).skipped).toBe(false);
    expect(loadFixture(db, f, { origin: 'fixture', now: new Date('2027-01-05T22:00:00Z') }).skipped).toBe(true);
    expect(loadFixture(db, f, { origin: 'fixture', now: new Date('2027-01-06T08:00:00Z') }).skipped).toBe(false);
  });
});
