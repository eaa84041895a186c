/**
 * `restore.lock`: while `vault-tools restore` replaces a data dir's store, this file in the data dir names it
 * (pid and process identity), and nothing else opens that store (openDb refuses). The order makes the race
 * safe: restore takes the lock before it needs the store to itself (settling its write-ahead log fails while
 * any other connection has it open), and an opener checks for the lock after it has connected, so either the
 * restore sees the opener's connection and stops, or the opener sees the lock and closes.
 *
 * A store a process already has open is guarded by its identity (file id): a write transaction first checks
 * that the path still names the file it opened (db.ts), so a process that had the store before a restore can
 * never write into the replaced file, where its writes would be lost.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processIdentity, sameProcess } from '../core/process-alive.js';
import { PRIVATE_FILE_MODE } from './private-files.js';

export const RESTORE_LOCK = 'restore.lock';

/** The store is being restored: nothing may open it until the restore ends. */
export class StoreRestoring extends Error {
  readonly code = 'STORE_RESTORING';
}

interface LockFile {
  pid: number;
  identity?: string;
  startedAt: string;
}

function readLock(path: string): LockFile | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { pid: NaN, startedAt: '' }; // unreadable or not JSON: not a lock restore wrote
  }
}

/** The restore running on `dataDir` (another process), if any; a lock whose process has gone is ignored. */
export function runningRestore(dataDir: string): LockFile | undefined {
  const lock = readLock(join(dataDir, RESTORE_LOCK));
  if (!lock || lock.pid === process.pid) return undefined;
  return sameProcess(lock.pid, lock.identity).live ? lock : undefined;
}

export function assertNoRestore(dataDir: string): void {
  const lock = runningRestore(dataDir);
  if (lock)
    throw new StoreRestoring(
      `a \`vault-tools restore\` (pid ${lock.pid}, since ${lock.startedAt}) is replacing the store in ${dataDir}; start again when it has finished`,
    );
}

/**
 * Takes the restore lock of `dataDir` (created exclusively); a lock left by a restore that no longer runs is
 * taken over. Throws StoreRestoring when another restore runs. Returns the release function.
 */
export function takeRestoreLock(dataDir: string): () => void {
  const path = join(dataDir, RESTORE_LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
      try {
        const lock: LockFile = {
          pid: process.pid,
          identity: processIdentity(process.pid),
          startedAt: new Date().toISOString(),
        };
        writeSync(fd, `${JSON.stringify(lock)}\n`);
      } finally {
        closeSync(fd);
      }
      const release = () => {
        process.off('exit', release);
        rmSync(path, { force: true });
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      assertNoRestore(dataDir);
      rmSync(path, { force: true });
    }
  }
  throw new StoreRestoring(`could not take ${path}: another restore is starting`);
}
