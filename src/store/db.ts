/** Opens the SQLite store of a data dir: WAL, busy timeout, foreign keys, migrations to the latest schema. */
import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { migrations } from './migrations.js';
import { prepareDataDir } from './private-files.js';
import { assertNoRestore } from './restore-lock.js';

export type Db = Database.Database;

export const STORE_FILE = 'vault-tools.db';
export const SCHEMA_VERSION = migrations.length;

export function storePath(dataDir: string): string {
  return join(dataDir, STORE_FILE);
}

const require = createRequire(import.meta.url);

/**
 * better-sqlite3 13: a Node-API module whose binaries ship inside its npm package (no compiler, no download, one
 * build for every Node from 22 on, the lines package.json's `engines` names). Loaded on first use (not at import),
 * so a missing binary gives this message with the fix instead of a crash before any command runs, and `doctor`
 * can report it. bin/vault-tools.js refuses an older Node before anything loads it: 13 crashes Node 20 outright.
 */
export function loadSqlite(): typeof Database {
  try {
    return require('better-sqlite3') as typeof Database;
  } catch (err) {
    const first = (err as Error).message.split('\n')[0];
    throw new Error(
      `the SQLite module (better-sqlite3) does not load: ${first}. Fix: reinstall vault-tools (\`npm ci\`, or \`npm install -g vault-tools\`): its prebuilt binary for ${process.platform}-${process.arch} is missing.`,
    );
  }
}

/** How long a write waits for another connection's (or process's) write to finish before giving up. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the data dir's store. Refused while a `restore` replaces it: checked before opening, and again after
 * connecting (restore-lock.ts says why both).
 */
export function openDb(dataDir: string): Db {
  assertNoRestore(dataDir);
  prepareDataDir(dataDir, storePath(dataDir));
  const db = openStoreFile(storePath(dataDir));
  try {
    assertNoRestore(dataDir);
  } catch (err) {
    db.close();
    throw err;
  }
  rememberIdentity(db);
  return db;
}

/**
 * A connection to a store file with the settings every connection needs, whatever it is for (openDb's store, a
 * read-only check, a copy): it waits for another process's write (busy_timeout) instead of failing at once, keeps
 * foreign keys, and has the vector extension when it loads. Nothing opens a store without it.
 */
export function connect(file: string, options: Database.Options = {}): Db {
  const db = new (loadSqlite())(file, options);
  // First, so that switching a new store to WAL waits for another process opening it at the same moment.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  loadVectorExtension(db);
  return db;
}

/** Opens a store file (WAL, busy timeout, foreign keys) and migrates it to the latest schema. */
export function openStoreFile(path: string): Db {
  const db = connect(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** The file each open store was when opened (device and inode), so a write never lands in a file restore replaced. */
const identities = new WeakMap<Db, { path: string; id: string }>();
const fileId = (path: string) => {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}` : 'gone';
};
function rememberIdentity(db: Db): void {
  identities.set(db, { path: db.name, id: fileId(db.name) });
}

/** The store file was replaced (a `vault-tools restore`) while this connection had the old one open. */
export class StoreReplaced extends Error {
  readonly code = 'STORE_REPLACED';
}
export const isStoreReplaced = (err: unknown): boolean => err instanceof StoreReplaced;

/** Throws StoreReplaced when the store's path no longer names the file this connection opened. */
export function assertSameStoreFile(db: Db): void {
  const known = identities.get(db);
  if (known && fileId(known.path) !== known.id) {
    throw new StoreReplaced(
      `the store file ${known.path} was replaced (by \`vault-tools restore\`?) after this process opened it; nothing was written. Restart this process to use the restored store`,
    );
  }
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

/**
 * Runs `write` in a transaction that takes the store's write lock at its start (BEGIN IMMEDIATE). Every
 * write transaction goes through here: a deferred one (plain BEGIN) that reads before it writes cannot wait
 * for another process's write in WAL mode (SQLite answers SQLITE_BUSY at once rather than risk a deadlock),
 * while an immediate one waits up to BUSY_TIMEOUT_MS for its turn. Inside another transaction it is a
 * savepoint of that one.
 */
export function writeTransaction<T>(db: Db, write: () => T): T {
  if (!db.inTransaction) assertSameStoreFile(db);
  return db.transaction(write).immediate();
}

/** WAL pages between checkpoints while writing in bulk: ~40 MB (SQLite's default is 1,000 pages, ~4 MB). */
const BULK_CHECKPOINT_PAGES = 10_000;

/**
 * Runs `work` (many write transactions in a row, as a sync's pull) with settings for bulk writes, restored
 * after it; measured on a pull of 10,000 entities:
 * - statement journals in memory (temp_store): every statement with triggers or foreign keys saves the pages
 *   it changes in one, and once one outgrew 64 KB it went to a temp file, a write syscall per page (230,000);
 * - a checkpoint every ~40 MB of WAL rather than ~4 MB: each copies every page changed since the previous one
 *   into the database file and syncs it, and a transaction of a page of entities rewrites most pages of
 *   their indexes, so rare checkpoints copy them once (17,000 page copies and 23 fsyncs instead of 44,000 and 130).
 * Durability is unchanged (WAL with synchronous=NORMAL either way); the WAL is checkpointed at the end.
 */
export async function withBulkWrites<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const tempStore = db.pragma('temp_store', { simple: true }) as number;
  const checkpointPages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('temp_store = MEMORY');
  db.pragma(`wal_autocheckpoint = ${BULK_CHECKPOINT_PAGES}`);
  try {
    return await work();
  } finally {
    db.pragma(`temp_store = ${tempStore}`);
    db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
    db.pragma('wal_checkpoint(PASSIVE)');
  }
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes), which outlasted the busy timeout. */
export const isStoreBusy = (err: unknown): boolean =>
  typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('SQLITE_BUSY');

