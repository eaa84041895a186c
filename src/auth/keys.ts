/**
 * Personal keys. A key is `vt_` + 32 random base62 characters (about 190 bits); the store keeps only its
 * SHA-256, a short display prefix, its role (member or manager), and the vaults it reaches (or all).
 * The data dir's default owner key (manager, all vaults) lives in `owner.key`, readable by the user alone,
 * so a local `serve` or `call` works without passing a key around.
 */
import * as crypto from 'node:crypto';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedRead, type Db } from '../store/db.js';
import {
  getKeyRow,
  insertKey,
  keyRowByHash,
  keyVaultIds,
  listKeyRows,
  revokeKeyRow,
  type KeyRow,
} from '../store/keys.js';
import { vaultIdsAndNames } from '../store/vaults.js';
import { ServiceError } from '../core/errors.js';
import type { Principal, Role } from '../core/principal.js';
import { isoUtc } from '../time.js';

export interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  vaults: string[] | '*';
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** What every personal key starts with: the HTTP listener routes a bearer credential by it (else an OAuth token). */
export const KEY_PREFIX = 'vt_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const OWNER_KEY_FILE = 'owner.key';

function randomKey(): string {
  const bytes = randomBytes(32);
  let out = KEY_PREFIX;
  for (const b of bytes) out += BASE62[b % 62]; // 256 % 62 bias is negligible at this length
  return out;
}

// One-shot crypto.hash (Node ≥ 20.12) costs about half of a Hash object; every request hashes its key.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
export const hashKey = (key: string): string =>
  oneShot ? oneShot('sha256', key, 'hex') : createHash('sha256').update(key).digest('hex');

export function createKey(
  db: Db,
  opts: { name: string; role: Role; vaults: string[] | '*'; expiresAt?: string | null },
  now = new Date(),
): { key: string; info: KeyInfo } {
  const key = randomKey();
  const id = `key_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const createdAt = isoUtc(now);
  insertKey(db, {
    id,
    name: opts.name,
    keyHash: hashKey(key),
    prefix: key.slice(0, 10),
    role: opts.role,
    vaults: opts.vaults,
    createdAt,
    expiresAt: opts.expiresAt ?? null,
  });
  return { key, info: getKey(db, id)! };
}

/**
 * The vault ids a `--vault` list grants: each entry is a vault's id, or its exact name or id ignoring
 * case (tools accept both; grants are stored by id, which is what every call is checked against). An entry
 * no vault in the store matches stays as given, so a vault synced or imported later under that id is
 * reached; an entry matching several vaults is refused, listing their ids.
 */
export function resolveVaultGrants(db: Db, given: string[]): { ids: string[]; unknown: string[] } {
  const vaults = vaultIdsAndNames(db);
  const ids = new Set<string>();
  const unknown: string[] = [];
  for (const wanted of given) {
    const folded = wanted.toLowerCase();
    const matches = vaults.some((v) => v.id === wanted)
      ? [wanted]
      : [
          ...new Set(
            vaults.filter((v) => v.name.toLowerCase() === folded || v.id.toLowerCase() === folded).map((v) => v.id),
          ),
        ];
    if (matches.length > 1) {
      throw new ServiceError(
        'invalid_arguments',
        `vault "${wanted}" matches ${matches.length} vaults (names and ids ignoring case): ${matches.join(', ')}; grant one by its id`,
      );
    }
    if (!matches.length) unknown.push(wanted);
    ids.add(matches[0] ?? wanted);
  }
  return { ids: [...ids], unknown };
}

function toInfo(db: Db, row: KeyRow): KeyInfo {
  const vaults = row.all_vaults ? ('*' as const) : keyVaultIds(db, row.id);
  return {
    id: row.id,
    name: row.name,
    prefix: row.key_prefix,
    role: row.role,
    vaults,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export function getKey(db: Db, id: string): KeyInfo | undefined {
  const row = getKeyRow(db, id);
  return row && toInfo(db, row);
}

export function listKeys(db: Db): KeyInfo[] {
  return listKeyRows(db).map((r) => toInfo(db, r));
}

export function revokeKey(db: Db, id: string, now = new Date()): KeyInfo {
  const revoked = revokeKeyRow(db, id, isoUtc(now));
  const info = getKey(db, id);
  if (!info) throw new ServiceError('not_found', `No key "${id}". \`vault-tools keys list\` shows the key ids.`);
  if (!revoked) throw new ServiceError('invalid_arguments', `Key "${id}" was already revoked at ${info.revokedAt}.`);
  return info;
}

