/**
 * Putting a backup back. Nothing in the data dir changes until the new store is known good:
 * 1. the backup is copied into a private temp file beside the store, created exclusively under an
 *    unpredictable name (never through a link planted there), and every later check reads that copy, so the
 *    file checked is the file restored;
 * 2. the copy is checked: a SQLite file, whole, with exactly the schema this program makes at the copy's
 *    schema version (restore-schema.ts: no trigger, view, table or column of anyone else's);
 * 3. it is opened and migrated to this build's schema, and checked again; keys it brings that the replaced
 *    store did not hold are revoked unless the caller keeps them (docs/backup.md: what a backup carries);
 * 4. only then renamed over the store. A failure at any step removes the copy; the old store works as before.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { loadSqlite, openStoreFile, SCHEMA_VERSION, STORE_FILE, storePath, type Db } from './db.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';
import { schemaProblems, type RuntimeSchema } from './restore-schema.js';

/** A backup file that cannot be restored, with why in words a user can act on. */
export class BackupRefused extends Error {}

const SQLITE_MAGIC = 'SQLite format 3\0';
const HEADER_BYTES = 100;
const COPY_CHUNK = 4 * 1024 * 1024;

/** An active key a backup carries, as restore lists it. */
export interface CarriedKey {
  id: string;
  name: string;
  role: string;
  prefix: string;
  /** '*' for every vault */
  vaults: string[] | '*';
}

export interface BackupSummary {
  schemaVersion: number;
  vaults: number;
  /** local writes not yet pushed upstream (pending or failed outbox entries) */
  unpushed: number;
  keys: number;
  activeKeys: CarriedKey[];
  bytes: number;
}

export interface RestoreResult {
  summary: BackupSummary;
  /** carried keys the replaced store held too (they work as before) */
  known: CarriedKey[];
  /** carried keys the replaced store did not hold, kept active (keepKeys) or revoked */
  foreign: CarriedKey[];
  foreignKept: boolean;
  /** artifacts whose file is not in the data dir (a backup holds no files) */
  missingArtifacts: number;
  /** the schema version the restored store has now (migrated from summary.schemaVersion) */
  schemaVersionNow: number;
}

/** The 100-byte header, and the size the header says the database has (0 when it does not say). */
function readHeader(file: string): { declaredBytes: number } {
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
  return { declaredBytes: pages * pageSize };
}

function activeKeys(db: Db): CarriedKey[] {
  const rows = db
    .prepare(
      'SELECT id, name, role, key_prefix AS prefix, all_vaults AS allVaults FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id',
    )
    .all() as (Omit<CarriedKey, 'vaults'> & { allVaults: number })[];
  const grants = db.prepare('SELECT vault_id FROM api_key_vaults WHERE key_id = ? ORDER BY vault_id').pluck();
  return rows.map(({ allVaults, ...k }) => ({ ...k, vaults: allVaults ? '*' : (grants.all(k.id) as string[]) }));
}

/**
 * Checks `file` as a backup of this store's format and says what it holds; throws BackupRefused otherwise.
 * Opened read-only (nothing is written to it, not even a migration). `whole`: also read every page
 * (quick_check), so a file cut short or damaged is found before it replaces anything; restore does that on
 * its private copy, the file it will really put in place.
 */
