/**
 * Push: the outbox replayed upstream in order, each call carrying its entry's idempotency id as
 * `Idempotency-Key`, so a push that was interrupted and repeated never applies a write twice. Ids the
 * local writes made up (a task, an artifact…) are mapped to the ones upstream gave, and later entries
 * naming them are rewritten. A refusal marks that entry failed with upstream's error and the rest go on;
 * a network failure stops the push (later entries may depend on this one) and leaves it pending.
 */
import { writeTransaction, type Db } from '../store/db.js';
import {
  listOutbox,
  markOutboxFailed,
  markOutboxPushed,
  noteOutboxAttempt,
  type OutboxEntry,
} from '../store/outbox.js';
import { markPushed, rememberRemoteId, remoteIdOf } from '../store/sync-checkpoints.js';
import { toolsByName } from '../catalog/index.js';
import type { RecordKind } from '../catalog/define.js';
import { RemoteAuthError, RemoteError, type RemoteClient } from './remote.js';
import { printable } from '../core/printable.js';
import { isoUtc } from '../time.js';

export interface PushReport {
  pushed: number;
  failed: { seq: number; tool: string; error: string }[];
  pending: number;
  /** Set when the push stopped early (network), with why. */
  stopped?: string;
}

/** Ids of records created by writes not pushed yet, by kind: a pull keeps them. */
export function localOnlyIds(db: Db, vaultId: string): Map<RecordKind, Set<string>> {
  const ids = new Map<RecordKind, Set<string>>();
  for (const e of listOutbox(db, { vaultId, limit: 1_000_000 })) {
    const creates = toolsByName.get(e.tool)?.sync.creates;
    const id = (e.result as Record<string, unknown> | null)?.[creates?.field ?? ''];
    if (e.status === 'pushed' || !creates || typeof id !== 'string') continue;
    if (!ids.has(creates.kind)) ids.set(creates.kind, new Set());
    ids.get(creates.kind)!.add(id);
  }
  return ids;
}

export async function pushOutbox(
  db: Db,
  remote: RemoteClient,
  options: { vaultIds?: Set<string>; progress?: (done: number, total: number) => void } = {},
): Promise<PushReport> {
  const entries = listOutbox(db, { status: 'pending', limit: 1_000_000 }).filter(
    (e) => !options.vaultIds || options.vaultIds.has(e.vaultId),
  );
  const report: PushReport = { pushed: 0, failed: [], pending: entries.length };
  for (const [i, entry] of entries.entries()) {
    const at = isoUtc(Date.now());
    try {
      const answer = await remote.tool<Record<string, unknown>>(
        entry.tool,
        { ...mapIds(db, entry), vault: entry.vaultId },
        { 'Idempotency-Key': entry.idempotencyId },
      );
      writeTransaction(db, () => {
        markOutboxPushed(db, entry.seq, at);
        rememberCreatedId(db, entry, answer);
        markPushed(db, entry.vaultId, at);
      });
      report.pushed++;
    } catch (err) {
      if (err instanceof RemoteAuthError) throw err;
      // Stored and shown by `sync --status`: no text from the remote reaches a terminal unescaped.
      const message = printable(err instanceof RemoteError ? `${err.code}: ${err.message}` : (err as Error).message);
      if (err instanceof RemoteError) {
        markOutboxFailed(db, entry.seq, message);
        report.failed.push({ seq: entry.seq, tool: entry.tool, error: message });
      } else {
        noteOutboxAttempt(db, entry.seq, message);
        report.stopped = `outbox entry ${entry.seq} (${entry.tool}) could not be pushed: ${message}`;
        break;
      }
    }
    options.progress?.(i + 1, entries.length);
  }
  report.pending = listOutbox(db, { status: 'pending', limit: 1_000_000 }).filter(
    (e) => !options.vaultIds || options.vaultIds.has(e.vaultId),
  ).length;
  return report;
}

function rememberCreatedId(db: Db, entry: OutboxEntry, answer: Record<string, unknown>): void {
  const creates = toolsByName.get(entry.tool)?.sync.creates;
  if (!creates) return;
  const local = (entry.result ?? {}) as Record<string, unknown>;
  const [localId, remoteId] = [local[creates.field], answer[creates.field]];
  if (typeof localId === 'string' && typeof remoteId === 'string')
    rememberRemoteId(db, entry.vaultId, creates.kind, localId, remoteId);
  // A task is also named by its board identifier (`NWL-26`).
  if (creates.kind === 'task' && typeof local.identifier === 'string' && typeof answer.identifier === 'string') {
    rememberRemoteId(db, entry.vaultId, 'task-identifier', local.identifier, answer.identifier);
  }
}

/** The entry's arguments with ids of records created here replaced by upstream's (the fields its tool declares). */
function mapIds(db: Db, entry: OutboxEntry): Record<string, unknown> {
  const remoteId = (kind: string, id: unknown) =>
    typeof id === 'string' ? (remoteIdOf(db, entry.vaultId, kind, id) ?? id) : id;
  const args = { ...entry.args };
  for (const [field, kind] of Object.entries(toolsByName.get(entry.tool)?.sync.references ?? {})) {
    const value = args[field];
    if (value !== undefined)
      args[field] = Array.isArray(value) ? value.map((id) => remoteId(kind, id)) : remoteId(kind, value);
  }
  return args;
}
