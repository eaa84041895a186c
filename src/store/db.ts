/** Opens the SQLite store of a data dir: WAL, busy timeout, foreign keys, migrations to the latest schema. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export const STORE_FILE = 'vault-tools.db';
export const SCHEMA_VERSION = migrations.length;

export function storePath(dataDir: string): string {
  return join(dataDir, STORE_FILE);
}

export function openDb(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(storePath(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  loadVectorExtension(db);
  migrate(db);
  return db;
}

const withVectors = new WeakSet<Db>();
let vectorLoadError: string | undefined;

/** sqlite-vec, when its binary loads on this platform; without it search runs on words alone. */
function loadVectorExtension(db: Db): void {
  try {
    sqliteVec.load(db);
    withVectors.add(db);
  } catch (err) {
    vectorLoadError = (err as Error).message;
  }
}

export const hasVectorExtension = (db: Db) => withVectors.has(db);
export const vectorExtensionError = () => vectorLoadError;

/** Runs the migrations this store has not seen, each in its own transaction with its version bump. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `the store's schema version is ${current}, newer than this vault-tools understands (${migrations.length}); upgrade vault-tools`,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/** Small JSON column helpers: arrays are stored as JSON text and always read whole. */
export const json = {
  write: (value: unknown): string => JSON.stringify(value ?? []),
  read: <T = string[]>(text: string | null | undefined): T => (text ? JSON.parse(text) : []) as T,
};

/**
 * A prepared statement for `sql`, compiled once per connection. Query modules call this on every request,
 * so hot paths never re-parse SQL.
 */
const statements = new WeakMap<Db, Map<string, Database.Statement>>();
export function sql(db: Db, text: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let stmt = cache.get(text);
  if (!stmt) cache.set(text, (stmt = db.prepare(text)));
  return stmt;
}
