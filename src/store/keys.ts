/**
 * The key table: which hashed keys exist, their role, and the vaults each is granted. What a key string looks
 * like, how it is hashed and what authenticating means belong to auth/keys.ts; this module only stores rows.
 */
import type { Role } from '../core/principal.js';
import { sql, writeTransaction, type Db } from './db.js';

export interface KeyRow {
  id: string;
  name: string;
  key_prefix: string;
  role: Role;
  all_vaults: number;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** A key and its grants, in one transaction; `vaults: '*'` reaches every vault. */
export function insertKey(
  db: Db,
  k: {
    id: string;
    name: string;
    keyHash: string;
    prefix: string;
    role: Role;
    vaults: string[] | '*';
    createdAt: string;
    expiresAt: string | null;
  },
): void {
  writeTransaction(db, () => {
    sql(
      db,
      `INSERT INTO api_keys (id, name, key_hash, key_prefix, role, all_vaults, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(k.id, k.name, k.keyHash, k.prefix, k.role, k.vaults === '*' ? 1 : 0, k.createdAt, k.expiresAt);
    if (k.vaults !== '*') {
      const grant = sql(db, 'INSERT OR IGNORE INTO api_key_vaults (key_id, vault_id) VALUES (?, ?)');
      for (const v of k.vaults) grant.run(k.id, v);
    }
  });
}

/** The vault ids a key not granted every vault reaches, in id order. */
export function keyVaultIds(db: Db, keyId: string): string[] {
  return sql(db, 'SELECT vault_id FROM api_key_vaults WHERE key_id = ? ORDER BY vault_id')
    .pluck()
    .all(keyId) as string[];
}

export function getKeyRow(db: Db, id: string): KeyRow | undefined {
  return sql(db, 'SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
}

export function keyRowByHash(db: Db, keyHash: string): KeyRow | undefined {
  return sql(db, 'SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as KeyRow | undefined;
}

/** Oldest first. */
export function listKeyRows(db: Db): KeyRow[] {
  return sql(db, 'SELECT * FROM api_keys ORDER BY created_at, rowid').all() as KeyRow[];
}

/** Marks a key revoked at `at`; false when there is no such key or it was revoked already. */
export function revokeKeyRow(db: Db, id: string, at: string): boolean {
  return sql(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes > 0;
}

export function countActiveKeys(db: Db): number {
  return sql(db, 'SELECT count(*) FROM api_keys WHERE revoked_at IS NULL').pluck().get() as number;
}
