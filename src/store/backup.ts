/**
 * A copy of the whole store while it is in use, through SQLite's online backup API (never a file copy: the
 * database file of a live WAL store lacks what its -wal holds, and a copy taken mid-write is torn).
 *
 * The source connection holds one read transaction from the first page to the last, so every page comes from
 * one snapshot: the store as it was when the backup began, with every write committed before that. Writers in
 * other processes go on meanwhile (WAL: a reader never blocks a writer), and the backup never restarts, as it
 * would at every step if each step read the newest data.
 */
import { closeSync, openSync, renameSync, rmSync, fsyncSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { loadSqlite, storePath } from './db.js';
import { PRIVATE_FILE_MODE, keepPrivate } from './private-files.js';

/** Pages copied per turn of the event loop: ~16 MB at SQLite's 4 KB pages, so a large store reports progress. */
const PAGES_PER_STEP = 4096;

export interface BackupProgress {
  totalPages: number;
  remainingPages: number;
  pageSize: number;
}

export interface BackupResult {
  pages: number;
  bytes: number;
}

/** The temp file a backup is written to before its rename: in the target folder, so the rename is atomic. */
export const backupTempPath = (target: string) => join(dirname(target), `.${basename(target)}.${process.pid}.partial`);

/**
 * Backs up the data dir's store into `target`: written to a private (0600) temp file beside it, synced, then
 * renamed over `target`, so `target` is either the old file or a complete backup, never half of one. A failure
 * (full disk, a folder that went away) removes the temp file and throws the SQLite or file system error.
 */
export async function backupStore(
  dataDir: string,
  target: string,
  onProgress?: (p: BackupProgress) => void,
): Promise<BackupResult> {
  const Sqlite = loadSqlite();
  // Read-only: a backup writes nothing to the store, not even a migration or a sweep.
  const source = new Sqlite(storePath(dataDir), { readonly: true, fileMustExist: true });
  const temp = backupTempPath(target);
  try {
    // Created private before SQLite opens it: SQLite keeps an existing file's mode (and gives it to its journal).
    closeSync(openSync(temp, 'wx', PRIVATE_FILE_MODE));
    keepPrivate(temp);
    const pageSize = source.pragma('page_size', { simple: true }) as number;
    source.prepare('BEGIN').run();
    // The snapshot is taken at the first read, not at BEGIN.
    source.prepare('SELECT count(*) FROM sqlite_master').get();
    const result = await source.backup(temp, {
      progress: (p) => {
        onProgress?.({ ...p, pageSize });
        return PAGES_PER_STEP;
      },
    });
    source.prepare('COMMIT').run();
    asStandaloneFile(temp);
    syncFile(temp);
    renameSync(temp, target);
    syncFile(dirname(target));
    onProgress?.({ totalPages: result.totalPages, remainingPages: 0, pageSize });
    return { pages: result.totalPages, bytes: result.totalPages * pageSize };
  } catch (err) {
    rmSync(temp, { force: true });
    rmSync(`${temp}-journal`, { force: true });
    throw err;
  } finally {
    source.close();
  }
}

/**
 * The copy is in WAL mode like its source; switched to a rollback journal so that opening it (restore's check,
 * the sqlite3 shell) leaves no -wal and -shm files beside it. The next store that opens it switches back.
 */
function asStandaloneFile(path: string): void {
  const db = new (loadSqlite())(path, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** fsync of a file or folder (a folder: so the rename itself survives a power cut); best effort where the platform refuses. */
function syncFile(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Folders cannot be opened or synced on every platform (Windows: EISDIR/EPERM); a file that cannot be synced is a real failure.
    if (!(code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL') || path.endsWith('.partial')) throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
