/**
 * The embedder contract shared by the offline USE-lite embedder and the OpenAI-compatible endpoint embedder,
 * plus the small helpers both use (normalisation, truncation, abort handling).
 */

export interface EmbedOptions {
  signal?: AbortSignal;
  /**
   * Bulk work (the background indexer, reindex): an embedder that can keeps it apart from other calls, so a
   * query's embedding never waits behind it (USE lite: worker threads of its own, one per core, at a lower OS priority).
   */
  background?: boolean;
  /** Who asks (a key or grant id): query embeds are shared fairly among callers (fair-share.ts). */
  caller?: string;
}

export interface Embedder {
  /** Stable id that tags stored vectors, e.g. 'use-lite-512' or 'openai:text-embedding-3-small:1536'; a change of id means re-indexing. */
  readonly id: string;
  readonly dims: number;
  /** How much text the model reads (characters); longer texts are embedded as the mean of windows this long. Absent: no limit that matters. */
  readonly windowChars?: number;
  /** A model run on this machine: what ran its matrix products, once it has loaded (for logs; see describeKernel). */
  readonly kernel?: 'native' | 'wasm';
  /** How many query embeds it runs at once; absent: several (an endpoint takes requests side by side). */
  readonly queryLanes?: number;
  /** Embeds texts in order; vectors are L2-normalised Float32Arrays of length dims. Batches internally. */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** 'native matrix kernel' or 'WASM kernels only', for a log line about an embedder's work; undefined when it runs elsewhere or has not loaded. */
export function describeKernel(embedder: Pick<Embedder, 'kernel'>): string | undefined {
  if (embedder.kernel === 'native') return 'native matrix kernel';
  if (embedder.kernel === 'wasm') return 'WASM kernels only';
  return undefined;
}

/** A failure of an embedder, with a message meant for the person who configures it. Never contains an API key. */
export class EmbedderError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EmbedderError';
  }
}

/**
 * Scales `v` in place to unit length, so cosine distance = 1 - dot product. Rejects vectors that cannot be
 * normalised (non-finite values, or all zeros) rather than storing something search would silently mis-rank.
 */
export function normaliseInPlace(v: Float32Array, source: string): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    sum += x * x;
  }
  if (!Number.isFinite(sum))
    throw new EmbedderError(`${source} returned a vector with non-finite values (NaN or Infinity).`);
  if (sum === 0)
    throw new EmbedderError(`${source} returned an all-zero vector, which has no direction and cannot be normalised.`);
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * scale;
  return v;
}

/** The first `max` UTF-16 units of `text`, without cutting a surrogate pair in half. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

export function checkTexts(texts: unknown): asserts texts is string[] {
  if (!Array.isArray(texts)) throw new TypeError('embed() takes an array of strings.');
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string')
      throw new TypeError(`embed() takes an array of strings; item ${i} is ${typeof texts[i]}.`);
  }
}

/** Throws the signal's reason (an AbortError unless the caller chose another) once it has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `work`, or the signal's reason as soon as it aborts (the work itself goes on; its result is dropped). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
