/** Loading fixture vaults: date shifting, derived mention counts, all-or-nothing writes, and what a load refuses. */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture, shiftDates, shiftDaysFor } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { countMentions, normalize } from '../../src/store/text.js';
import { appendOutbox } from '../../src/store/outbox.js';
import { LoadRefused } from '../../src/load/target.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';
import { tinyVault, writeTinyVault } from '../tiny-vault.js';

let db: Db;
let dataDir: string;
let cleanup: () => void;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  dataDir = t.dir;
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
    const row = db
      .prepare('SELECT mention_count FROM entities WHERE vault_id = ? AND id = ?')
      .get(f.vault.id, e.id) as { mention_count: number };
    expect(row.mention_count).toBe(expected);
    expect(expected).toBeGreaterThan(0);
  });

  it('a load that fails half-way changes nothing: the earlier copy of the vault stays whole', () => {
    const f = readVaultDir(FIXTURE_DIRS.northwind);
    loadFixture(db, f, { origin: 'fixture' });
    const count = () =>
      db.prepare('SELECT (SELECT count(*) FROM entities) + (SELECT count(*) FROM transcript_turns) AS n').pluck().get();
    const before = count();
    // Bypass validation: an edge to a missing entity fails on the foreign key, after many rows were written.
    const broken = { ...f, edges: [...f.edges, { from: f.entities[0]!.id, to: 'no-such-entity', relation: 'breaks' }] };
    expect(() => loadFixture(db, broken, { origin: 'import', force: true })).toThrow(/FOREIGN KEY/);
    expect(count()).toBe(before);
    expect(db.prepare('SELECT origin FROM vaults WHERE id = ?').pluck().get(f.vault.id)).toBe('fixture');
  });

  it('the same files within the same week are a no-op; the next week reloads', () => {
    const f = readVaultDir(FIXTURE_DIRS.northwind); // reference day Friday 20 November 2026
    const day1 = new Date('2027-01-05T08:00:00Z');
    expect(loadFixture(db, f, { origin: 'fixture', now: day1 }).skipped).toBe(false);
    expect(loadFixture(db, f, { origin: 'fixture', now: new Date('2027-01-05T22:00:00Z') }).skipped).toBe(true);
    expect(loadFixture(db, f, { origin: 'fixture', now: new Date('2027-01-07T08:00:00Z') }).skipped).toBe(true);
    expect(loadFixture(db, f, { origin: 'fixture', now: new Date('2027-01-08T08:00:00Z') }).skipped).toBe(false);
  });
});

describe('what a load may not do to the store', () => {
  const tiny = (id: string, name: string) =>
    readVaultDir(writeTinyVault(join(dataDir, `vault-${id}`), tinyVault({ id, name })));
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (err) {
      if (err instanceof LoadRefused) return err.message;
      throw err;
    }
    throw new Error('expected the load to be refused');
  };

  it('refuses a name another vault has (ignoring case), or has as its id, and an id another vault has as its name', () => {
    loadFixture(db, tiny('alpha', 'gamma'), { origin: 'import' });
    loadFixture(db, tiny('beta', 'Beta Books'), { origin: 'import' });
    expect(refusal(() => loadFixture(db, tiny('delta', 'BETA BOOKS'), { origin: 'import' }))).toBe(
      'vault "delta": the name "BETA BOOKS" is already used by vault "beta" ("Beta Books"), and names are unique in a store (ignoring case). Fix: give it another "name" in its vault.json, or set its "id" to "beta" to replace that vault.',
    );
    expect(refusal(() => loadFixture(db, tiny('delta', 'alpha'), { origin: 'import' }))).toBe(
      'vault "delta": the name "alpha" is the id of vault "alpha" ("gamma"), so tools given "alpha" would reach that vault, never this one. Fix: give it another "name" in its vault.json.',
    );
    expect(refusal(() => loadFixture(db, tiny('gamma', 'Gamma Books'), { origin: 'import' }))).toBe(
      'vault "gamma": the id "gamma" is the name of vault "alpha", which tools would then reach only by its id. Fix: give it another "id" in its vault.json.',
    );
    expect(db.prepare('SELECT id FROM vaults ORDER BY id').pluck().all()).toEqual(['alpha', 'beta']);
  });

  it('refuses to replace a vault with unpushed local writes; discarding them drops their outbox entries, and only theirs', () => {
    loadFixture(db, tiny('alpha', 'Alpha Books'), { origin: 'import' });
    loadFixture(db, tiny('beta', 'Beta Books'), { origin: 'import' });
    const principal = {
      keyId: 'k',
      name: 'test',
      role: 'manager' as const,
      allVaults: true,
      vaultIds: new Set<string>(),
    };
    const write = (vaultId: string, tool: string) =>
      appendOutbox(db, { vaultId, tool, args: {}, result: null, principal, at: '2026-01-10T10:00:00Z' });
    write('alpha', 'add_task');
    write('alpha', 'add_task');
    const refused = write('alpha', 'resolve_conflict');
    const pushed = write('alpha', 'send_email');
    write('beta', 'add_task');
    db.prepare("UPDATE outbox SET status = 'failed' WHERE seq = ?").run(refused.seq);
    db.prepare("UPDATE outbox SET status = 'pushed' WHERE seq = ?").run(pushed.seq);

    expect(refusal(() => loadFixture(db, tiny('alpha', 'Alpha Books'), { origin: 'import', force: true }))).toBe(
      'vault "alpha" has local work not pushed upstream, which re-importing would discard: add_task 2, resolve_conflict 1 (3 outbox entries: 2 pending, 1 failed). Fix: push it first (vault-tools sync), or import with --force to discard it (its outbox entries are then dropped too: they name records the import replaces).',
    );
    const r = loadFixture(db, tiny('alpha', 'Alpha Books'), { origin: 'import', force: true, discardLocalWork: true });
    expect(r.discarded).toEqual({
      entries: 3,
      pending: 2,
      failed: 1,
      byTool: [
        ['add_task', 2],
        ['resolve_conflict', 1],
      ],
    });
    expect(db.prepare('SELECT vault_id, tool, status FROM outbox ORDER BY seq').all()).toEqual([
      { vault_id: 'alpha', tool: 'send_email', status: 'pushed' },
      { vault_id: 'beta', tool: 'add_task', status: 'pending' },
    ]);
  });
});
