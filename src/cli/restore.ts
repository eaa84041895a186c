import type { Command } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RESTORED_OWNER_FILE } from '../auth/keys.js';
import { printable } from '../core/printable.js';
import { isStoreBusy } from '../service/open.js';
import {
  BackupRefused,
  hasStore,
  inspectBackup,
  restoreBackup,
  StoreRestoring,
  takeRestoreLock,
  type CarriedKey,
  type RestoreResult,
} from '../service/store-copy.js';
import { CliError, checkDataDir, resolveDataDir } from './context.js';
import { dataDirHolders, describeHolders } from './data-dir-holders.js';

const MB = 1024 * 1024;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A key as restore lists it; every part came from the backup, so it is printed escaped (core/printable.ts). */
const describeKey = (k: CarriedKey) =>
  printable(
    `"${k.name}" (${k.role}, ${k.vaults === '*' ? 'all vaults' : k.vaults.length ? k.vaults.join(', ') : 'no vault'}, ${k.prefix}…)`,
    300,
  );

/** What restore says of the keys it brought: each by name and role, since each opens the store to whoever holds it. */
function describeKeys(r: RestoreResult): string {
  const lines: string[] = [];
  if (r.known.length)
    lines.push(
      `  kept ${plural(r.known.length, 'key')} the replaced store held too: ${r.known.map(describeKey).join(', ')}`,
    );
  if (r.foreign.length && r.foreignKept) {
    lines.push(
      `  kept ${plural(r.foreign.length, 'key')} new to this data dir (--keep-keys): ${r.foreign.map(describeKey).join(', ')}; whoever holds them can use this store`,
    );
  } else if (r.foreign.length) {
    lines.push(
      `  revoked ${plural(r.foreign.length, 'key')} the backup brought that this data dir did not hold: ${r.foreign.map(describeKey).join(', ')}.`,
      '  If the backup is your own and you still use those keys, restore again with --force --keep-keys; new keys: `vault-tools keys create`.',
    );
  }
  return lines.map((l) => `${l}\n`).join('');
}

export function register(program: Command): void {
  program
    .command('restore')
    .description(
      "put a backup (from `vault-tools backup`) back as the data dir's store: into an empty or new data dir, or over an existing store with --force; never while a server holds the data dir. Keys the backup brings that this data dir did not hold are revoked unless --keep-keys",
    )
    .argument('<file>', 'the backup file')
    .option('--data-dir <dir>', 'data directory (created when it does not exist)')
    .option('--force', 'replace the store that is there (everything in it not in the backup is lost)')
    .option(
      '--keep-keys',
      'keep active the keys the backup brings that this data dir did not hold (only for a backup of your own: whoever holds those keys can use the store)',
    )
    .action((fileArg: string, opts: { dataDir?: string; force?: boolean; keepKeys?: boolean }) => {
      const file = resolve(fileArg);
      const refused = (err: unknown): never => {
        if (err instanceof BackupRefused) throw new CliError(`restore: ${file} ${err.message}; nothing was restored`);
        throw err;
      };
      // A first look before the data dir is touched (the copy restore puts in place is checked whole later).
      try {
        inspectBackup(file, { whole: false });
      } catch (err) {
        refused(err);
      }
      const chosen = resolveDataDir(opts.dataDir);
      const { why } = chosen;
      const dir = resolve(chosen.dir);
      checkDataDir(dir, why, true); // a new data dir is fine; a file in its place is not
      let release: () => void;
      try {
        release = takeRestoreLock(dir);
      } catch (err) {
        if (err instanceof StoreRestoring) throw new CliError(`restore: ${err.message} (the store was not changed)`);
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') release = takeRestoreLockIn(dir);
        else throw err;
      }
      let result: RestoreResult;
      try {
        // After the lock: a server starting from now on sees it and stops (store/restore-lock.ts).
        const holders = dataDirHolders(dir);
        for (const note of holders.ignored) process.stderr.write(`restore: ignored ${note} (a stale entry, removed)\n`);
        if (holders.live.length) {
          throw new CliError(
            `restore: ${dir} is in use by ${describeHolders(holders.live)}; stop it first (the store was not changed)`,
          );
        }
        if (hasStore(dir) && !opts.force) {
          throw new CliError(
            `restore: ${dir} (chosen by ${why}) already holds a store; pass --force to replace it (what it holds that the backup does not is lost; \`vault-tools backup\` it first to keep a copy), or choose an empty data dir with --data-dir`,
          );
        }
        result = restoreBackup(dir, file, { keepKeys: opts.keepKeys });
      } catch (err) {
        if (err instanceof CliError || err instanceof BackupRefused) refused(err);
        if (isStoreBusy(err))
          throw new CliError(
            `restore: another process has the store in ${dir} open (a \`call\`, a server not started by this vault-tools?); close it first (the store was not changed)`,
          );
        throw new CliError(`restore: failed, the store in ${dir} was not changed: ${(err as Error).message}`);
      } finally {
        release();
      }
      // A kept owner key of another data dir: name it, so this data dir does not make a second "owner" (auth/keys.ts).
      const owner = result.foreignKept
        ? result.foreign.find((k) => k.name === 'owner' && k.role === 'manager' && k.vaults === '*')
        : undefined;
      if (owner) writeFileSync(join(dir, RESTORED_OWNER_FILE), `${owner.id}\n`, { mode: 0o600 });
      const s = result.summary;
      process.stderr.write(
        `restored ${file} into ${dir}: ${plural(s.vaults, 'vault')}, ${plural(s.unpushed, 'local write')} waiting for sync (${(s.bytes / MB).toFixed(1)} MB, schema version ${s.schemaVersion}${s.schemaVersion < result.schemaVersionNow ? `, migrated to ${result.schemaVersionNow}` : ''})\n` +
          describeKeys(result) +
          (result.missingArtifacts
            ? `  ${plural(result.missingArtifacts, 'artifact')} (charts, exports) ${result.missingArtifacts === 1 ? 'has its' : 'have their'} file missing here: a backup holds no files. find_artifact marks ${result.missingArtifacts === 1 ? 'it' : 'them'} fileMissing; \`vault-tools doctor\` counts them; make them again with their tools.\n`
            : ''),
      );
    });
}

/** The data dir does not exist yet: made (private), then locked. */
function takeRestoreLockIn(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return takeRestoreLock(dir);
}
