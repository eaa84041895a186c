/**
 * Building the transcript vector index in the foreground, with a progress line on stderr: `reindex` does it on
 * demand, `demo` right after loading, so the demo store answers by meaning from its first search.
 */
import { createEmbedder, describeKernel } from '../search/embedder/index.js';
import { resetVectorIndex } from '../search/vectors.js';
import { countPending, indexPending } from '../search/vector-indexing.js';
import type { Store } from '../service/open.js';
import { progressPrinter } from './progress.js';

export interface EmbedNowResult {
  embedded: number;
  reused: number;
  pending: number;
  seconds: number;
  /** "embedder <id>, <kernel>" */
  embedderInfo: string;
}

/**
 * Embeds every chunk that has no vector from the embedder (with `force`, every chunk again), shared over the
 * background workers as serve's indexer does. With nothing pending the model is not even loaded.
 */
export async function embedPendingChunks(
  db: Store,
  options: { label: string; vaultId?: string; force?: boolean },
): Promise<EmbedNowResult> {
  const embedder = createEmbedder();
  const started = Date.now();
  const embedderInfo = () => [`embedder ${embedder.id}`, describeKernel(embedder)].filter(Boolean).join(', ');
  try {
    if (options.force) {
      await embedder.embed(['warm-up']); // settles an endpoint embedder's id and dims
      resetVectorIndex(db, embedder);
    } else if (countPending(db, embedder.id, options.vaultId) === 0) {
      return { embedded: 0, reused: 0, pending: 0, seconds: 0, embedderInfo: embedderInfo() };
    }
    const print = progressPrinter(options.label, 'chunks');
    const result = await indexPending(db, embedder, {
      vaultId: options.vaultId,
      background: true,
      onProgress: (p) => print(p.done, p.total),
    });
    return {
      embedded: result.embedded,
      reused: result.reused,
      pending: countPending(db, embedder.id, options.vaultId),
      seconds: (Date.now() - started) / 1000,
      embedderInfo: embedderInfo(),
    };
  } finally {
    await embedder.close();
  }
}

/** Chunks without a vector from the configured embedder (the model is not loaded to tell). */
export async function countPendingChunks(db: Store): Promise<number> {
  const embedder = createEmbedder();
  try {
    return countPending(db, embedder.id);
  } finally {
    await embedder.close();
  }
}
