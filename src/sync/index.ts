/**
 * `sync`: push the outbox, then pull every vault the remote key reaches (or the ones asked for). One sync
 * per data dir at a time (a lock file); each vault's failure is recorded and the others go on; a refused
 * key stops everything at once.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setMaxListeners } from 'node:events';
import { withBulkWrites, type Db } from '../store/db.js';
import { PRIVATE_FILE_MODE } from '../store/private-files.js';
import { listOutbox } from '../store/outbox.js';
import { ensureSyncState, listSyncStates, setPullRequests, setSyncError } from '../store/sync-checkpoints.js';
import { pullVault, type PullSummary } from './pull.js';
import { localOnlyIds, pushOutbox, type PushReport } from './push.js';
import { formatMs, RemoteAuthError, RemoteClient, type RemoteStats } from './remote.js';
import { LIMIT_SETTINGS, syncLimits, type SyncLimits } from './limits.js';
import { printable } from '../core/printable.js';
import { processAlive } from '../core/process-alive.js';
import { dropUnreachable, fetchVaults, upsertVault } from './resources/vaults.js';
import { isoUtc } from '../time.js';

export interface SyncOptions {
  url: string;
  key: string;
  dataDir: string;
  /** Vault ids or names; all reachable ones when empty. */
  vaults?: string[];
  mode?: 'both' | 'pull' | 'push';
  /** Walk everything again instead of asking for changes. */
  full?: boolean;
  concurrency?: number;
  signal?: AbortSignal;
  /** What the remote may cost (defaults: the environment's; see limits.ts). */
  limits?: Partial<SyncLimits>;
  /** Progress: vault, resource, items done, total when known. */
  onProgress?(vault: string, resource: string, done: number, total?: number): void;
}

export interface SyncReport {
  push?: PushReport;
  pulled: PullSummary[];
  dropped: string[];
  errors: { vault: string; error: string }[];
  skipped: string[];
  requests: RemoteStats;
  seconds: number;
}

export async function runSync(db: Db, options: SyncOptions): Promise<SyncReport> {
  const limits = syncLimits(options.limits);
  const release = lock(options.dataDir);
  // The whole sync has a deadline, so the lock (which `serve --sync-every` waits on) is never held for ever.
  const deadline = AbortSignal.timeout(limits.syncDeadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  // Every request in flight listens to the one signal.
  setMaxListeners(0, signal);
  const started = performance.now();
  const remote = new RemoteClient({
    url: options.url,
    key: options.key,
    concurrency: options.concurrency,
    signal,
    deadlineMs: limits.requestDeadlineMs,
  });
  const report: SyncReport = { pulled: [], dropped: [], errors: [], skipped: [], requests: remote.stats, seconds: 0 };
  try {
    const mode = options.mode ?? 'both';
    // What is reported is printed and stored: no text from the remote reaches either unescaped.
    const skip = (resource: string, why: string) => report.skipped.push(printable(`${resource}: ${why}`));
    const remoteVaults = mode === 'push' && !options.vaults?.length ? [] : await fetchVaults({ remote, skip });
    const wanted = selectVaults(remoteVaults, options.vaults ?? []);

    if (mode !== 'pull') {
      const scope = options.vaults?.length ? new Set(wanted.map((v) => v.id)) : undefined;
      report.push = await pushOutbox(db, remote, {
        vaultIds: scope,
        progress: (d, t) => options.onProgress?.('outbox', 'push', d, t),
      });
    }
    if (mode !== 'push') {
      if (!options.vaults?.length)
        report.dropped = dropUnreachable(db, options.url, new Set(remoteVaults.map((v) => v.id)));
      await withBulkWrites(db, async () => {
        for (const v of wanted) {
          try {
            upsertVault(db, v, isoUtc(Date.now()));
            ensureSyncState(db, v.id, options.url);
            const before = remote.stats.requests;
            let localOnly: ReturnType<typeof localOnlyIds> | undefined; // read from the outbox once per vault
            const summary = await pullVault(
              {
                db,
                remote,
                vaultId: v.id,
                dataDir: options.dataDir,
                limits,
                skip,
                progress: (resource, done, total) => options.onProgress?.(v.id, resource, done, total),
                localOnly: (kind) => (localOnly ??= localOnlyIds(db, v.id)).get(kind) ?? new Set(),
              },
              { full: options.full },
            );
            setPullRequests(db, v.id, remote.stats.requests - before);
            report.pulled.push(summary);
          } catch (err) {
            if (err instanceof RemoteAuthError || signal.aborted) throw err;
            const message = printable((err as Error).message);
            report.errors.push({ vault: v.id, error: message });
            setSyncError(db, v.id, message);
          }
        }
      });
    }
    return report;
  } catch (err) {
    if (deadline.aborted && !options.signal?.aborted) {
      throw new Error(
        `the sync ran past its deadline of ${formatMs(limits.syncDeadlineMs)} (${LIMIT_SETTINGS.syncDeadlineMs.env}) and was stopped; what landed is kept and the next sync resumes from there`,
      );
    }
    throw err;
  } finally {
    report.seconds = (performance.now() - started) / 1000;
    await remote.close();
    release();
  }
}

function selectVaults<V extends { id: string; name: string }>(remoteVaults: V[], wanted: string[]): V[] {
  if (!wanted.length) return remoteVaults;
  return wanted.map((w) => {
    const v = remoteVaults.find((x) => x.id === w) ?? remoteVaults.find((x) => x.name === w);
    if (!v)
      throw new Error(
        `--vault ${w}: the remote key does not reach such a vault (it reaches ${remoteVaults.map((x) => x.id).join(', ') || 'none'})`,
      );
    return v;
  });
}

/** Per vault: last pull, last push, outbox entries waiting and the last error. */
export function syncStatus(db: Db) {
  const states = listSyncStates(db);
  const outbox = listOutbox(db, { limit: 1_000_000 });
  const vaultIds = [...new Set([...states.map((s) => s.vault_id), ...outbox.map((e) => e.vaultId)])].sort();
  return vaultIds.map((id) => {
    const s = states.find((x) => x.vault_id === id);
    const mine = outbox.filter((e) => e.vaultId === id);
    const lastError = s?.last_error ?? mine.findLast((e) => e.status === 'failed')?.lastError;
    return {
      vault: id,
      remote: s?.remote_url ?? null,
      lastPull: s?.last_pull_at ?? null,
      lastPush: s?.last_push_at ?? null,
      pending: mine.filter((e) => e.status === 'pending').length,
      failed: mine.filter((e) => e.status === 'failed').length,
      // Stored errors quote the remote; an older version stored them raw, so they are escaped again here.
      lastError: lastError ? printable(lastError) : null,
    };
  });
}

/** A lock file holding the owner's pid; one left by a process that no longer runs is taken over. */
function lock(dataDir: string): () => void {
  const path = join(dataDir, 'sync.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(path, 'utf8'));
      if (pid && pid !== process.pid && processAlive(pid))
        throw new Error(`a sync of ${dataDir} is already running (pid ${pid})`);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the sync lock ${path}`);
}
