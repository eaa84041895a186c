/** What every command needs: the data dir, the store, the credential, and a clean way to fail. */
import envPaths from 'env-paths';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { authenticate, ensureOwnerKey } from '../auth/keys.js';
import type { Principal } from '../core/principal.js';
import { allVaults, findVault, openDataDirStore, type Store } from '../service/open.js';
import { quoted, ServiceError } from '../core/errors.js';
import { printable } from '../core/printable.js';

/** A failure the user can act on: printed as one line on stderr, exit code 1 (2 for usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function userDataDir(): string {
  return envPaths('vault-tools', { suffix: '' }).data;
}

const PLATFORM_DIR = 'the platform user data dir';

/** `--data-dir`, else VAULT_TOOLS_HOME, else the platform's user data dir. */
export function resolveDataDir(option: string | undefined): { dir: string; why: string } {
  if (option) return { dir: option, why: '--data-dir' };
  if (process.env.VAULT_TOOLS_HOME) return { dir: process.env.VAULT_TOOLS_HOME, why: 'VAULT_TOOLS_HOME' };
  return { dir: userDataDir(), why: PLATFORM_DIR };
}

/**
 * A data dir named by the user must exist unless the command makes stores (demo, import, sync) or was given
 * `--init`: a mistyped path would otherwise grow a new empty store and owner key without a word. The platform
 * default is created on first use (nothing to mistype there).
 */
export function checkDataDir(dir: string, why: string, create: boolean, offersInit = false): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && (create || why === PLATFORM_DIR)) return;
    // Only serve and call take --init; the others (keys, outbox, reindex) name a command that does.
    const fix = offersInit ? 'add --init to create a new store there' : 'create a new store there first (`vault-tools serve --init`, `demo`, `import` or `sync`)';
    if (code === 'ENOENT') throw new CliError(`no data dir at ${dir} (chosen by ${why}): check the path, or ${fix}`);
    throw new CliError(`cannot read the data dir ${dir} (chosen by ${why}): ${code ?? (err as Error).message}`);
  }
  if (!isDir) throw new CliError(`the data dir ${dir} (chosen by ${why}) is a file, not a folder: name a folder`);
}

/**
 * The store every command (serve and demo included) works on, with what interrupted writes left swept away;
 * `create` allows a data dir that does not exist yet (see checkDataDir); `offersInit`: the command takes --init.
 */
export function openStore(dir: string, why: string, { create = false, offersInit = false }: { create?: boolean; offersInit?: boolean } = {}): Store {
  checkDataDir(dir, why, create, offersInit);
  try {
    return openDataDirStore(dir);
  } catch (err) {
    throw new CliError(`cannot open the store in ${dir} (chosen by ${why}): ${(err as Error).message}`);
  }
}

/**
 * The vault a command's `--vault` names, by exact id or exact name, as `vault` works in `call` and every tool: a
 * name that is no vault here fails with the vaults there are, not with an empty answer.
 */
export function vaultOption(db: Store, given: string, command: string): string {
  const found = findVault(db, given);
  if (found) return found.id;
  const all = allVaults(db);
  const choices = all.length ? `the vaults here are ${printable(all.map((v) => `${v.id} ("${v.name}")`).join(', '), 2000)}` : 'this store has no vault yet (`vault-tools demo`, `import` or `sync` fill it)';
  throw new CliError(`${command}: --vault ${quoted(given)} is no vault's id or name; ${choices}`);
}

/**
 * The key stdio and `call` act with: `--key`, else VAULT_TOOLS_KEY, else the data dir's owner key
 * (created on first use and shown once, on stderr).
 */
export function resolveKey(db: Store, dataDir: string, option: string | undefined): string {
  if (option) return option;
  if (process.env.VAULT_TOOLS_KEY) return process.env.VAULT_TOOLS_KEY;
  const owner = ensureOwnerKey(db, dataDir);
  if (owner.created) {
    process.stderr.write(
      `vault-tools: created the owner key of ${dataDir} (manager, all vaults). It is shown once and kept in ${join(dataDir, 'owner.key')}:\n  ${owner.key}\n`,
    );
  }
  return owner.key;
}

/** Authenticates now so a bad key fails at start-up with a clear message, not on the first call. */
export function principalFor(db: Store, key: string): Principal {
  try {
    return authenticate(db, key);
  } catch (err) {
    if (err instanceof ServiceError) throw new CliError(err.message);
    throw err;
  }
}
