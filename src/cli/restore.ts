import type { Command } from 'commander';
import { resolve } from 'node:path';
import { isStoreBusy, openDataDirStore } from '../service/open.js';
import { BackupRefused, hasStore, inspectBackup, restoreBackup } from '../service/store-copy.js';
import { CliError, checkDataDir, resolveDataDir } from './context.js';
import { dataDirHolders, describeHolders } from './data-dir-holders.js';

const MB = 1024 * 1024;

export function register(program: Command): void {
  program
    .command('restore')
    .description('put a backup (from `vault-tools backup`) back as the data dir\'s store: into an empty or new data dir, or over an existing store with --force; never while a server holds the data dir')
    .argument('<file>', 'the backup file')
    .option('--data-dir <dir>', 'data directory (created when it does not exist)')
    .option('--force', 'replace the store that is there (everything in it not in the backup is lost)')
    .action((fileArg: string, opts: { dataDir?: string; force?: boolean }) => {
      const file = resolve(fileArg);
      let summary;
      try {
        summary = inspectBackup(file);
      } catch (err) {
        if (err instanceof BackupRefused) throw new CliError(`restore: ${file} ${err.message}; nothing was restored`);
        throw err;
      }
      const chosen = resolveDataDir(opts.dataDir);
      const { why } = chosen;
      const dir = resolve(chosen.dir);
      checkDataDir(dir, why, true); // a new data dir is fine; a file in its place is not
      const holders = dataDirHolders(dir);
      if (holders.length) {
        throw new CliError(`restore: ${dir} is in use by ${describeHolders(holders)}; stop it first (the store was not changed)`);
      }
      if (hasStore(dir) && !opts.force) {
        throw new CliError(`restore: ${dir} (chosen by ${why}) already holds a store; pass --force to replace it (what it holds that the backup does not is lost; \`vault-tools backup\` it first to keep a copy), or choose an empty data dir with --data-dir`);
      }
      try {
        restoreBackup(dir, file);
      } catch (err) {
        if (isStoreBusy(err)) throw new CliError(`restore: another process has the store in ${dir} open (a \`call\`, a server not started by this vault-tools?); close it first (the store was not changed)`);
        throw new CliError(`restore: failed, the store in ${dir} was not changed: ${(err as Error).message}`);
      }
      // Opened once here, so a backup of an older schema is migrated now, not by the first server.
      openDataDirStore(dir).close();
      process.stderr.write(
        `restored ${file} into ${dir}: ${summary.vaults} vault${summary.vaults === 1 ? '' : 's'}, ${summary.keys} active key${summary.keys === 1 ? '' : 's'}, ${summary.unpushed} local write${summary.unpushed === 1 ? '' : 's'} waiting for sync (${(summary.bytes / MB).toFixed(1)} MB, schema version ${summary.schemaVersion})\n`,
      );
    });
}
