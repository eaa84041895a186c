/**
 * Idempotency keys (REST `Idempotency-Key`), as draft-ietf-httpapi-idempotency-key-header and the APIs that offer
 * one (Stripe's, among others) treat them:
 * - a key belongs to the caller that sent it (the credential): another caller's same key is another key;
 * - it is bound to the call it first came with (tool, vault and arguments): the same key with anything else is
 *   refused (409 `idempotency_key_reused`), never answered with the first call's result;
 * - a duplicate arriving while the first is still running waits for it, then gets its answer (or runs, if the
 *   first failed and so wrote nothing).
 * The record of a keyed call is its outbox entry (key_id + idempotency_key), written in the write's transaction.
 */
import { quoted, ServiceError } from '../core/errors.js';
import type { Db } from '../store/db.js';
import { findKeyedOutboxEntry } from '../store/outbox.js';

/** One keyed write: who sent it, its key, and the call the key is bound to. */
export interface KeyedCall {
  keyId: string;
  key: string;
  tool: string;
  vaultId: string;
  /** the validated arguments, without `vault` (it is `vaultId`) */
  args: Record<string, unknown>;
}

/** What a call is compared by: its tool, vault and arguments, with object keys sorted so their order does not count. */
export function fingerprintOf(call: Pick<KeyedCall, 'tool' | 'vaultId' | 'args'>): string {
  return JSON.stringify([call.tool, call.vaultId, call.args], (_k, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/** The stored answer of this caller's earlier call under the same key, if there is one; a different call under it is refused. */
export function storedAnswer(db: Db, call: KeyedCall): Record<string, unknown> | undefined {
  const earlier = findKeyedOutboxEntry(db, call.keyId, call.key);
  if (!earlier) return undefined;
  if (fingerprintOf(earlier) !== fingerprintOf(call)) throw keyReused(call.key, earlier.tool);
  return earlier.result as Record<string, unknown>;
}

const keyReused = (key: string, firstTool: string) =>
  new ServiceError(
    'idempotency_key_reused',
    `The Idempotency-Key ${quoted(key)} was already used by this key for another call (\`${firstTool}\` with other arguments or another vault); a key stands for one call: use a new key for a new call.`,
  );

/**
 * Keyed calls running in this process, by caller and key. A second request with the same key waits for the first
 * instead of running beside it (two processes on one store still meet in the write transaction: see
 * CallContext.commit).
 */
export class KeyedCallsRunning {
  private readonly running = new Map<string, { fingerprint: string; tool: string; done: Promise<void> }>();

  /** Waits while a call under the same caller and key runs; one with other arguments is refused at once. */
  async waitForSameKey(call: KeyedCall): Promise<void> {
    const fingerprint = fingerprintOf(call);
    for (let other = this.running.get(slot(call)); other; other = this.running.get(slot(call))) {
      if (other.fingerprint !== fingerprint) throw keyReused(call.key, other.tool);
      await other.done;
    }
  }

  /** Runs `work` as the call under this caller and key; duplicates arriving meanwhile wait for it. */
  async run<T>(call: KeyedCall, work: () => Promise<T>): Promise<T> {
    let finished!: () => void;
    const entry = {
      fingerprint: fingerprintOf(call),
      tool: call.tool,
      done: new Promise<void>((resolve) => (finished = resolve)),
    };
    this.running.set(slot(call), entry);
    try {
      return await work();
    } finally {
      this.running.delete(slot(call));
      finished();
    }
  }
}

const slot = (call: KeyedCall) => `${call.keyId}\n${call.key}`;
