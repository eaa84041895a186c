/**
 * restore's check of a backup file: a backup of an older schema (a migration this build knows) is accepted and
 * migrated when restored; the store file is replaced whole, and a stale write-ahead log of the store it replaces
 * is never replayed over it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { loadSqlite, openDb, SCHEMA_VERSION, storePath, writeTransaction } from '../../src/store/db.js';
import { ensureVectorTable } from '../../src/search/vectors.js';
import { ensureWordIndex } from '../../src/search/word-index.js';
import { migrations } from '../../src/store/migrations.js';
import { inspectBackup, restoreBackup } from '../../src/service/store-copy.js';
import { backupStore } from '../../src/store/backup.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vt-restore-');
afterAll(() => tmp.cleanup());

/** A store as an older vault-tools left it: only its first `version` migrations, and one vault. */
function olderStore(file: string, version: number): void {
  const db = new (loadSqlite())(file);
  sqliteVec.load(db);
  for (let v = 0; v < version; v++) {
    const step = migrations[v]!;
    if (typeof step === 'string') db.exec(step);
    else step(db);
  }
  db.pragma(`user_version = ${version}`);
  db.prepare(
    "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('old', 'Old vault', 'import', '2026-01-01T00:00:00Z')",
  ).run();
  db.close();
}

describe('restore', () => {
  it('accepts a backup of an older schema and migrates it when restored', () => {
    const file = join(tmp.dir, 'old.backup');
    olderStore(file, 3);
    expect(inspectBackup(file)).toMatchObject({ schemaVersion: 3, vaults: 1, unpushed: 0 });
    const dataDir = join(tmp.dir, 'restored-old');
    restoreBackup(dataDir, file);
    const db = openDb(dataDir);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare('SELECT name FROM vaults').pluck().all()).toEqual(['Old vault']);
    } finally {
      db.close();
    }
  });

  it('replaces a store in WAL mode whole: its unflushed log is not replayed over the restored file', async () => {
    const source = join(tmp.dir, 'source');
    const db = openDb(source);
    db.prepare(
      "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('a', 'From the backup', 'import', '2026-01-01T00:00:00Z')",
    ).run();
    db.close();
    const file = join(tmp.dir, 'a.backup');
    await backupStore(source, file);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The store being replaced has commits in a -wal, as a process killed mid-work leaves it (the copy is put
    // back after close, which would have folded it in and removed it).
    const target = join(tmp.dir, 'target');
    const wal = `${storePath(target)}-wal`;
    const live = openDb(target);
    live.pragma('wal_autocheckpoint = 0');
    live
      .prepare(
        "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('b', 'Only in the old store', 'import', '2026-01-01T00:00:00Z')",
      )
      .run();
    copyFileSync(wal, `${wal}.kept`);
    live.close();
    renameSync(`${wal}.kept`, wal);
    expect(statSync(wal).size).toBeGreaterThan(0);
    restoreBackup(target, file);
    expect(existsSync(`${storePath(target)}-wal`)).toBe(false);
    const after = openDb(target);
    try {
      expect(after.prepare('SELECT name FROM vaults').pluck().all()).toEqual(['From the backup']);
      expect(after.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      after.close();
    }
  });
});

describe('restore (issue 45)', () => {
  it('accepts a store with the indexes search makes at run time: a word index per vault and the vector table', async () => {
    const source = join(tmp.dir, 'indexed');
    const db = openDb(source);
    db.prepare(
      "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('a', 'A', 'import', '2026-01-01T00:00:00Z')",
    ).run();
    ensureWordIndex(db, 'a');
    ensureVectorTable(db, { id: 'test-embedder', dims: 384 });
    const made = db
      .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'transcript_words_%' OR name LIKE 'chunk_vectors%'")
      .pluck()
      .all();
    db.close();
    expect(made.length).toBeGreaterThan(4);
    const file = join(tmp.dir, 'indexed.backup');
    await backupStore(source, file);
    expect(inspectBackup(file)).toMatchObject({ schemaVersion: SCHEMA_VERSION, vaults: 1 });
  });

  it('item 4: never copies through a link planted at the name the copy once had (.vault-tools.db.<pid>.restoring)', async () => {
    const source = join(tmp.dir, 'src4');
    openDb(source).close();
    const file = join(tmp.dir, 'four.backup');
    await backupStore(source, file);
    const dataDir = join(tmp.dir, 'restored-4');
    const victim = join(tmp.dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    openDb(dataDir).close();
    symlinkSync(victim, join(dataDir, `.vault-tools.db.${process.pid}.restoring`));
    restoreBackup(dataDir, file);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    // The planted link was removed (itself, not what it points to) with any copy a killed restore left.
    expect(readdirSync(dataDir).filter((n) => n.includes('.restoring'))).toEqual([]);
  });

  it('item 3: a connection opened before its store file was replaced writes nothing into the replaced file', () => {
    const dir = join(tmp.dir, 'replaced');
    const db = openDb(dir);
    const other = join(tmp.dir, 'other');
    openDb(other).close();
    renameSync(storePath(other), storePath(dir));
    const write = () =>
      writeTransaction(db, () => db.prepare("INSERT INTO settings (key, value) VALUES ('lost', 'write')").run());
    expect(write).toThrow(
      /the store file .* was replaced \(by `vault-tools restore`\?\) after this process opened it; nothing was written/,
    );
    db.close();
  });
});
