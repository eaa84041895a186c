/**
 * Sync's own bookkeeping, per vault: its state (remote, last pull and push, last error), the checkpoints of
 * each resource (a list's fingerprint, a kept answer with its ETag), the fingerprint each record last landed
 * with, upstream's fields the schema does not name, and the ids upstream gave to records created here.
 * Every write runs inside the caller's transaction.
 */
import { sql, type Db } from './db.js';
import { isoUtc } from '../time.js';

export interface SyncStateRow {
  vault_id: string;
  remote_url: string;
  last_pull_at: string | null;
  last_push_at: string | null;
  last_error: string | null;
  pull_requests: number;
}

export function ensureSyncState(db: Db, vaultId: string, remoteUrl: string): void {
  sql(
    db,
    'INSERT INTO sync_state (vault_id, remote_url) VALUES (?, ?) ON CONFLICT (vault_id) DO UPDATE SET remote_url = excluded.remote_url',
  ).run(vaultId, remoteUrl);
}

export function setPullRequests(db: Db, vaultId: string, requests: number): void {
  sql(db, 'UPDATE sync_state SET pull_requests = ? WHERE vault_id = ?').run(requests, vaultId);
}

export function setSyncError(db: Db, vaultId: string, message: string): void {
  sql(db, 'UPDATE sync_state SET last_error = ? WHERE vault_id = ?').run(message, vaultId);
}

export function listSyncStates(db: Db): SyncStateRow[] {
  return sql(db, 'SELECT * FROM sync_state ORDER BY vault_id').all() as SyncStateRow[];
}

export function lastPullStartedAt(db: Db, vaultId: string): string | null | undefined {
  return sql(db, 'SELECT last_pull_started_at FROM sync_state WHERE vault_id = ?').pluck().get(vaultId) as
    | string
    | null
    | undefined;
}

/** A pull that ended well: when it started (the next one asks for changes since then), ended, and no error. */
export function markPulled(db: Db, vaultId: string, startedAt: string, endedAt: string): void {
  sql(db, 'UPDATE sync_state SET last_pull_started_at = ?, last_pull_at = ?, last_error = NULL WHERE vault_id = ?').run(
    startedAt,
    endedAt,
    vaultId,
  );
}

export function markPushed(db: Db, vaultId: string, at: string): void {
  sql(db, 'UPDATE sync_state SET last_push_at = ? WHERE vault_id = ?').run(at, vaultId);
}

/** Everything sync remembers of a vault (its rows go with the vault itself). */
export function forgetSyncedVault(db: Db, vaultId: string): void {
  sql(db, 'DELETE FROM sync_state WHERE vault_id = ?').run(vaultId);
  sql(db, 'DELETE FROM sync_checkpoints WHERE vault_id = ?').run(vaultId);
  sql(db, 'DELETE FROM sync_id_map WHERE vault_id = ?').run(vaultId);
}

export function checkpoint(db: Db, vaultId: string, resource: string): string | undefined {
  return (
    (sql(db, 'SELECT cursor FROM sync_checkpoints WHERE vault_id = ? AND resource = ?')
      .pluck()
      .get(vaultId, resource) as string | null) ?? undefined
  );
}

export function setCheckpoint(db: Db, vaultId: string, resource: string, cursor: string): void {
  sql(db, 'INSERT OR REPLACE INTO sync_checkpoints (vault_id, resource, cursor, updated_at) VALUES (?, ?, ?, ?)').run(
    vaultId,
    resource,
    cursor,
    isoUtc(Date.now()),
  );
}

/** The fingerprint each record of a resource (`entity`, `meeting`, `file`, `artifact`) last landed with, by id. */
export function landedFingerprints(db: Db, vaultId: string, resource: string): Map<string, string> {
  const rows = sql(db, 'SELECT id, fingerprint FROM sync_records WHERE vault_id = ? AND resource = ?').all(
    vaultId,
    resource,
  ) as { id: string; fingerprint: string }[];
  return new Map(rows.map((r) => [r.id, r.fingerprint]));
}

export function setLandedFingerprint(db: Db, vaultId: string, resource: string, id: string, print: string): void {
  sql(db, 'INSERT OR REPLACE INTO sync_records (vault_id, resource, id, fingerprint) VALUES (?, ?, ?, ?)').run(
    vaultId,
    resource,
    id,
    print,
  );
}

/** Forgets what landed of one record, or of the whole resource when no id is given. */
export function forgetLanded(db: Db, vaultId: string, resource: string, id?: string): void {
  if (id === undefined) sql(db, 'DELETE FROM sync_records WHERE vault_id = ? AND resource = ?').run(vaultId, resource);
  else sql(db, 'DELETE FROM sync_records WHERE vault_id = ? AND resource = ? AND id = ?').run(vaultId, resource, id);
}

/** A resource's unnamed upstream fields, replaced whole (records without any keep none). */
export function replaceExtras(
  db: Db,
  vaultId: string,
  resource: string,
  records: readonly { id: string; extra: Record<string, unknown> | undefined }[],
): void {
  sql(db, 'DELETE FROM sync_extra WHERE vault_id = ? AND resource = ?').run(vaultId, resource);
  for (const r of records) if (r.extra) keepExtra(db, vaultId, resource, r.id, r.extra);
}

export function keepExtra(db: Db, vaultId: string, resource: string, id: string, extra: Record<string, unknown>): void {
  sql(db, 'INSERT OR REPLACE INTO sync_extra (vault_id, resource, id, extra_json) VALUES (?, ?, ?, ?)').run(
    vaultId,
    resource,
    id,
    JSON.stringify(extra),
  );
}

export function forgetExtra(db: Db, vaultId: string, resource: string, id: string): void {
  sql(db, 'DELETE FROM sync_extra WHERE vault_id = ? AND resource = ? AND id = ?').run(vaultId, resource, id);
}

/** Records that a record created here (`kind`: task, artifact, …) is `remoteId` upstream. */
export function rememberRemoteId(db: Db, vaultId: string, kind: string, localId: string, remoteId: string): void {
  sql(db, 'INSERT OR REPLACE INTO sync_id_map (vault_id, kind, local_id, remote_id) VALUES (?, ?, ?, ?)').run(
    vaultId,
    kind,
    localId,
    remoteId,
  );
}

export function remoteIdOf(db: Db, vaultId: string, kind: string, localId: string): string | undefined {
  return sql(db, 'SELECT remote_id FROM sync_id_map WHERE vault_id = ? AND kind = ? AND local_id = ?')
    .pluck()
    .get(vaultId, kind, localId) as string | undefined;
}