/**
 * The key row and grants behind a key hash, read once per store version (every REST request and MCP call
 * authenticates): a key created, revoked or re-granted, here or by another process, is seen at once.
 */
function keyRecord(db: Db, hash: string): { row: KeyRow; principal: Principal } | undefined {
  return cachedRead(db, `key:${hash}`, () => {
    const row = keyRowByHash(db, hash);
    return row && { row, principal: principalOfRow(db, row) };
  });
}

function principalOfRow(db: Db, row: KeyRow): Principal {
  const info = toInfo(db, row);
  const principal: Principal = {
    keyId: row.id,
    name: row.name,
    role: row.role,
    allVaults: info.vaults === '*',
    vaultIds: new Set(info.vaults === '*' ? [] : info.vaults),
  };
  return Object.freeze(principal);
}

/** The principal behind a key string, or 401. The message never echoes the key. */
export function authenticate(db: Db, key: string | undefined, now = new Date()): Principal {
  if (!key) {
    throw new ServiceError(
      'unauthorized',
      'No key given. Pass a key (--key, VAULT_TOOLS_KEY, or `Authorization: Bearer <key>`); `vault-tools keys create` makes one.',
    );
  }
  const record = keyRecord(db, hashKey(key.trim()));
  if (!record)
    throw new ServiceError(
      'unauthorized',
      'The key is not valid for this store. `vault-tools keys list` shows the keys it knows.',
    );
  return activePrincipal(record.row, record.principal, now);
}

/**
 * The principal of the key with this id, if it is still active: for a caller that proved the key earlier (the
 * OAuth consent page's second step), so a key revoked or expired in between is refused as a key would be.
 */
export function principalOfKeyId(db: Db, keyId: string, now = new Date()): Principal {
  const row = getKeyRow(db, keyId);
  if (!row) throw new ServiceError('unauthorized', 'The key is no longer known to this store.');
  return activePrincipal(row, principalOfRow(db, row), now);
}

function activePrincipal(row: KeyRow, principal: Principal, now: Date): Principal {
  if (row.revoked_at)
    throw new ServiceError('unauthorized', `The key ${row.key_prefix}… was revoked at ${row.revoked_at}.`);
  if (row.expires_at && Date.parse(row.expires_at) <= now.getTime()) {
    throw new ServiceError('unauthorized', `The key ${row.key_prefix}… expired at ${row.expires_at}.`);
  }
  return principal;
}

/** Whether `key` is a key of this store that was never revoked (expired or not). */
export function isActiveKey(db: Db, key: string): boolean {
  const row = keyRowByHash(db, hashKey(key));
  return row !== undefined && !row.revoked_at;
}

/** Where `restore --keep-keys` names the owner key a backup brought (its secret is in another data dir's owner.key). */
export const RESTORED_OWNER_FILE = 'owner.key.restored';

/** The active owner key a restore kept, as RESTORED_OWNER_FILE names it, if any. */
function restoredOwnerKey(db: Db, dataDir: string): KeyRow | undefined {
  const named = join(dataDir, RESTORED_OWNER_FILE);
  if (!existsSync(named)) return undefined;
  const row = getKeyRow(db, readFileSync(named, 'utf8').trim());
  return row && !row.revoked_at ? row : undefined;
}

/** The data dir's owner key, created (manager, all vaults) on first use; `created` tells the caller to show it once. */
export function ensureOwnerKey(db: Db, dataDir: string): { key: string; created: boolean } {
  const file = join(dataDir, OWNER_KEY_FILE);
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (isActiveKey(db, key)) return { key, created: false };
  }
  // A restored store (restore --keep-keys) keeps its owner key, whose secret is in the owner.key of the data dir
  // it came from: a second one made here would leave two "owner" keys, one nobody can name. Restore names that key
  // in RESTORED_OWNER_FILE; a key merely called "owner" (keys create --name owner) is not it.
  const carried = restoredOwnerKey(db, dataDir);
  if (carried) {
    throw new ServiceError(
      'unauthorized',
      `The store's owner key (${carried.key_prefix}…) is not the one in ${file}: it came with a restored backup. Copy owner.key from the data dir the backup was made from, pass --key, or revoke it (\`vault-tools keys revoke ${carried.id}\`) to have a new one made.`,
    );
  }
  rmSync(join(dataDir, RESTORED_OWNER_FILE), { force: true });
  const { key } = createKey(db, { name: 'owner', role: 'manager', vaults: '*' });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key, created: true };
}
