/**
 * Indexing while serving: word indexes of vaults that lack one (after the upgrade that split the word index
 * per vault), then vectors for chunks that lack them, are built in the background (the model runs in a worker
 * thread of its own at a lower OS priority, apart from the one that embeds queries; each batch is one short
 * write transaction), so tool calls never wait on it: a search's query embedding does not queue behind an
 * indexing batch, and the indexer gets the cores that requests leave.
 *
 * After the first pass it keeps watching: chunks written later by anyone (an `import`, a `sync` or a `reindex` run
 * by another process, this process's own sync) get their vectors within seconds, without a restart.
 */
import type { Db } from '../store/db.js';
import { hasVectorExtension, vectorExtensionError } from '../store/db.js';
import { log } from '../log.js';
import { describeKernel } from './embedder/types.js';
import { chunkHighWater, indexPending } from './vector-indexing.js';
import type { EmbedderLike } from './embed-chunks.js';
import { ensureWordIndex, vaultsWithChunks } from './word-index.js';
import { chunksIndexed, indexPassStarted } from './index-rate.js';

/**
 * Builds the word index of every vault that lacks one (a store upgraded from the shared index, see
 * word-index.ts), one vault at a time with a turn of the event loop between vaults, so requests interleave.
 * A search of a vault not reached yet builds its index itself.
 */
async function buildWordIndexes(db: Db, signal: AbortSignal): Promise<void> {
  for (const v of vaultsWithChunks(db)) {
    if (signal.aborted) return;
    ensureWordIndex(db, v);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Chunks per indexing batch (~120 windows of ~450 characters). Each batch lands (and counts in search) in about a
 * second and a half on two idle cores, and a stop loses no more. Big enough that its windows, sorted by length,
 * make batches of one length for the workers (the model pads a batch to its longest text): measured with
 * `live.embedding.chunks_per_s`, 8 chunks gave 22 chunks/s, 16 gave 24-25 and 32 gave 27.
 */
export const INDEX_BATCH_CHUNKS = 32;

/**
 * How often the indexer looks for chunks written since its last pass. One look is a single-row read of the chunk
 * table's high-water mark (sqlite_sequence; chunk ids are never reused), so an idle server spends microseconds per
 * look; new chunks wait at most this long plus their embedding.
 */
export const WATCH_INTERVAL_MS = 2000;

export function startBackgroundIndexing(
  db: Db,
  embedder: EmbedderLike,
  options: { watchMs?: number } = {},
): { stop(): Promise<void> } {
  const controller = new AbortController();
  const vectors = hasVectorExtension(db);
  if (!vectors)
    log.warn(
      `vector search is off (sqlite-vec did not load: ${vectorExtensionError()}); transcripts are searched by words`,
    );
  // Resolves after `ms`, or at once on stop(): stop() awaits the run, and an unref'd timer left alone would leave
  // nothing to wait for (exit status 13 when stdin closes at once). Unref'd so that it never keeps the process up.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (controller.signal.aborted) return resolve();
      const timer = setTimeout(resolve, ms).unref();
      controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  /** One pass over every chunk that lacks a vector; a failure is logged, and the next change tries again. */
  const pass = async (): Promise<void> => {
    const started = Date.now();
    indexPassStarted(started);
    let done = 0;
    const onProgress = (p: { done: number }) => (chunksIndexed(p.done - done), (done = p.done));
    try {
      const result = await indexPending(db, embedder, {
        signal: controller.signal,
        batchSize: INDEX_BATCH_CHUNKS,
        background: true,
        onProgress,
      });
      if (result.total) {
        const kernel = describeKernel(embedder);
        log.info(
          `vector index: ${result.embedded} chunks embedded, ${result.reused} reused, in ${((Date.now() - started) / 1000).toFixed(1)} s${kernel ? ` (${kernel})` : ''}`,
        );
      }
    } catch (err) {
      if (!controller.signal.aborted)
        log.warn('vector indexing stopped; search continues by words until new chunks arrive', err);
    }
  };
  const run = (async () => {
    await pause(1000); // let start-up and the client's first requests go first
    try {
      await buildWordIndexes(db, controller.signal);
    } catch (err) {
      if (!controller.signal.aborted) log.warn('building the word index failed; searches build it on demand', err);
    }
    if (!vectors) return;
    let seen = chunkHighWater(db);
    await pass();
    while (!controller.signal.aborted) {
      await pause(options.watchMs ?? WATCH_INTERVAL_MS);
      if (controller.signal.aborted) break;
      const now = chunkHighWater(db);
      if (now === seen) continue;
      seen = now; // read before the pass: chunks landing during it are caught by the pass or by the next look
      await pass();
    }
  })();
  return {
    async stop() {
      controller.abort();
      await run;
    },
  };
}
