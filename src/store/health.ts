/** What `doctor` asks of SQLite and of a store: does the engine have what the store needs, and is the store sound. */
import * as sqliteVec from 'sqlite-vec';
import { loadSqlite, SCHEMA_VERSION, type Db } from './db.js';
import { countActiveKeys } from './keys.js';
import { allVaults } from './vaults.js';

/** The SQLite better-sqlite3 carries, and whether it has FTS5 (word search needs it); throws when it does not load. */
export function sqliteEngine(): { version: string; fts5: boolean } {
  const db = new (loadSqlite())(':memory:');
  try {
    const version = db.prepare('SELECT sqlite_version()').pluck().get() as string;
    const fts5 =
      db.prepare("SELECT 1 FROM pragma_compile_options WHERE compile_options = 'ENABLE_FTS5'").get() !== undefined;
    return { version, fts5 };
  } finally {
    db.close();
  }
}

/** sqlite-vec's version; throws when its binary does not load on this platform. */
export function vectorExtensionVersion(): string {
  const db = new (loadSqlite())(':memory:');
  try {
    sqliteVec.load(db);
    return db.prepare('SELECT vec_version()').pluck().get() as string;
  } finally {
    db.close();
  }
}

export interface StoreHealth {
  schemaVersion: number;
  /** the schema version this vault-tools writes */
  expectedVersion: number;
  /** `ok`, or SQLite's first complaint */
  integrity: string;
  vaults: number;
  activeKeys: number;
}

export function storeHealth(db: Db): StoreHealth {
  return {
    schemaVersion: db.pragma('user_version', { simple: true }) as number,
    expectedVersion: SCHEMA_VERSION,
    integrity: db.prepare('PRAGMA quick_check').pluck().get() as string,
    vaults: allVaults(db).length,
    activeKeys: countActiveKeys(db),
  };
}
