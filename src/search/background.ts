/**
 * Indexing while serving: word indexes of vaults that lack one (after the upgrade that split the word index
 * per vault), then vectors for chunks that lack them, are built in the background (the model runs in a worker
 * thread of its own at a lower OS priority, apart from the one that embeds queries; each batch is one short
 * write transaction), so tool calls never wait on it: a search's query embedding does not queue behind an
 * indexing batch, and the indexer gets the cores that requests leave.
 */
import type { Db } from '../store/db.js';
import { hasVectorExtension, vectorExtensionError } from '../store/db.js';
import { log } from '../log.js';
import { describeKernel } from './embedder/types.js';
import { indexPending } from './vector-indexing.js';
import type { EmbedderLike } from './embed-chunks.js';
import { ensureWordIndex, vaultsWithChunks } from './word-index.js';

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

export function startBackgroundIndexing(db: Db, embedder: EmbedderLike): { stop(): Promise<void> } {
  const controller = new AbortController();
  const vectors = hasVectorExtension(db);
  if (!vectors) log.warn(`vector search is off (sqlite-vec did not load: ${vectorExtensionError()}); transcripts are searched by words`);
  const started = Date.now();
  const run = (async () => {
    // Let start-up and the client's first requests go first. The wait ends early on stop(): stop() awaits this
    // run, and an unref'd timer left alone would leave nothing to wait for (exit status 13 when stdin closes at once).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000).unref();
      controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    try {
      await buildWordIndexes(db, controller.signal);
    } catch (err) {
      if (!controller.signal.aborted) log.warn('building the word index failed; searches build it on demand', err);
    }
    if (!vectors || controller.signal.aborted) return;
    try {
      const result = await indexPending(db, embedder, { signal: controller.signal, batchSize: INDEX_BATCH_CHUNKS, background: true });
      if (result.total) {
        const kernel = describeKernel(embedder);
        log.info(`vector index: ${result.embedded} chunks embedded, ${result.reused} reused, in ${((Date.now() - started) / 1000).toFixed(1)} s${kernel ? ` (${kernel})` : ''}`);
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
