import type { Command } from 'commander';
import { createKey, listKeys, resolveVaultGrants, revokeKey, type KeyInfo } from '../auth/keys.js';
import { ServiceError } from '../core/errors.js';
import { CliError, openStore, resolveDataDir } from './context.js';

const describe = (k: KeyInfo) =>
  `${k.id}  ${k.prefix}…  ${k.role.padEnd(7)}  vaults: ${k.vaults === '*' ? 'all' : k.vaults.join(', ') || 'none'}  "${k.name}"${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}${k.expiresAt ? `  expires ${k.expiresAt}` : ''}`;

export function register(program: Command): void {
  const keys = program.command('keys').description('personal keys: create, list, revoke (stored hashed)');
  const dataDirOption = ['--data-dir <dir>', 'data directory'] as const;

  keys
    .command('create')
    .description('create a key; the key string is shown once')
    .option('--name <name>', 'a label for the key', 'personal key')
    .option('--manager', 'allow the manager-only tools')
    .option('--vault <vault>', "grant a vault by id or name (repeatable); '*' for all vaults", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--expires <iso>', 'expiry, ISO 8601 datetime')
    .option('--json', 'print JSON')
    .option(...dataDirOption)
    .action((opts: { name: string; manager?: boolean; vault: string[]; expires?: string; json?: boolean; dataDir?: string }) => {
      if (!opts.vault.length) throw new CliError("keys create: name at least one --vault (or --vault '*' for all vaults)", 2);
      if (opts.expires && Number.isNaN(Date.parse(opts.expires))) throw new CliError(`keys create: --expires "${opts.expires}" is not an ISO 8601 datetime`, 2);
      if (opts.expires && Date.parse(opts.expires) <= Date.now()) {
        throw new CliError(`keys create: --expires ${new Date(opts.expires).toISOString()} is in the past, so the key would never work; give a future datetime`, 2);
      }
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      let created;
      try {
        const grants = opts.vault.includes('*') ? undefined : resolveVaultGrants(db, opts.vault);
        if (grants?.unknown.length) {
          process.stderr.write(`note: no vault in this store has the id or name ${grants.unknown.map((v) => `"${v}"`).join(', ')} yet; the grant applies once a vault with that id is synced or imported\n`);
        }
        created = createKey(db, {
          name: opts.name,
          role: opts.manager ? 'manager' : 'member',
          vaults: grants?.ids ?? '*',
          expiresAt: opts.expires ? new Date(opts.expires).toISOString() : null,
        });
      } catch (err) {
        if (err instanceof ServiceError) throw new CliError(`keys create: ${err.message}`, 2);
        throw err;
      } finally {
        db.close();
      }
      const { key, info } = created;
      if (opts.json) process.stdout.write(`${JSON.stringify({ key, ...info }, null, 2)}\n`);
      else process.stdout.write(`${key}\n`), process.stderr.write(`created ${describe(info)}\nThe key is shown only this once.\n`);
    });

  keys
    .command('list')
    .description('list keys (never their secret)')
    .option('--json', 'print JSON')
    .option(...dataDirOption)
    .action((opts: { json?: boolean; dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      const all = listKeys(db);
      db.close();
      process.stdout.write(opts.json ? `${JSON.stringify(all, null, 2)}\n` : `${all.map(describe).join('\n') || 'no keys'}\n`);
    });

  keys
    .command('revoke')
    .description('revoke a key at once')
    .argument('<id>', 'the key id (key_…), from keys list')
    .option(...dataDirOption)
    .action((id: string, opts: { dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      try {
        const info = revokeKey(db, id);
        process.stderr.write(`revoked ${describe(info)}\n`);
      } catch (err) {
        if (err instanceof ServiceError) throw new CliError(err.message);
        throw err;
      } finally {
        db.close();
      }
    });
}
