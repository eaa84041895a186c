/** The outbox: every local write, appended in the same transaction as the write itself. */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../core/principal.js';
import { limitParam, sql, type Db } from './db.js';

export interface OutboxEntry {
  seq: number;
  idempotencyId: string;
  vaultId: string;
  tool: string;
  args: Record<string, unknown>;
  result: unknown;
  keyName: string | null;
  status: 'pending' | 'pushed' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: string;
  pushedAt: string | null;
}

export function appendOutbox(
  db: Db,
  entry: {
    vaultId: string;
    tool: string;
    args: Record<string, unknown>;
    result: unknown;
    principal: Principal;
    at: string;
    idempotencyKey?: string;
  },
): { seq: number; idempotencyId: string } {
  // The id sent upstream is always this store's own: the caller's key (kept beside it for replays) is only
  // unique for that caller, and two callers' writes pushed with one remote key must not share one.
  const idempotencyId = randomUUID();
  const { lastInsertRowid } = sql(
    db,
    `INSERT INTO outbox (idempotency_id, idempotency_key, vault_id, tool, args_json, result_json, key_id, key_name, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    idempotencyId,
    entry.idempotencyKey ?? null,
    entry.vaultId,
    entry.tool,
    JSON.stringify(entry.args),
    JSON.stringify(entry.result ?? null),
    entry.principal.keyId,
    entry.principal.name,
    entry.at,
  );
  return { seq: Number(lastInsertRowid), idempotencyId };
}

export function setOutboxResult(db: Db, seq: number, result: unknown): void {
  sql(db, 'UPDATE outbox SET result_json = ? WHERE seq = ?').run(JSON.stringify(result ?? null), seq);
}

/** The write a caller (API key) made under its Idempotency-Key, if any. */
export function findKeyedOutboxEntry(db: Db, keyId: string, idempotencyKey: string): OutboxEntry | undefined {
  const row = sql(db, 'SELECT * FROM outbox WHERE key_id = ? AND idempotency_key = ?').get(keyId, idempotencyKey) as
    | Record<string, any>
    | undefined;
  return row ? toEntry(row) : undefined;
}

export function listOutbox(db: Db, opts: { vaultId?: string; status?: string; limit: number }): OutboxEntry[] {
  const rows = sql(
    db,
    `SELECT * FROM outbox WHERE (@v IS NULL OR vault_id = @v) AND (@s IS NULL OR status = @s) ORDER BY seq LIMIT ${limitParam('@limit')}`,
  ).all({ v: opts.vaultId ?? null, s: opts.status ?? null, limit: opts.limit }) as Record<string, any>[];
  return rows.map(toEntry);
}

/** A vault's entries not pushed upstream (pending or failed), counted per tool and status. */
export function unpushedCounts(db: Db, vaultId: string): { tool: string; status: 'pending' | 'failed'; n: number }[] {
  return sql(
    db,
    "SELECT tool, status, count(*) AS n FROM outbox WHERE vault_id = ? AND status <> 'pushed' GROUP BY tool, status",
  ).all(vaultId) as {
    tool: string;
    status: 'pending' | 'failed';
    n: number;
  }[];
}

/** Drops a vault's entries not pushed upstream (their records are being replaced). */
export function dropUnpushed(db: Db, vaultId: string): void {
  sql(db, "DELETE FROM outbox WHERE vault_id = ? AND status <> 'pushed'").run(vaultId);
}

function toEntry(r: Record<string, any>): OutboxEntry {
  return {
    seq: r.seq,
    idempotencyId: r.idempotency_id,
    vaultId: r.vault_id,
    tool: r.tool,
    args: JSON.parse(r.args_json),
    result: r.result_json ? JSON.parse(r.result_json) : null,
    keyName: r.key_name,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    createdAt: r.created_at,
    pushedAt: r.pushed_at,
  };
}

/** Upstream applied the entry (sync's push). */
export function markOutboxPushed(db: Db, seq: number, at: string): void {
  sql(
    db,
    "UPDATE outbox SET status = 'pushed', attempts = attempts + 1, last_error = NULL, pushed_at = ? WHERE seq = ?",
  ).run(at, seq);
}

/** Upstream refused the entry: it is not tried again. */
export function markOutboxFailed(db: Db, seq: number, error: string): void {
  sql(db, "UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE seq = ?").run(error, seq);
}

/** The entry could not reach upstream: it stays pending, with the attempt and why it failed. */
export function noteOutboxAttempt(db: Db, seq: number, error: string): void {
  sql(db, 'UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ?').run(error, seq);
}
