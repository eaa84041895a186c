import type { Command } from 'commander';
import { resolve } from 'node:path';
import { ServiceError } from '../core/errors.js';
import { resolveVault } from '../service/invoke.js';
import { exportVault, ExportRefused } from '../service/store-copy.js';
import { CliError, dataDirArg, openStore, shellWord, principalFor, resolveDataDir, resolveKey } from './context.js';

export function register(program: Command): void {
  program
    .command('export')
    .description(
      'write one vault, local writes applied, as a folder in the format `import` reads (docs/fixture-format.md); keys and OAuth grants are never in it',
    )
    .argument('<vault>', 'vault id or name')
    .argument('<dir>', 'the folder to write (made if missing; must be empty unless --force)')
    .option('--force', 'write into a folder that holds an earlier export, replacing its vault files')
    .option(
      '--key <key>',
      'key to act with: it must reach the vault (default: $VAULT_TOOLS_KEY or the data dir owner key)',
    )
    .option('--data-dir <dir>', 'data directory')
    .action((vaultArg: string, dirArg: string, opts: { force?: boolean; key?: string; dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      try {
        // The vault as `call` finds it: id or name, among the vaults the key reaches.
        let vault;
        try {
          vault = resolveVault(db, principalFor(db, resolveKey(db, dir, opts.key)), vaultArg);
        } catch (err) {
          if (err instanceof ServiceError)
            throw new CliError(
              `export: ${err.message.replace(/^`vault`: /, '').replace('list_vaults shows', `\`vault-tools call list_vaults${dataDirArg(opts.dataDir)}\` shows`)}`,
            );
          throw err;
        }
        let result;
        try {
          result = exportVault(db, vault.id, resolve(dirArg), { force: opts.force });
        } catch (err) {
          if (err instanceof ExportRefused) throw new CliError(`export: ${err.message}`);
          throw err;
        }
        process.stderr.write(
          `exported "${vault.name}" (${vault.id}) to ${result.dir}: ${result.files} files, ${result.meetings} meeting${result.meetings === 1 ? '' : 's'} with transcripts and evidence; dates kept as they are (shiftDates: false)` +
            `${result.draftsLeftOut ? `; ${result.draftsLeftOut} e-mail draft${result.draftsLeftOut === 1 ? '' : 's'} left out (the format holds sent mail only)` : ''}. ` +
            `Keys and OAuth grants are not in it. \`vault-tools import ${shellWord(dirArg)}${dataDirArg(opts.dataDir)}\` loads it (into another store: name its --data-dir).\n`,
        );
      } finally {
        db.close();
      }
    });
}
