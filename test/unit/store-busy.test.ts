/**
 * A write that cannot get the store's write lock within the busy timeout (another process holds it) answers
 * a retryable `store_busy` (503), stores nothing, and succeeds once the lock is free: never a 500.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import { openDb, type Db } from '../../src/store/db.js';
import { Service } from '../../src/service/invoke.js';
import { tempDir } from '../helpers.js';

let dir: { dir: string; cleanup(): void };
let mine: Db;
let other: Db;

beforeEach(() => {
  dir = tempDir();
  mine = openDb(dir.dir);
  other = openDb(dir.dir); // a second connection stands for another process
  mine
    .prepare(
      "INSERT INTO vaults (id, name, board_prefix, origin, loaded_at) VALUES ('v1', 'Vault one', 'ONE', 'import', '2026-01-01T00:00:00Z')",
    )
    .run();
});
afterEach(() => {
  if (other.inTransaction) other.exec('ROLLBACK');
  mine.close();
  other.close();
  dir.cleanup();
});

const taskCount = () => mine.prepare("SELECT count(*) FROM tasks WHERE vault_id = 'v1'").pluck().get() as number;

describe('a write while another process holds the write lock', () => {
  it('answers store_busy (503) after the busy timeout, stores nothing, and goes through once the lock is free', async () => {
    const principal = authenticate(mine, createKey(mine, { name: 'manager', role: 'manager', vaults: '*' }).key);
    const service = new Service(mine, { dataDir: dir.dir });
    mine.pragma('busy_timeout = 50'); // the real timeout is seconds; the answer is the same
    other.exec('BEGIN IMMEDIATE');
    const busy = await service.invoke('add_task', { vault: 'v1', title: 'while locked' }, principal);
    expect(busy).toMatchObject({ ok: false, status: 503, code: 'store_busy' });
    expect(busy.ok === false && busy.message).toMatch(/busy with another process's write.*nothing was written.*Retry/);
    other.exec('COMMIT');
    expect(taskCount()).toBe(0);
    const after = await service.invoke('add_task', { vault: 'v1', title: 'after the lock' }, principal);
    expect(after).toMatchObject({ ok: true, data: { identifier: 'ONE-1' } });
    expect(taskCount()).toBe(1);
  });
});
