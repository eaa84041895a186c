/**
 * Idempotency keys where two services share one store (two `serve` processes on one data dir): neither knows the
 * other's running calls, so they meet in the write transaction. The second commit is rolled back and answered as
 * a repeat is: the first answer for the same call, idempotency_key_reused for another. And a store from before
 * keys were per caller keeps answering the retries of its keyed writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/service/invoke.js';
import { openDb, storePath, loadSqlite } from '../../src/store/db.js';
import { harness, type Harness } from '../harness.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

let h: Harness;
let elsewhere: Service;

beforeAll(() => {
  h = harness();
  elsewhere = new Service(h.db, { dataDir: h.dir });
});
afterAll(() => h.close());

const workbook = (title: string) => ({
  title,
  sheets: [{ name: 'KPIs', columns: [{ header: 'KPI', key: 'kpi' }], rows: [{ kpi: 'Accuracy' }] }],
});

describe('Idempotency-Key across two services on one store', () => {
  it('the same call at once from both: one write, the same answer twice', async () => {
    const vault = h.vaults[0]!;
    const options = { idempotencyKey: 'two-services-same-call' };
    const args = { vault, ...workbook('Twice from two services') };
    const [a, b] = await Promise.all([
      h.service.invoke('export_workbook', args, h.principals.owner, options),
      elsewhere.invoke('export_workbook', args, h.principals.owner, options),
    ]);
    expect(a.ok && b.ok, JSON.stringify([a, b])).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(b.data).toEqual(a.data);
    expect([a.replayed, b.replayed].filter(Boolean)).toHaveLength(1);
    expect(h.outbox(vault).filter((e) => e.args.title === 'Twice from two services')).toHaveLength(1);
  });

  it('other arguments at once from both: one is done, the other is refused with idempotency_key_reused', async () => {
    const vault = h.vaults[0]!;
    const options = { idempotencyKey: 'two-services-other-args' };
    const results = await Promise.all([
      h.service.invoke('export_workbook', { vault, ...workbook('Other args, first') }, h.principals.owner, options),
      elsewhere.invoke('export_workbook', { vault, ...workbook('Other args, second') }, h.principals.owner, options),
    ]);
    const done = results.filter((r) => r.ok === true);
    const refused = results.filter((r) => !r.ok);
    expect(done, JSON.stringify(results)).toHaveLength(1);
    expect(refused[0]).toMatchObject({ ok: false, status: 409, code: 'idempotency_key_reused' });
    const stored = h.outbox(vault).filter((e) => String(e.args.title).startsWith('Other args'));
    expect(stored.map((e) => e.args.title)).toEqual([done[0]!.data.title]);
  });
});

describe('a store from before keys were per caller (schema 8)', () => {
  it('is migrated so that a retry of an earlier keyed write still gets its first answer', async () => {
    const vault = h.vaults[0]!;
    const args = { vault, title: 'Keyed before the upgrade' };
    const first = await h.service.invoke('add_task', args, h.principals.owner, {
      idempotencyKey: 'before-the-upgrade',
    });
    expect(first.ok).toBe(true);
    // What schema 8 held: the caller's key as the entry's id, no idempotency_key column.
    const raw = new Database(storePath(h.dir));
    raw.exec(`DROP INDEX outbox_idempotency_key; ALTER TABLE outbox DROP COLUMN idempotency_key;
      UPDATE outbox SET idempotency_id = 'before-the-upgrade' WHERE json_extract(args_json, '$.title') = 'Keyed before the upgrade';
      PRAGMA user_version = 8;`);
    raw.close();
    const upgraded = openDb(h.dir);
    try {
      const again = await new Service(upgraded, { dataDir: h.dir }).invoke('add_task', args, h.principals.owner, {
        idempotencyKey: 'before-the-upgrade',
      });
      expect(again).toMatchObject({ ok: true, replayed: true });
      expect(again.ok && first.ok && again.data).toEqual(first.ok && first.data);
    } finally {
      upgraded.close();
    }
  });
});
