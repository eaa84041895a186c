import type { Command } from 'commander';
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { artifactFiles, openStoreReadOnly, storeExists, storePath } from '../service/open.js';
import { backupStore } from '../service/store-copy.js';
import { CliError, checkDataDir, resolveDataDir } from './context.js';
import { progressPrinter } from './progress.js';

/** What the backup holds that must stay private: said every time, since the file is easy to share by mistake. */
const BACKUP_CARRIES =
  'It is the whole store: every vault, the outbox, the personal keys (hashed) and OAuth grants. Keep it as private as the data dir.';

const MB = 1024 * 1024;
/** Stores below this size finish before a progress line would help. */
const PROGRESS_FROM_BYTES = 64 * MB;

/** The target's folder exists, is a folder and takes new files; the target is not a folder. Checked before any page is read. */
function checkTarget(target: string): void {
  const folder = dirname(target);
  let folderStats;
  try {
    folderStats = statSync(folder);
  } catch {
    throw new CliError(
      `backup: the folder ${folder} does not exist; create it first (a backup never creates folders, so a mistyped path fails here)`,
    );
  }
  if (!folderStats.isDirectory()) throw new CliError(`backup: ${folder} is not a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new CliError(`backup: cannot write in ${folder} (permission denied); choose a folder you can write to`);
  }
  try {
    if (statSync(target).isDirectory())
      throw new CliError(
        `backup: ${target} is a folder; name the backup file, e.g. ${resolve(target, 'vault-tools.backup.db')}`,
      );
  } catch (err) {
    if (err instanceof CliError) throw err;
  }
}

/** A failure of the copy itself, in the user's terms: the store is untouched either way. */
function describeFailure(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const code = e.code ?? '';
  if (
    code === 'SQLITE_FULL' ||
    code === 'ENOSPC' ||
    code === 'EFBIG' ||
    /disk is full|file too large/i.test(e.message)
  ) {
    return 'the disk is full (or the file size limit was reached) where the backup is written';
  }
  // A write SQLite could not finish: with ulimit -f, or a disk that failed, this is all it says.
  if (code.startsWith('SQLITE_IOERR'))
    return `could not write the backup file (${e.message}, ${code}): is the disk full, or a file size limit (ulimit -f) reached?`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY')
    return `cannot write the backup there (${e.message})`;
  return e.message;
}

export function register(program: Command): void {
  program
    .command('backup')
    .description(
      'copy the whole store to a file while it is in use (SQLite online backup: consistent even while serve writes); the file carries the keys and OAuth grants and is written 0600',
    )
    .argument('<file>', 'the backup file to write (replaced atomically if it exists; its folder must exist)')
    .option('--data-dir <dir>', 'data directory')
    .action(async (fileArg: string, opts: { dataDir?: string }) => {
      const target = resolve(fileArg);
      const { dir, why } = resolveDataDir(opts.dataDir);
      checkDataDir(dir, why, false);
      if (!storeExists(dir)) throw new CliError(`backup: no store in ${dir} (chosen by ${why}): nothing to back up`);
      checkTarget(target);
      // Renamed over the live store, the backup would replace it (and strand its -wal): never.
      if ([storePath(dir), `${storePath(dir)}-wal`, `${storePath(dir)}-shm`].some((p) => resolve(p) === target)) {
        throw new CliError(`backup: ${target} is the store itself; write the backup to another file`);
      }
      const printer = progressPrinter('backup', 'MB');
      let started = false;
      let result;
      try {
        result = await backupStore(dir, target, ({ totalPages, remainingPages, pageSize }) => {
          if (!started && totalPages * pageSize < PROGRESS_FROM_BYTES) return;
          started = true;
          printer(
            Math.round(((totalPages - remainingPages) * pageSize) / MB),
            Math.round((totalPages * pageSize) / MB),
          );
        });
      } catch (err) {
        throw new CliError(
          `backup: failed, nothing written to ${target} (the store is untouched): ${describeFailure(err)}`,
        );
      }
      process.stderr.write(
        `backed up ${dir} to ${target} (${(result.bytes / MB).toFixed(1)} MB, mode 0600).\n  ${BACKUP_CARRIES}\n${filesNotInBackup(dir)}  Restore it with \`vault-tools restore ${fileArg}\`.\n`,
      );
    });
}

/** The artifact files the backup does not hold (issue 48): said, so a restore elsewhere is not a surprise. */
function filesNotInBackup(dir: string): string {
  const db = openStoreReadOnly(dir);
  let total: number;
  try {
    total = artifactFiles(db, dir).total;
  } finally {
    db.close();
  }
  if (!total) return '';
  return `  Not in it: the files of ${total} artifact${total === 1 ? '' : 's'} (charts, exports under ${join(dir, 'artifacts')}); a store restored from it lists ${total === 1 ? 'it' : 'them'} without ${total === 1 ? 'its file' : 'their files'} (find_artifact: fileMissing). Copy that folder along to keep them.\n`;
}
