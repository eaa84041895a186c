/**
 * Push: the outbox replayed upstream in order, each call carrying its entry's idempotency id as
 * `Idempotency-Key`, so a push that was interrupted and repeated never applies a write twice. Ids the
 * local writes made up (a task, an artifact…) are mapped to the ones upstream gave, and later entries
 * naming them are rewritten. A refusal marks that entry failed with upstream's error and the rest go on;
 * a network failure stops the push (later entries may depend on this one) and leaves it pending.
 */
import { sql, type Db } from '../store/db.js';
import { listOutbox, type OutboxEntry } from '../store/outbox.js';
import { RemoteAuthError, RemoteError, type RemoteClient } from './remote.js';

/** Which field of a write's answer names the record it created, per tool. */
const CREATES: Record<string, { kind: 'task' | 'event' | 'email' | 'artifact'; field: 'id' | 'artifactId' }> = {
  add_task: { kind: 'task', field: 'id' },
  schedule_meeting: { kind: 'event', field: 'id' },
  send_email: { kind: 'email', field: 'id' },
  render_chart: { kind: 'artifact', field: 'artifactId' },
  export_report: { kind: 'artifact', field: 'artifactId' },
  export_workbook: { kind: 'artifact', field: 'artifactId' },
};

export interface PushReport {
  pushed: number;
  failed: { seq: number; tool: string; error: string }[];
  pending: number;
  /** Set when the push stopped early (network), with why. */
  stopped?: string;
}

/** Ids of records created by writes not pushed yet: a pull keeps them. */
export function localOnlyIds(db: Db, vaultId: string, kind: string): Set<string> {
  const ids = new Set<string>();
  for (const e of listOutbox(db, { vaultId, limit: 1_000_000 })) {
    const creates = CREATES[e.tool];
    if (e.status === 'pushed' || creates?.kind !== kind) continue;
    const id = (e.result as Record<string, unknown> | null)?.[creates.field];
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

export async function pushOutbox(
  db: Db,
  remote: RemoteClient,
  options: { vaultIds?: Set<string>; progress?: (done: number, total: number) => void } = {},
): Promise<PushReport> {
  const entries = listOutbox(db, { status: 'pending', limit: 1_000_000 }).filter((e) => !options.vaultIds || options.vaultIds.has(e.vaultId));
  const report: PushReport = { pushed: 0, failed: [], pending: entries.length };
  for (const [i, entry] of entries.entries()) {
    const at = new Date().toISOString();
    try {
      const answer = await remote.tool<Record<string, unknown>>(entry.tool, { ...mapIds(db, entry), vault: entry.vaultId }, { 'Idempotency-Key': entry.idempotencyId });
      db.transaction(() => {
        sql(db, "UPDATE outbox SET status = 'pushed', attempts = attempts + 1, last_error = NULL, pushed_at = ? WHERE seq = ?").run(at, entry.seq);
        rememberCreatedId(db, entry, answer);
        sql(db, 'UPDATE sync_state SET last_push_at = ? WHERE vault_id = ?').run(at, entry.vaultId);
      })();
      report.pushed++;
    } catch (err) {
      if (err instanceof RemoteAuthError) throw err;
      const message = err instanceof RemoteError ? `${err.code}: ${err.message}` : (err as Error).message;
      if (err instanceof RemoteError) {
        sql(db, "UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE seq = ?").run(message, entry.seq);
        report.failed.push({ seq: entry.seq, tool: entry.tool, error: message });
      } else {
        sql(db, 'UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ?').run(message, entry.seq);
        report.stopped = `outbox entry ${entry.seq} (${entry.tool}) could not be pushed: ${message}`;
        break;
      }
    }
    options.progress?.(i + 1, entries.length);
  }
  report.pending = listOutbox(db, { status: 'pending', limit: 1_000_000 }).filter((e) => !options.vaultIds || options.vaultIds.has(e.vaultId)).length;
  return report;
}

function rememberCreatedId(db: Db, entry: OutboxEntry, answer: Record<string, unknown>): void {
  const creates = CREATES[entry.tool];
  const localId = (entry.result as Record<string, unknown> | null)?.[creates?.field ?? ''];
  const remoteId = answer[creates?.field ?? ''];
  if (!creates || typeof localId !== 'string' || typeof remoteId !== 'string') return;
  const map = sql(db, 'INSERT OR REPLACE INTO sync_id_map (vault_id, kind, local_id, remote_id) VALUES (?, ?, ?, ?)');
  map.run(entry.vaultId, creates.kind, localId, remoteId);
  // A task is also named by its board identifier (`NWL-26`) and number.
  const localIdentifier = (entry.result as Record<string, unknown>).identifier;
  if (creates.kind === 'task' && typeof localIdentifier === 'string' && typeof answer.identifier === 'string') {
    map.run(entry.vaultId, 'task-identifier', localIdentifier, answer.identifier);
  }
}

/** The entry's arguments with ids of records created here replaced by upstream's. */
function mapIds(db: Db, entry: OutboxEntry): Record<string, unknown> {
  const lookup = (kind: string, id: unknown) =>
    typeof id === 'string' ? ((sql(db, 'SELECT remote_id FROM sync_id_map WHERE vault_id = ? AND kind = ? AND local_id = ?').pluck().get(entry.vaultId, kind, id) as string | undefined) ?? id) : id;
  const args = { ...entry.args };
  if (entry.tool === 'update_task') {
    if (args.taskId !== undefined) args.taskId = lookup('task', args.taskId);
    if (typeof args.identifier === 'string') args.identifier = lookup('task-identifier', args.identifier);
  }
  if (entry.tool === 'send_email' && Array.isArray(args.attachmentIds)) args.attachmentIds = args.attachmentIds.map((id) => lookup('artifact', id));
  return args;
}
