/**
 * Where a vault's files land: artifacts and sent mail go under one safe folder per vault, the same
 * `safeSegment` folder sync downloads that vault's artifacts into, whatever the vault id looks like.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import type { Principal } from '../../src/core/principal.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { safeSegment } from '../../src/safe-path.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, sql, type Db } from '../../src/store/db.js';
import { tempDir } from '../helpers.js';
import { tinyVault, writeTinyVault } from '../tiny-vault.js';

// Upper-case letters: a case-insensitive file system would merge `Tiny.Vault` with `tiny.vault`; safeSegment encodes them.
const VAULT = 'Tiny.Vault';
const FOLDER = safeSegment(VAULT);
let db: Db;
let tmp: { dir: string; cleanup(): void };
let service: Service;
let owner: Principal;

beforeAll(() => {
  tmp = tempDir('vt-folders-');
  db = openDb(join(tmp.dir, 'data'));
  loadFixture(db, readVaultDir(writeTinyVault(join(tmp.dir, 'vault'), tinyVault({ id: VAULT }))), {
    origin: 'fixture',
  });
  owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key);
  service = new Service(db, { dataDir: join(tmp.dir, 'data') });
});
afterAll(() => {
  db.close();
  tmp.cleanup();
});

async function ok(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await service.invoke(tool, { vault: VAULT, ...args }, owner);
  if (!r.ok) throw new Error(`${tool}: ${r.code}: ${r.message}`);
  return r.data;
}

it('an artifact goes under artifacts/<safe vault folder>/<artifact>/', async () => {
  expect(FOLDER).toBe('%54iny.%56ault');
  const { artifactId, fileName } = await ok('export_report', { format: 'csv' });
  const path = sql(db, 'SELECT path FROM artifacts WHERE id = ?').pluck().get(artifactId) as string;
  expect(path).toBe(join('artifacts', FOLDER, artifactId, fileName));
  expect(existsSync(resolve(tmp.dir, 'data', path))).toBe(true);
});

it('a sent e-mail goes under mail/<safe vault folder>/', async () => {
  const { id } = await ok('send_email', { to: 'ana@tiny.test', subject: 'Folders', body: 'Where mail lands.' });
  const path = sql(db, 'SELECT eml_path FROM sent_emails WHERE id = ?').pluck().get(id) as string;
  expect(path).toBe(join('mail', FOLDER, `${id}.eml`));
  expect(existsSync(resolve(tmp.dir, 'data', path))).toBe(true);
});