export function inspectBackup(
  file: string,
  runtime: RuntimeSchema[],
  { whole = true }: { whole?: boolean } = {},
): BackupSummary {
  let size: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new BackupRefused('is not a regular file');
    size = stats.size;
  } catch (err) {
    if (err instanceof BackupRefused) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new BackupRefused(
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : (err as Error).message,
    );
  }
  const { declaredBytes } = readHeader(file);
  if (declaredBytes > size)
    throw new BackupRefused(
      `is cut short: ${size} bytes of the ${declaredBytes} its header declares (an interrupted copy?)`,
    );
  let db: Db;
  try {
    db = new (loadSqlite())(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupRefused(`cannot be opened as SQLite: ${(err as Error).message}`);
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    const missing = ['vaults', 'meetings', 'api_keys', 'outbox', 'settings'].filter((t) => !tables.has(t));
    if (version === 0 || missing.length) {
      throw new BackupRefused(
        `is a SQLite database, but not a vault-tools store (${missing.length ? `no ${missing.join(', ')} table${missing.length === 1 ? '' : 's'}` : 'no schema version'})`,
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new BackupRefused(
        `was written by a newer vault-tools: its schema version is ${version}, this one knows up to ${SCHEMA_VERSION}; upgrade vault-tools to restore it`,
      );
    }
    const problems = schemaProblems(db, version, runtime);
    if (problems.length) {
      throw new BackupRefused(
        `is not a store this program wrote: its schema is not vault-tools' own at schema version ${version} (${problems.join('; ')})`,
      );
    }
    if (whole) {
      const damage = db.prepare('PRAGMA quick_check(5)').pluck().all() as string[];
      if (damage.length !== 1 || damage[0] !== 'ok') throw new BackupRefused(`is damaged: ${damage.join('; ')}`);
    }
    const count = (table: string, where = '') =>
      db.prepare(`SELECT count(*) FROM ${table}${where}`).pluck().get() as number;
    const keys = activeKeys(db);
    return {
      schemaVersion: version,
      vaults: count('vaults'),
      unpushed: count('outbox', " WHERE status IN ('pending', 'failed')"),
      keys: keys.length,
      activeKeys: keys,
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
 * reports. Returns the keys the store holds (id and hash), which a restore keeps active.
 */
function settleCurrentStore(dataDir: string): Map<string, string> {
  const held = new Map<string, string>();
  if (!hasStore(dataDir)) return held;
  const db = new (loadSqlite())(storePath(dataDir), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    const mode = db.pragma('journal_mode = DELETE', { simple: true }) as string;
    if (mode !== 'delete') throw Object.assign(new Error(`the store stayed in ${mode} mode`), { code: 'SQLITE_BUSY' });
    try {
      for (const k of db.prepare('SELECT id, key_hash FROM api_keys WHERE revoked_at IS NULL').all() as {
        id: string;
        key_hash: string;
      }[])
        held.set(k.id, k.key_hash);
    } catch {
      // not a store of ours (no api_keys): it holds no keys to keep
    }
  } finally {
    db.close();
  }
  return held;
}

/** Copies `from` into a new file `to`: created exclusively (O_EXCL: never a link or a file planted there), 0600, synced. */
function copyExclusive(from: string, to: string): void {
  const out = openSync(to, 'wx', PRIVATE_FILE_MODE);
  try {
    const input = openSync(from, 'r');
    try {
      const buffer = Buffer.allocUnsafe(COPY_CHUNK);
      for (let n; (n = readSync(input, buffer, 0, COPY_CHUNK, null)) > 0; ) {
        for (let written = 0; written < n; ) written += writeSync(out, buffer, written, n - written);
      }
    } finally {
      closeSync(input);
    }
    fsyncSync(out);
  } finally {
    closeSync(out);
  }
}

/** The private copy a restore works on: beside the store (the rename is atomic), under a name nobody can guess. */
const tempPath = (dataDir: string) => join(dataDir, `.${STORE_FILE}.${randomBytes(12).toString('hex')}.restoring`);

/**
 * Copies a killed restore left (as large as a store), and anything planted under such a name: the caller holds
 * the restore lock, so none is in use. A link is removed itself, never followed.
 */
function removeStaleCopies(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith(`.${STORE_FILE}.`) && /\.restoring(-wal|-shm|-journal)?$/.test(name))
      rmSync(join(dataDir, name), { force: true });
  }
}

/** Opens the copy and migrates it to this build's schema, then checks the result is exactly this version's store. */
function migrateCopy(temp: string, from: number, runtime: RuntimeSchema[]): void {
  let db: Db;
  try {
    db = openStoreFile(temp);
  } catch (err) {
    throw new BackupRefused(
      `does not migrate from schema version ${from} to ${SCHEMA_VERSION}: ${(err as Error).message}`,
    );
  }
  try {
    const problems = schemaProblems(db, SCHEMA_VERSION, runtime);
    if (problems.length)
      throw new BackupRefused(
        `migrated from schema version ${from}, is not this version's store (${problems.join('; ')})`,
      );
  } finally {
    db.close();
  }
}

/**
 * Sorts the copy's active keys into those the replaced store held too (same id and hash) and the others,
 * which are revoked (with the OAuth grants they approved) unless kept. Leaves the copy a standalone file.
 */
function settleKeys(temp: string, held: Map<string, string>, keepKeys: boolean) {
  const db = new (loadSqlite())(temp, { fileMustExist: true });
  try {
    const hashes = new Map(
      (db.prepare('SELECT id, key_hash FROM api_keys').all() as { id: string; key_hash: string }[]).map((k) => [
        k.id,
        k.key_hash,
      ]),
    );
    const carried = activeKeys(db);
    const known = carried.filter((k) => held.get(k.id) === hashes.get(k.id));
    const foreign = carried.filter((k) => held.get(k.id) !== hashes.get(k.id));
    if (foreign.length && !keepKeys) {
      const now = new Date().toISOString();
      db.transaction(() => {
        const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?');
        // A token is worth no more than its grant: the grants these keys approved end with them.
        const grants = db.prepare('UPDATE oauth_grants SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL');
        for (const k of foreign) revoke.run(now, k.id), grants.run(now, k.id);
      }).immediate();
    }
    const artifactPaths = db.prepare('SELECT path FROM artifacts WHERE path IS NOT NULL').pluck().all() as string[];
    db.pragma('journal_mode = DELETE');
    return { known, foreign, artifactPaths };
  } finally {
    db.close();
  }
}

/**
 * Replaces the data dir's store with the backup `file` (steps at the top). The caller holds the restore lock
 * and has checked that no server holds the data dir. Throws BackupRefused when the file is not a store to
 * restore, SQLITE_BUSY when another process has the current store open; the store is unchanged either way.
 */
export function restoreBackup(
  dataDir: string,
  file: string,
  opts: { runtime: RuntimeSchema[]; keepKeys?: boolean },
): RestoreResult {
  makePrivateDir(dataDir);
  removeStaleCopies(dataDir);
  const target = storePath(dataDir);
  const temp = tempPath(dataDir);
  try {
    copyExclusive(file, temp);
    const summary = inspectBackup(temp, opts.runtime, { whole: true });
    migrateCopy(temp, summary.schemaVersion, opts.runtime);
    // The current store is touched only now, once the copy has passed every check and migrated.
    const held = settleCurrentStore(dataDir);
    const { known, foreign, artifactPaths } = settleKeys(temp, held, opts.keepKeys ?? false);
    // Stale -wal/-shm of the store being replaced would be read with the new file: gone before the rename.
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
    renameSync(temp, target);
    syncFolder(dataDir);
    const missingArtifacts = artifactPaths.filter((p) => !existsSync(isAbsolute(p) ? p : join(dataDir, p))).length;
    return {
      summary: { ...summary, bytes: statSync(file).size },
      known,
      foreign,
      foreignKept: opts.keepKeys ?? false,
      missingArtifacts,
      schemaVersionNow: SCHEMA_VERSION,
    };
  } catch (err) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${temp}${suffix}`, { force: true });
    throw err;
  }
}

/** So the rename survives a power cut; best effort where a platform cannot open folders (Windows). */
function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // EISDIR/EPERM on Windows
  }
}
