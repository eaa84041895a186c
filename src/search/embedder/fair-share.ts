/**
 * An embedder shared fairly among callers: query embeddings (not background work, which has workers of its own)
 * go through a FairQueue keyed by the caller (`EmbedOptions.caller`, the key or grant), so one key sending searches
 * with five alternatives as fast as its rate limit allows cannot starve another key's search of the model.
 */
import { FairQueue } from '../../core/fair-queue.js';
import type { EmbedderLike } from '../embed-chunks.js';

/** Query embeds from callers that did not say who they are share one turn. */
const ANONYMOUS = '';

/** `embedder`, with its query embeds taken in turn by caller, as many at once as its `queryLanes` (else 4). */
export function shareFairly<E extends EmbedderLike>(embedder: E): EmbedderLike {
  const queue = new FairQueue(embedder.queryLanes ?? 4);
  return {
    get id() {
      return embedder.id;
    },
    get dims() {
      return embedder.dims;
    },
    get windowChars() {
      return embedder.windowChars;
    },
    get kernel() {
      return embedder.kernel;
    },
    queryLanes: embedder.queryLanes,
    embed(texts, options = {}) {
      if (options.background) return embedder.embed(texts, options);
      return queue.run(options.caller ?? ANONYMOUS, () => embedder.embed(texts, options));
    },
  };
}
