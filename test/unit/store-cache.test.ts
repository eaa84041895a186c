/**
 * Reads cached per store version (keys, vaults, stats counts) are never stale: a write through the same
 * connection is seen at once, a commit by another connection (another process) from the next turn of the
 * event loop.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticate, createKey, revokeKey } from '../../src/auth/keys.js';
import { cachedRead, openDb, storeVersion, type Db } from '../../src/store/db.js';
import { findReachableVault } from '../../src/store/vaults.js';
import { Service } from '../../src/service/invoke.js';
import { tempDir } from '../helpers.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

let dir: { dir: string; cleanup(): void };
let a: Db;
let b: Db;

beforeEach(() => {
  dir = tempDir();
  a = openDb(dir.dir);
  b = openDb(dir.dir); // a second connection stands for another process
});
afterEach(() => {
  a.close();
  b.close();
  dir.cleanup();
});

function addVault(db: Db, id: string) {
  db.prepare("INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, ?, 'import', '2026-01-01T00:00:00Z')").run(id, `Vault ${id}`);
}
function addEntity(db: Db, vault: string, id: string) {
  db.prepare("INSERT INTO entities (vault_id, id, type, name, source, first_seen_at) VALUES (?, ?, 'system', ?, 'meeting', '2026-01-01T00:00:00Z')").run(vault, id, id);
}

describe('store version', () => {
  it('changes with a write through this connection at once, and with another connection’s commit from the next turn', async () => {
    const v0 = storeVersion(a);
    addVault(a, 'v1');
    const v1 = storeVersion(a);
    expect(v1).not.toBe(v0);
    await nextTurn();
    addVault(b, 'v2');
    await nextTurn();
    expect(storeVersion(a)).not.toBe(v1);
  });

  it('recomputes a cached read after any write, and only then', async () => {
    let computed = 0;
    const read = () => cachedRead(a, 'test', () => ++computed);
    expect(read()).toBe(1);
    await nextTurn();
    expect(read()).toBe(1);
    addVault(b, 'elsewhere');
    await nextTurn();
    expect(read()).toBe(2);
    addVault(a, 'here');
    expect(read()).toBe(3);
  });
});

describe('cached reads in use', () => {
  it('a key revoked by another process stops working on the next turn; one revoked here at once', async () => {
    const one = createKey(a, { name: 'one', role: 'member', vaults: '*' });
    const two = createKey(a, { name: 'two', role: 'member', vaults: '*' });
    expect(authenticate(a, one.key).keyId).toBe(one.info.id);
    revokeKey(b, one.info.id);
    await nextTurn();
    expect(() => authenticate(a, one.key)).toThrow(/revoked/);
    expect(authenticate(a, two.key).keyId).toBe(two.info.id);
    revokeKey(a, two.info.id);
    expect(() => authenticate(a, two.key)).toThrow(/revoked/);
  });

  it('a vault imported elsewhere is found, and stats count a new entity', async () => {
    const key = createKey(a, { name: 'k', role: 'member', vaults: '*' }).key;
    const principal = authenticate(a, key);
    expect(findReachableVault(a, principal, 'v1')).toBeUndefined();
    addVault(b, 'v1');
    await nextTurn();
    expect(findReachableVault(a, principal, 'v1')?.id).toBe('v1');
    const service = new Service(a);
    const total = async () => {
      const r = await service.invoke('stats', { vault: 'v1' }, principal);
      if (!r.ok) throw new Error(r.message);
      return (r.data.entities as { total: number }).total;
    };
    expect(await total()).toBe(0);
    addEntity(b, 'v1', 'e1');
    await nextTurn();
    expect(await total()).toBe(1);
    addEntity(a, 'v1', 'e2');
    expect(await total()).toBe(2);
  });
});
