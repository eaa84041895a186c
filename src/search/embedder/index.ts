/**
 * Text embedders for semantic search. `createEmbedder()` picks one from the environment:
 *   VAULT_TOOLS_EMBEDDINGS_URL    set → an OpenAI-compatible endpoint (OpenAI, Ollama's /v1, ...)
 *   VAULT_TOOLS_EMBEDDINGS_MODEL  its model (default 'text-embedding-3-small')
 *   VAULT_TOOLS_EMBEDDINGS_KEY    optional bearer key
 *   VAULT_TOOLS_EMBEDDINGS_DIMS   optional expected vector size, which makes `id` known before the first embed()
 * otherwise the offline Universal Sentence Encoder lite (512 dims), which runs in a worker thread.
 *
 * Creating an embedder is cheap and loads nothing; the model / the first request happen on the first embed().
 * Every vector is L2-normalised, so cosine distance = 1 - dot product. Vectors of different `id`s are not
 * comparable: a change of id means re-indexing.
 */
import { createOpenAiEmbedder } from './openai.js';
import { EmbedderError, type Embedder } from './types.js';
import { createDefaultEmbedder } from './use-lite.js';

export { describeKernel, EmbedderError, type Embedder, type EmbedOptions } from './types.js';
export {
  createDefaultEmbedder,
  indexWorkers,
  nativeKernelOff,
  nativeKernelPath,
  UseLiteEmbedder,
  USE_LITE_BATCH_SIZE,
  USE_LITE_DIMS,
  USE_LITE_ID,
  USE_LITE_MAX_CHARS,
  USE_LITE_MAX_TOKENS,
} from './use-lite.js';
export {
  createOpenAiEmbedder,
  OpenAiEmbedder,
  OPENAI_DEFAULT_BATCH_SIZE,
  OPENAI_DEFAULT_TIMEOUT_MS,
  OPENAI_MAX_CHARS,
  type OpenAiEmbedderOptions,
} from './openai.js';

export const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small';

/** The embedder the environment asks for (see the file comment). Lazy: nothing heavy loads until the first embed(). */
export function createEmbedder(env: NodeJS.ProcessEnv = process.env): Embedder {
  const url = env.VAULT_TOOLS_EMBEDDINGS_URL?.trim();
  if (!url) return createDefaultEmbedder();
  const rawDims = env.VAULT_TOOLS_EMBEDDINGS_DIMS?.trim();
  let dims: number | undefined;
  if (rawDims) {
    dims = Number(rawDims);
    if (!Number.isInteger(dims) || dims < 1)
      throw new EmbedderError(`VAULT_TOOLS_EMBEDDINGS_DIMS must be a positive integer (got "${rawDims}").`);
  }
  return createOpenAiEmbedder({
    url,
    model: env.VAULT_TOOLS_EMBEDDINGS_MODEL?.trim() || DEFAULT_OPENAI_MODEL,
    apiKey: env.VAULT_TOOLS_EMBEDDINGS_KEY?.trim() || undefined,
    dims,
  });
}
