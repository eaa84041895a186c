/** The OAuth tables: the authorization server's records (found by the hash of their id) and the grants people approved. */
import { sql, type Db } from './db.js';
import type { Role } from '../core/principal.js';

export interface OAuthRecordRow {
  payload: string;
  expires_at: number | null;
  consumed_at: number | null;
}

export function upsertOAuthRecord(
  db: Db,
  r: {
    model: string;
    idHash: string;
    payload: string;
    grantId?: string;
    uid?: string;
    userCode?: string;
    expiresAt: number | null;
  },
): void {
  sql(
    db,
    `INSERT INTO oauth_records (model, id_hash, payload, grant_id, uid, user_code, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
       user_code = excluded.user_code, expires_at = excluded.expires_at`,
  ).run(r.model, r.idHash, r.payload, r.grantId ?? null, r.uid ?? null, r.userCode ?? null, r.expiresAt);
}

/** A live record (not past its expiry) of a model. */
export function oauthRecord(db: Db, model: string, idHash: string, now = Date.now()): OAuthRecordRow | undefined {
  return sql(
    db,
    'SELECT payload, expires_at, consumed_at FROM oauth_records WHERE model = ? AND id_hash = ? AND (expires_at IS NULL OR expires_at > ?)',
  ).get(model, idHash, now) as OAuthRecordRow | undefined;
}

export function oauthRecordByColumn(
  db: Db,
  model: string,
  column: 'uid' | 'user_code',
  value: string,
  now = Date.now(),
): OAuthRecordRow | undefined {
  return sql(
    db,
    `SELECT payload, expires_at, consumed_at FROM oauth_records WHERE model = ? AND ${column} = ? AND (expires_at IS NULL OR expires_at > ?)`,
  ).get(model, value, now) as OAuthRecordRow | undefined;
}

export function consumeOAuthRecord(db: Db, model: string, idHash: string, at = Date.now()): void {
  sql(db, 'UPDATE oauth_records SET consumed_at = ? WHERE model = ? AND id_hash = ?').run(at, model, idHash);
}

export function deleteOAuthRecord(db: Db, model: string, idHash: string): void {
  sql(db, 'DELETE FROM oauth_records WHERE model = ? AND id_hash = ?').run(model, idHash);
}

/** Every code and token of a grant, and the grant record itself. */
export function deleteOAuthRecordsOfGrant(db: Db, grantId: string): void {
  sql(db, 'DELETE FROM oauth_records WHERE grant_id = ?').run(grantId);
}

export function deleteExpiredOAuthRecords(db: Db, now = Date.now()): number {
  return sql(db, 'DELETE FROM oauth_records WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now).changes;
}

/** How many records of a model are live (not past their expiry): authorizations waiting for consent, say. */
export function countLiveOAuthRecords(db: Db, model: string, now = Date.now()): number {
  return (
    sql(db, 'SELECT COUNT(*) AS n FROM oauth_records WHERE model = ? AND (expires_at IS NULL OR expires_at > ?)').get(
      model,
      now,
    ) as { n: number }
  ).n;
}

/** Registered clients still waiting for their first grant (they expire; a client that got one does not). */
export function countUnusedOAuthClients(db: Db, now = Date.now()): number {
  return (
    sql(db, "SELECT COUNT(*) AS n FROM oauth_records WHERE model = 'Client' AND expires_at > ?").get(now) as {
      n: number;
    }
  ).n;
}

/**
 * Deletes the `n` oldest live records of a model that expire (unapproved clients, waiting authorizations): all of a
 * model's records get the same lifetime, so the soonest to expire is the oldest. A client with a grant never expires
 * and is never taken.
 */
export function evictOldestOAuthRecords(db: Db, model: string, n: number, now = Date.now()): number {
  return sql(
    db,
    'DELETE FROM oauth_records WHERE model = ? AND id_hash IN (SELECT id_hash FROM oauth_records WHERE model = ? AND expires_at > ? ORDER BY expires_at, id_hash LIMIT ?)',
  ).run(model, model, now, n).changes;
}

/** A registered client got a grant: it no longer expires. */
export function keepOAuthClient(db: Db, idHash: string): void {
  sql(db, "UPDATE oauth_records SET expires_at = NULL WHERE model = 'Client' AND id_hash = ?").run(idHash);
}

/**
 * Claims a one-time use (a consent form's answer, by its authorization request's id): true the first time, false
 * ever after (until `expiresAt`). One statement, so two requests racing cannot both win.
 */
export function claimOAuthOnce(db: Db, model: string, idHash: string, expiresAt: number): boolean {
  return (
    sql(
      db,
      "INSERT INTO oauth_records (model, id_hash, payload, expires_at) VALUES (?, ?, '{}', ?) ON CONFLICT (model, id_hash) DO NOTHING",
    ).run(model, idHash, expiresAt).changes === 1
  );
}

export interface OAuthGrantRow {
  id: string;
  key_id: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  role: Role;
  vaults_json: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export function insertOAuthGrant(db: Db, g: Omit<OAuthGrantRow, 'revoked_at' | 'last_used_at'>): void {
  sql(
    db,
    'INSERT INTO oauth_grants (id, key_id, client_id, client_name, redirect_host, role, vaults_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(g.id, g.key_id, g.client_id, g.client_name, g.redirect_host, g.role, g.vaults_json, g.created_at);
}

export function oauthGrantRow(db: Db, id: string): OAuthGrantRow | undefined {
  return sql(db, 'SELECT * FROM oauth_grants WHERE id = ?').get(id) as OAuthGrantRow | undefined;
}

/** Oldest first. */
export function listOAuthGrantRows(db: Db): OAuthGrantRow[] {
  return sql(db, 'SELECT * FROM oauth_grants ORDER BY created_at, rowid').all() as OAuthGrantRow[];
}

/** Marks a grant revoked and deletes all its codes and tokens, at once; false when it was revoked already or is unknown. */
export function revokeOAuthGrantRow(db: Db, id: string, at: string): boolean {
  return db.transaction(() => {
    deleteOAuthRecordsOfGrant(db, id);
    return (
      sql(db, 'UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes > 0
    );
  })();
}

export function touchOAuthGrant(db: Db, id: string, at: string): void {
  sql(db, 'UPDATE oauth_grants SET last_used_at = ? WHERE id = ?').run(at, id);
}
