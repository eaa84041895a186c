/**
 * `serve --sync-every MINUTES`: sync now and then every N minutes while serving. A sync awaits the network
 * most of the time and writes in short transactions, so tool calls keep answering while it runs; a run
 * that is still going when the next is due makes that one wait.
 */
import type { Db } from '../store/db.js';
import { log } from '../log.js';
import { printable } from '../core/printable.js';
import { runSync } from './index.js';
import type { RemoteConfig } from './config.js';

export function startBackgroundSync(
  db: Db,
  dataDir: string,
  remote: RemoteConfig,
  minutes: number,
  /** Called after a pull brought something (so the vector index can catch up). */
  onPulled: () => void,
): { stop(): Promise<void> } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const once = async () => {
    try {
      const r = await runSync(db, { url: remote.url, key: remote.key, dataDir, signal: controller.signal });
      const fetched = r.pulled.reduce((n, p) => n + p.entitiesFetched + p.meetingsFetched + p.listsChanged.length, 0);
      log.info(
        `sync with ${remote.url}: ${r.push?.pushed ?? 0} pushed, ${r.pulled.length} vaults pulled (${fetched} changes), ${r.requests.requests} requests in ${r.seconds.toFixed(1)} s` +
          (r.errors.length ? `; errors: ${r.errors.map((e) => `${e.vault}: ${e.error}`).join('; ')}` : ''),
      );
      if (fetched) onPulled();
    } catch (err) {
      if (!controller.signal.aborted)
        log.warn(
          `sync with ${remote.url} failed; the next try is in ${minutes} min: ${printable((err as Error).message)}`,
        );
    }
  };
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = once().finally(() => {
        if (!controller.signal.aborted) schedule(minutes * 60_000);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(1000); // let start-up and the client's first requests go first
  return {
    async stop() {
      controller.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
