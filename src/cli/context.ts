/** What every command needs: the data dir, the store, the credential, and a clean way to fail. */
import envPaths from 'env-paths';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { authenticate, ensureOwnerKey } from '../auth/keys.js';
import type { Principal } from '../core/principal.js';
import { allVaults, findVault, openDataDirStore, type Store } from '../service/open.js';
import { quoted, ServiceError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { closest } from '../core/closest.js';

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
    const fix = offersInit
      ? 'add --init to create a new store there'
      : 'create a new store there first (`vault-tools serve --init`, `demo`, `import` or `sync`)';
    if (code === 'ENOENT') throw new CliError(`no data dir at ${dir} (chosen by ${why}): check the path, or ${fix}`);
    throw new CliError(`cannot read the data dir ${dir} (chosen by ${why}): ${code ?? (err as Error).message}`);
  }
  if (!isDir) throw new CliError(`the data dir ${dir} (chosen by ${why}) is a file, not a folder: name a folder`);
}

/**
 * The store every command (serve and demo included) works on, with what interrupted writes left swept away;
 * `create` allows a data dir that does not exist yet (see checkDataDir); `offersInit`: the command takes --init.
 */
export function openStore(
  dir: string,
  why: string,
  { create = false, offersInit = false }: { create?: boolean; offersInit?: boolean } = {},
): Store {
  checkDataDir(dir, why, create, offersInit);
  try {
    return openDataDirStore(dir);
  } catch (err) {
    throw new CliError(`cannot open the store in ${dir} (chosen by ${why}): ${(err as Error).message}`);
  }
}

/** A word as a shell reads it back: quoted when it holds anything but safe characters. */
export const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * ` --data-dir DIR` (absolute) for a command a hint prints, so it reaches the store this one used: without it,
 * `vault-tools call list_vaults` after `--data-dir ./demo-store` answers from another, empty store. Empty when
 * the data dir came from VAULT_TOOLS_HOME or the platform default, which the hint's command finds alike.
 */
export function dataDirArg(option: string | undefined): string {
  return option ? ` --data-dir ${shellWord(resolve(option))}` : '';
}

/** One or two sentences for a `--vault` that names no vault: the nearest ids or names, and how to list them all. */
export function noSuchVault(db: Store, given: string, dataDir: string | undefined): string {
  const all = allVaults(db);
  if (!all.length) return `this store has no vault yet (\`vault-tools demo\`, \`import\` or \`sync\` fill it)`;
  const near = closest(given, all, (v) => [v.id, v.name]).map((v) => `${v.id} ("${printable(v.name, 200)}")`);
  return `${near.length ? `did you mean ${near.join(' or ')}? ` : ''}\`vault-tools call list_vaults${dataDirArg(dataDir)}\` lists all ${all.length}`;
}

/**
 * The vault a command's `--vault` names, by exact id or exact name, as `vault` works in `call` and every tool: a
 * name that is no vault here fails with the nearest ones and how to list them, not with an empty answer.
 */
export function vaultOption(db: Store, given: string, command: string, dataDir: string | undefined): string {
  const found = findVault(db, given);
  if (found) return found.id;
  throw new CliError(
    `${command}: --vault ${quoted(given)} is no vault's id or name; ${noSuchVault(db, given, dataDir)}`,
  );
}

/**
 * The key stdio and `call` act with: `--key`, else VAULT_TOOLS_KEY, else the data dir's owner key
 * (created on first use and shown once, on stderr).
 */
export function resolveKey(db: Store, dataDir: string, option: string | undefined): string {
  if (option) return option;
  if (process.env.VAULT_TOOLS_KEY) return process.env.VAULT_TOOLS_KEY;
  let owner;
  try {
    owner = ensureOwnerKey(db, dataDir);
  } catch (err) {
    if (err instanceof ServiceError) throw new CliError(err.message);
    throw err;
  }
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
