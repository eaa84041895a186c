/**
 * What the store writes (the database and SQLite's -wal/-shm, artifacts, mail, keys) is the user's alone:
 * files 0600, folders 0700, whatever the data dir's mode and the process umask. Modes are given when a file
 * or folder is created (a umask can only take bits away, never add them), and set again on what an older
 * version, or a wider umask, left open.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Folders under the data dir that hold the user's content; made private before anything is written into them. */
export const CONTENT_DIRS = ['artifacts', 'mail'] as const;

/** Makes `path` and any missing parents as folders only the user can open. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Sets the private mode on an existing file or folder; a missing one, or one this user does not own, is left as is. */
export function keepPrivate(path: string, mode = PRIVATE_FILE_MODE): void {
  try {
    chmodSync(path, mode);
  } catch {
    // ENOENT: nothing to protect. EPERM: another user's file, which is theirs to set (doctor shows the data dir's mode).
  }
}

/** Creates an empty private file at `path` unless one exists (an empty file is a valid new SQLite database). */
function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * Gets the data dir ready for SQLite: the database file exists and is private before SQLite opens it (SQLite
 * gives its -wal and -shm files the database file's mode), and the content folders exist private, so whatever
 * is later written below them is reachable by this user alone.
 */
export function prepareDataDir(dataDir: string, storeFile: string): void {
  makePrivateDir(dataDir);
  createPrivateFile(storeFile);
  for (const file of [storeFile, `${storeFile}-wal`, `${storeFile}-shm`]) keepPrivate(file);
  for (const dir of CONTENT_DIRS) {
    makePrivateDir(join(dataDir, dir));
    keepPrivate(join(dataDir, dir), PRIVATE_DIR_MODE);
  }
}