/**
 * Runs the migrations this store has not seen, each in its own transaction with its version bump. The
 * version is read again under the write lock, so two processes opening a new store at once migrate it once.
 */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `the store's schema version is ${current}, newer than this vault-tools understands (${migrations.length}); upgrade vault-tools`,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    writeTransaction(db, () => {
      if (db.pragma('user_version', { simple: true }) !== v) return; // another process ran this step meanwhile
      const step = migrations[v]!;
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.pragma(`user_version = ${v + 1}`);
    });
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

/**
 * A LIMIT or OFFSET parameter written so SQLite does not plan the statement again on every call:
 * better-sqlite3's SQLite is built with STAT4, which re-prepares a statement each time a parameter its plan
 * depends on is bound, and a bare `LIMIT ?` is one (~13 µs a call, as much as reading a page of 50 rows
 * costs). `? + 0` is an expression the planner does not look into.
 */
export const limitParam = (param: string) => `(${param} + 0)`;

/**
 * A token that changes whenever what this connection reads may have changed: another connection (another
 * process included) committed (`PRAGMA data_version`), or this connection wrote anything (`total_changes()`,
 * which counts every row an INSERT, UPDATE or DELETE touched, triggers included, even when rolled back).
 * Equal tokens mean the store reads exactly as before.
 *
 * `PRAGMA data_version` opens a read transaction (two lock syscalls: most of the cost); it is read once per
 * turn of the event loop (and at least every millisecond), so the cached reads of the requests handled in
 * one turn share it. A commit by another process during that turn is seen from the next one, as if those
 * requests had run a moment earlier. This connection's own writes are seen at once: total_changes() is read
 * every time, and costs no read transaction.
 */
export function storeVersion(db: Db): string {
  return `${dataVersion(db)}:${sql(db, 'SELECT total_changes()').pluck().get() as number}`;
}

let turn: { at: number; versions: Map<Db, number> } | undefined;
function dataVersion(db: Db): number {
  const now = performance.now();
  if (!turn || now - turn.at > 1) {
    const current = (turn = { at: now, versions: new Map() });
    setImmediate(() => {
      if (turn === current) turn = undefined;
    }).unref();
  }
  let v = turn.versions.get(db);
  if (v === undefined) turn.versions.set(db, (v = sql(db, 'PRAGMA data_version').pluck().get() as number));
  return v;
}

const MAX_CACHED_READS = 1000;
const cachedReads = new WeakMap<Db, Map<string, { version: string; value: unknown }>>();

/**
 * `compute()`, reused until the store changes (see storeVersion): for reads every request repeats, such as
 * the key behind a bearer token or a vault's counts. Never stale: a write anywhere (this process or another)
 * invalidates every entry. Callers must not mutate the value they get.
 */
export function cachedRead<T>(db: Db, key: string, compute: () => T): T {
  let cache = cachedReads.get(db);
  if (!cache) cachedReads.set(db, (cache = new Map()));
  const version = storeVersion(db);
  const hit = cache.get(key);
  if (hit && hit.version === version) return hit.value as T;
  const value = compute();
  if (cache.size >= MAX_CACHED_READS) cache.clear();
  // Tagged with the version read before computing: if a write landed in between, the next call recomputes.
  cache.set(key, { version, value });
  return value;
}

/**
 * A counter of one kind of write (migration 7's search_versions), for caches that depend on that alone: the
 * writers of a table with no trigger of its own (the vector table) bump it in their transaction, readers key
 * their cache on it. One primary-key read; a commit by another process is seen as soon as it lands.
 */
export function tableVersion(db: Db, name: string): number {
  return (sql(db, 'SELECT version FROM search_versions WHERE name = ?').pluck().get(name) as number | undefined) ?? 0;
}

export function bumpTableVersion(db: Db, name: string): void {
  sql(
    db,
    'INSERT INTO search_versions (name, version) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET version = version + 1',
  ).run(name);
}
