/**
 * Indexing while serving: vectors for chunks that lack them are built in the background (the model runs
 * in a worker thread; each batch is one short write transaction), so tool calls never wait on it.
 */
import type { Db } from '../store/db.js';
import { hasVectorExtension, vectorExtensionError } from '../store/db.js';
import { log } from '../log.js';
import { indexPending, type EmbedderLike } from './vectors.js';

export function startBackgroundIndexing(db: Db, embedder: EmbedderLike): { stop(): Promise<void> } {
  const controller = new AbortController();
  if (!hasVectorExtension(db)) {
    log.warn(`vector search is off (sqlite-vec did not load: ${vectorExtensionError()}); transcripts are searched by words`);
    return { stop: async () => {} };
  }
  const started = Date.now();
  const run = (async () => {
    // Let start-up and the client's first requests go first.
    await new Promise((resolve) => setTimeout(resolve, 1000).unref());
    try {
      const result = await indexPending(db, embedder, { signal: controller.signal, batchSize: 16 });
      if (result.total) {
        log.info(`vector index: ${result.embedded} chunks embedded, ${result.reused} reused, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
    } catch (err) {
      if (!controller.signal.aborted) log.warn('vector indexing stopped; search continues by words', err);
    }
  })();
  return {
    async stop() {
      controller.abort();
      await run;
    },
  };
}
