/**
 * Putting a backup back: the file is checked completely before anything in the data dir changes (a SQLite
 * file, of this store's format, at a schema version this build knows, whole), then copied in beside the store
 * and renamed over it. A bad file loads nothing; the store it would have replaced stays as it was.
 */
import { closeSync, copyFileSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadSqlite, SCHEMA_VERSION, STORE_FILE, storePath, type Db } from './db.js';
import { makePrivateDir, keepPrivate } from './private-files.js';

/** A backup file that cannot be restored, with why in words a user can act on. */
export class BackupRefused extends Error {}

/** Tables every vault-tools store has had since its first migration: a SQLite file without them is someone else's. */
const OWN_TABLES = ['vaults', 'meetings', 'api_keys', 'outbox', 'settings'];
const SQLITE_MAGIC = 'SQLite format 3\0';
const HEADER_BYTES = 100;

export interface BackupSummary {
  schemaVersion: number;
  vaults: number;
  /** local writes not yet pushed upstream (pending or failed outbox entries) */
  unpushed: number;
  keys: number;
  bytes: number;
}

/** The 100-byte header, and the size the header says the database has (0 when it does not say). */
function readHeader(file: string): { header: Buffer; declaredBytes: number } {
  const header = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (read < HEADER_BYTES || header.toString('latin1', 0, 16) !== SQLITE_MAGIC) {
    throw new BackupRefused('is not a SQLite database (a vault-tools backup is one, written by `vault-tools backup`)');
  }
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  // The page count in the header is valid when the "version-valid-for" number equals the change counter.
  const pages = header.readUInt32BE(92) === header.readUInt32BE(24) ? header.readUInt32BE(28) : 0;
  return { header, declaredBytes: pages * pageSize };
}

/**
 * Checks `file` as a backup of this store's format and says what it holds; throws BackupRefused otherwise.
 * Opened read-only (nothing is written to it, not even a migration), and read whole (quick_check), so a file
 * cut short or damaged is found here rather than after it replaced the store.
 */
export function inspectBackup(file: string): BackupSummary {
  let size: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new BackupRefused('is not a regular file');
    size = stats.size;
  } catch (err) {
    if (err instanceof BackupRefused) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new BackupRefused(code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : (err as Error).message);
  }
  const { declaredBytes } = readHeader(file);
  if (declaredBytes > size) throw new BackupRefused(`is cut short: ${size} bytes of the ${declaredBytes} its header declares (an interrupted copy?)`);
  let db: Db;
  try {
    db = new (loadSqlite())(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupRefused(`cannot be opened as SQLite: ${(err as Error).message}`);
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]));
    const missing = OWN_TABLES.filter((t) => !tables.has(t));
    if (version === 0 || missing.length) {
      throw new BackupRefused(`is a SQLite database, but not a vault-tools store (${missing.length ? `no ${missing.join(', ')} table${missing.length === 1 ? '' : 's'}` : 'no schema version'})`);
    }
    if (version > SCHEMA_VERSION) {
      throw new BackupRefused(`was written by a newer vault-tools: its schema version is ${version}, this one knows up to ${SCHEMA_VERSION}; upgrade vault-tools to restore it`);
    }
    const problems = db.prepare('PRAGMA quick_check(5)').pluck().all() as string[];
    if (problems.length !== 1 || problems[0] !== 'ok') throw new BackupRefused(`is damaged: ${problems.join('; ')}`);
    const count = (table: string, where = '') => db.prepare(`SELECT count(*) FROM ${table}${where}`).pluck().get() as number;
    return {
      schemaVersion: version,
      vaults: count('vaults'),
      unpushed: count('outbox', " WHERE status IN ('pending', 'failed')"),
      keys: count('api_keys', ' WHERE revoked_at IS NULL'),
      bytes: size,
    };
  } catch (err) {
    if (err instanceof BackupRefused) throw err;
    // SQLITE_NOTADB, SQLITE_CORRUPT…: what SQLite found when it read the file.
    throw new BackupRefused(`cannot be read as a store: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/** Whether the data dir holds a store with anything in it (an empty file is what a failed first open leaves). */
export function hasStore(dataDir: string): boolean {
  const path = storePath(dataDir);
  return existsSync(path) && statSync(path).size > 0;
}

/**
 * Folds the current store's write-ahead log into its file and leaves it in rollback-journal mode, so no
 * `-wal` is left for SQLite to replay over the file that replaces it. Switching out of WAL needs the only
 * connection to the store: while another process has it open this fails with SQLITE_BUSY, which the caller
 * reports. The store itself is unchanged (the next open switches it back to WAL).
 */
function settleCurrentStore(dataDir: string): void {
  if (!existsSync(storePath(dataDir))) return;
  const db = new (loadSqlite())(storePath(dataDir), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    const mode = db.pragma('journal_mode = DELETE', { simple: true }) as string;
    if (mode !== 'delete') throw Object.assign(new Error(`the store stayed in ${mode} mode`), { code: 'SQLITE_BUSY' });
  } finally {
    db.close();
  }
}

/**
 * Replaces the data dir's store with the checked backup `file`: copied to a private temp file beside the
 * store, then renamed over it. The caller has checked the file (inspectBackup) and that no server holds the
 * data dir. Returns nothing; the next open migrates the restored store to this build's schema.
 */
export function restoreBackup(dataDir: string, file: string): void {
  makePrivateDir(dataDir);
  settleCurrentStore(dataDir);
  const target = storePath(dataDir);
  const temp = join(dataDir, `.${STORE_FILE}.${process.pid}.restoring`);
  try {
    copyFileSync(file, temp);
    keepPrivate(temp);
    // Stale -wal/-shm of the store being replaced would be read with the new file: gone before the rename.
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
