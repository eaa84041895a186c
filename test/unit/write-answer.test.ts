/**
 * A write's answer is committed with the write (issue 53): what a replay returns and what the caller is told are
 * in the write's own transaction. The store is made to fail right after the write's COMMIT (every statement run
 * outside a transaction answers SQLITE_BUSY, as a store locked by another process's write does once the busy
 * timeout runs out): the write must be there once, the caller must not be told "nothing was written", and a
 * replay under the same Idempotency-Key must give the tool's whole answer, not the write step's bare result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqlite, type Db } from '../../src/store/db.js';
import { harness, type Harness } from '../harness.js';

const Database = loadSqlite();

let h: Harness;
beforeAll(() => {
  h = harness({ vaults: ['northwind'] });
});
afterAll(() => h.close());

/**
 * From the moment `db` appends an outbox entry (inside a write's transaction) until `stop()`, every statement `db`
 * runs outside a transaction throws SQLITE_BUSY: the store fails right after the write commits.
 */
function failAfterCommit(db: Db): { stop: () => void; failures: () => number } {
  const probe = db.prepare('SELECT 1');
  const proto = Object.getPrototypeOf(probe) as Record<
    'run' | 'get' | 'all' | 'iterate',
    (...args: unknown[]) => unknown
  > & { database?: Db };
  const originals = { run: proto.run, get: proto.get, all: proto.all, iterate: proto.iterate };
  let armed = false;
  let failures = 0;
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    proto[method] = function (this: { database: Db; source: string }, ...args: unknown[]) {
      if (this.database === db) {
        if (db.inTransaction && /^\s*INSERT INTO outbox/.test(this.source)) armed = true;
        else if (armed && !db.inTransaction) {
          failures++;
          throw new Database.SqliteError('database is locked', 'SQLITE_BUSY');
        }
      }
      return originals[method].apply(this, args);
    };
  }
  return { stop: () => Object.assign(proto, originals), failures: () => failures };
}

describe('a failure right after a write commits', () => {
  it('leaves one task, never says "nothing was written", and a replay answers the whole task', async () => {
    const vault = h.vaults[0]!;
    const title = 'Written once, answered whole';
    const options = { idempotencyKey: 'after-commit-failure' };
    const failing = failAfterCommit(h.db);
    let first;
    try {
      first = await h.call('add_task', { vault, title }, 'owner', options);
    } finally {
      failing.stop();
    }
    if (!first.ok) expect(first.message).not.toMatch(/nothing was written/i);

    const tasks = (await h.ok('list_tasks', { vault })).tasks as { title: string; identifier: string }[];
    const written = tasks.filter((t) => t.title === title);
    expect(written).toHaveLength(1);

    const replay = await h.call('add_task', { vault, title }, 'owner', options);
    expect(replay.ok, JSON.stringify(replay)).toBe(true);
    if (!replay.ok) return;
    expect(replay.replayed).toBe(true);
    // The whole answer (the add_task output schema), read independently from list_tasks and the outbox.
    const entry = h.outbox(vault).find((e) => e.args.title === title)!;
    expect(replay.data).toMatchObject({
      identifier: written[0]!.identifier,
      title,
      status: 'todo',
      outboxSeq: entry.seq,
    });
    if (first.ok) expect(replay.data).toEqual(first.data);
    expect(h.outbox(vault).filter((e) => e.args.title === title)).toHaveLength(1);
  });
});
