import type { Command } from 'commander';
import { createKey, listKeys, resolveVaultGrants, revokeKey, type KeyInfo } from '../auth/keys.js';
import { quoted, ServiceError } from '../core/errors.js';
import { escapeUnprintable, printable } from '../core/printable.js';
import { GRANT_ID_PREFIX, listGrants, revokeGrant, type GrantInfo } from '../auth/oauth/grants.js';
import { CliError, noSuchVault, openStore, resolveDataDir } from './context.js';
import { isoUtc } from '../time.js';

// Names and URIs come from outside (a key's label from whoever made it; an OAuth client's name, id and redirect
// host from the client's own registration), so each is printable(): a CR, LF or escape sequence in them shows as
// `\u000d`…, never as a line of its own or a colour, and a bidi override cannot turn the line around.
const describe = (k: KeyInfo) =>
  `${k.id}  ${k.prefix}…  ${k.role.padEnd(7)}  vaults: ${k.vaults === '*' ? 'all' : escapeUnprintable(k.vaults.join(', ')) || 'none'}  "${printable(k.name, 200)}"${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}${k.expiresAt ? `  expires ${k.expiresAt}` : ''}`;

const describeGrant = (g: GrantInfo) =>
  `${g.id}  OAuth  "${printable(g.clientName, 200)}" (client ${printable(g.clientId, 200)}, redirects to ${printable(g.redirectHost, 200)})  approved with ${g.keyId}  ${g.role}  vaults: ${escapeUnprintable(g.vaults.join(', '))}  last used ${g.lastUsedAt ?? 'never'}${g.revokedAt ? `  REVOKED ${g.revokedAt}` : ''}`;

export function register(program: Command): void {
  const keys = program.command('keys').description('personal keys: create, list, revoke (stored hashed)');
  const dataDirOption = ['--data-dir <dir>', 'data directory'] as const;

  keys
    .command('create')
    .description('create a key; the key string is shown once')
    .option('--name <name>', 'a label for the key', 'personal key')
    .option('--manager', 'allow the manager-only tools')
    .option(
      '--vault <vault>',
      "grant a vault by id or name (repeatable); '*' for all vaults",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option(
      '--allow-unknown-vault',
      'grant a --vault id no vault in the store has yet (one a later sync or import brings)',
    )
    .option('--expires <iso>', 'expiry, ISO 8601 datetime')
    .option('--json', 'print JSON')
    .option(...dataDirOption)
    .action(
      (opts: {
        name: string;
        manager?: boolean;
        vault: string[];
        allowUnknownVault?: boolean;
        expires?: string;
        json?: boolean;
        dataDir?: string;
      }) => {
        if (!opts.vault.length)
          throw new CliError("keys create: name at least one --vault (or --vault '*' for all vaults)", 2);
        if (opts.expires && Number.isNaN(Date.parse(opts.expires)))
          throw new CliError(`keys create: --expires "${opts.expires}" is not an ISO 8601 datetime`, 2);
        if (opts.expires && Date.parse(opts.expires) <= Date.now()) {
          throw new CliError(
            `keys create: --expires ${new Date(opts.expires).toISOString()} is in the past, so the key would never work; give a future datetime`,
            2,
          );
        }
        const { dir, why } = resolveDataDir(opts.dataDir);
        const db = openStore(dir, why);
        let created;
        try {
          const grants = opts.vault.includes('*') ? undefined : resolveVaultGrants(db, opts.vault);
          // A mistyped vault would give a key that reaches nothing, silently: refused, unless the user says the
          // vault is on its way (a grant made before the first sync or import).
          if (grants?.unknown.length && !opts.allowUnknownVault) {
            const named = grants.unknown.map((v) => quoted(v)).join(', ');
            throw new CliError(
              `keys create: no vault in this store has the id or name ${named}; ${grants.unknown.map((v) => noSuchVault(db, v, opts.dataDir)).join('; ')}; or add --allow-unknown-vault to grant that id to a vault not synced or imported yet`,
              2,
            );
          }
          if (grants?.unknown.length) {
            process.stderr.write(
              `note: no vault in this store has the id or name ${grants.unknown.map((v) => quoted(v)).join(', ')} yet; the grant applies once a vault with that id is synced or imported\n`,
            );
          }
          created = createKey(db, {
            name: opts.name,
            role: opts.manager ? 'manager' : 'member',
            vaults: grants?.ids ?? '*',
            expiresAt: opts.expires ? isoUtc(Date.parse(opts.expires)) : null,
          });
        } catch (err) {
          if (err instanceof ServiceError) throw new CliError(`keys create: ${err.message}`, 2);
          throw err;
        } finally {
          db.close();
        }
        const { key, info } = created;
        if (opts.json) process.stdout.write(`${JSON.stringify({ key, ...info }, null, 2)}\n`);
        else
          process.stdout.write(`${key}\n`),
            process.stderr.write(`created ${describe(info)}\nThe key is shown only this once.\n`);
      },
    );

  keys
    .command('list')
    .description('list keys and the OAuth grants people approved with them (never a secret)')
    .option('--json', 'print JSON')
    .option(...dataDirOption)
    .action((opts: { json?: boolean; dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      const all = listKeys(db);
      const grants = listGrants(db);
      db.close();
      if (opts.json)
        return void process.stdout.write(
          `${JSON.stringify([...all, ...grants.map((g) => ({ kind: 'oauth_grant', ...g }))], null, 2)}\n`,
        );
      process.stdout.write(`${[...all.map(describe), ...grants.map(describeGrant)].join('\n') || 'no keys'}\n`);
    });

  keys
    .command('revoke')
    .description('revoke a key, or an OAuth grant and all its tokens, at once')
    .argument('<id>', 'the key id (key_…) or grant id (grant_…), from keys list')
    .option(...dataDirOption)
    .action((id: string, opts: { dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      try {
        if (id.startsWith(GRANT_ID_PREFIX)) process.stderr.write(`revoked ${describeGrant(revokeGrant(db, id))}\n`);
        else process.stderr.write(`revoked ${describe(revokeKey(db, id))}\n`);
      } catch (err) {
        if (err instanceof ServiceError) throw new CliError(err.message);
        throw err;
      } finally {
        db.close();
      }
    });
}
