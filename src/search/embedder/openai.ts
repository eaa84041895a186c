/**
 * An embedder backed by an OpenAI-compatible embeddings endpoint (OpenAI, Azure-style proxies, Ollama's
 * /v1/embeddings, LM Studio, vLLM, ...): POST {model, input: string[]} → {data: [{index, embedding}]}.
 *
 * Dimensions: when `dims` is not given, it is learned from the first successful answer, and `dims` and `id`
 * (`openai:<model>:<dims>`) throw an EmbedderError until then. Callers that need the id before embedding
 * anything (to check what an index was built with) either pass `dims`, or probe once: `await e.embed(['probe'])`.
 * `dims` is an expectation checked against every answer, not a request: it is not sent to the endpoint.
 *
 * The API key is sent only in the Authorization header; it is never logged and is scrubbed from every error
 * message (including anything the server echoes back).
 */
import { backoffMs, retryAfterMs } from '../../core/retry.js';
import {
  checkTexts,
  EmbedderError,
  normaliseInPlace,
  sleep,
  throwIfAborted,
  truncate,
  type Embedder,
  type EmbedOptions,
} from './types.js';

export interface OpenAiEmbedderOptions {
  /** A base URL ending in /v1 (→ /v1/embeddings is called), a full …/embeddings URL, or a bare origin (→ /v1/embeddings). */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Expected vector length; learned from the first answer when omitted. */
  dims?: number;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Time limit of one request, answer body included (default 30 s). Timeouts are not retried. */
  timeoutMs?: number;
}

export const OPENAI_DEFAULT_BATCH_SIZE = 64;
export const OPENAI_DEFAULT_TIMEOUT_MS = 30_000;
/** Attempts per batch: the first one and two retries, on HTTP 429, HTTP 5xx and network errors. */
export const OPENAI_MAX_TRIES = 3;
/**
 * Texts are cut to 8,000 characters (~2,000 tokens): far below OpenAI's 8,191-token limit per input, and
 * within the context of common local models (e.g. nomic-embed-text's 2,048 tokens), so a long text never
 * fails a whole batch.
 */
export const OPENAI_MAX_CHARS = 8000;
const RETRY_BASE_MS = 500;
const MAX_RETRY_WAIT_MS = 60_000;

/** The endpoint to POST to, from what the user configured. */
export function embeddingsEndpoint(url: string): URL {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new EmbedderError(
      `The embeddings URL "${url.replace(/\/\/[^/@]*@/, '//…@')}" is not a valid URL; expected e.g. https://api.openai.com/v1 or http://localhost:11434/v1.`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new EmbedderError(`The embeddings URL must start with http:// or https:// (got ${u.protocol}).`);
  }
  const path = u.pathname.replace(/\/+$/, '');
  if (path === '') u.pathname = '/v1/embeddings';
  else if (!/\/embeddings$/.test(path)) u.pathname = `${path}/embeddings`;
  else u.pathname = path;
  return u;
}

class RequestTimeout extends Error {}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly batchSize: number;
  readonly timeoutMs: number;
  private readonly endpoint: URL;
  /** The endpoint as shown in messages: no credentials, no query string. */
  private readonly where: string;
  private readonly apiKey: string | undefined;
  private knownDims: number | undefined;
  /** Where knownDims came from, for the mismatch message. */
  private dimsFrom: 'option' | 'answer' | undefined;

  constructor(options: OpenAiEmbedderOptions) {
    this.endpoint = embeddingsEndpoint(options.url);
    this.where = `${this.endpoint.origin}${this.endpoint.pathname}`;
    this.model = options.model.trim();
    if (!this.model)
      throw new EmbedderError(
        'The embeddings model name is empty; set VAULT_TOOLS_EMBEDDINGS_MODEL (e.g. text-embedding-3-small, or nomic-embed-text for Ollama).',
      );
    this.apiKey = options.apiKey ? options.apiKey : undefined;
    if (options.dims !== undefined) {
      if (!Number.isInteger(options.dims) || options.dims < 1)
        throw new EmbedderError(`dims must be a positive integer (got ${options.dims}).`);
      this.knownDims = options.dims;
      this.dimsFrom = 'option';
    }
    this.batchSize = options.batchSize ?? OPENAI_DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new EmbedderError(`batchSize must be a positive integer (got ${options.batchSize}).`);
    this.timeoutMs = options.timeoutMs ?? OPENAI_DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0))
      throw new EmbedderError(`timeoutMs must be a positive number (got ${options.timeoutMs}).`);
  }

  get dims(): number {
    if (this.knownDims === undefined) {
      throw new EmbedderError(
        `The vector size of model "${this.model}" at ${this.where} is not known before the first successful embed(). Call embed() once first, or configure the dimensions (dims option / VAULT_TOOLS_EMBEDDINGS_DIMS).`,
      );
    }
    return this.knownDims;
  }

  get id(): string {
    return `openai:${this.model}:${this.dims}`;
  }

  /** True once `dims` and `id` can be read without throwing. */
  get dimsKnown(): boolean {
    return this.knownDims !== undefined;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    checkTexts(texts);
    const { signal } = options;
    throwIfAborted(signal);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      // Empty strings are refused by OpenAI (HTTP 400); one space embeds as "nothing", like the offline model.
      const batch = texts
        .slice(i, i + this.batchSize)
        .map((t) => (t.length === 0 ? ' ' : truncate(t, OPENAI_MAX_CHARS)));
      out.push(...(await this.request(batch, signal)));
    }
    return out;
  }

  async close(): Promise<void> {
    // Nothing held: fetch keeps no connection that outlives the process's needs.
  }

  private async request(batch: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const body = JSON.stringify({ model: this.model, input: batch });
    for (let attempt = 1; ; attempt++) {
      throwIfAborted(signal);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new RequestTimeout()), this.timeoutMs);
      const onAbort = () => controller.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      let status: number;
      let text: string;
      let retryAfter: number | undefined;
      try {
        const res = await fetch(this.endpoint, { method: 'POST', headers, body, signal: controller.signal });
        status = res.status;
        retryAfter = retryAfterMs(res.headers.get('retry-after'), res.headers.get('retry-after-ms'));
        text = await res.text();
      } catch (e) {
        throwIfAborted(signal);
        if (controller.signal.reason instanceof RequestTimeout) {
          throw new EmbedderError(
            `The embeddings endpoint ${this.where} did not answer within ${this.timeoutMs / 1000} s (model "${this.model}", ${batch.length} texts). Check that the server is up and not overloaded; a local server may need longer to load the model on first use.`,
          );
        }
        if (attempt < OPENAI_MAX_TRIES) {
          await sleep(backoffMs(attempt, RETRY_BASE_MS, MAX_RETRY_WAIT_MS), signal);
          continue;
        }
        throw new EmbedderError(
          `Cannot reach the embeddings endpoint ${this.where} (${this.scrub(networkReason(e))}, after ${OPENAI_MAX_TRIES} tries). Check VAULT_TOOLS_EMBEDDINGS_URL and that the server is running.`,
        );
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      if (status >= 200 && status < 300) return this.parse(text, batch.length);
      if ((status === 429 || status >= 500) && attempt < OPENAI_MAX_TRIES) {
        await sleep(
          Math.min(retryAfter ?? backoffMs(attempt, RETRY_BASE_MS, MAX_RETRY_WAIT_MS), MAX_RETRY_WAIT_MS),
          signal,
        );
        continue;
      }
      throw this.httpError(status, text);
    }
  }

  private httpError(status: number, body: string): EmbedderError {
    const detail = this.scrub(serverMessage(body));
    const said = detail ? ` The server said: "${detail}"` : '';
    const where = `The embeddings endpoint ${this.where}`;
    switch (true) {
      case status === 401:
        return new EmbedderError(
          this.apiKey
            ? `${where} rejected the API key (HTTP 401). Check VAULT_TOOLS_EMBEDDINGS_KEY.${said}`
            : `${where} requires an API key (HTTP 401). Set VAULT_TOOLS_EMBEDDINGS_KEY.${said}`,
        );
      case status === 403:
        return new EmbedderError(
          `${where} refused access (HTTP 403): the API key is not allowed to use model "${this.model}" (or this endpoint).${said}`,
        );
      case status === 404:
        return new EmbedderError(
          `${where} answered HTTP 404: either the URL is wrong (it should end in /v1 or /v1/embeddings) or model "${this.model}" does not exist there (for Ollama: ollama pull ${this.model}).${said}`,
        );
      case status === 429:
        return new EmbedderError(
          `${where} is rate-limiting requests (HTTP 429) and still was after ${OPENAI_MAX_TRIES} tries. Try again later, or lower the request rate.${said}`,
        );
      case status >= 500:
        return new EmbedderError(`${where} failed with HTTP ${status} ${OPENAI_MAX_TRIES} times in a row.${said}`);
      default:
        return new EmbedderError(`${where} refused the request (HTTP ${status}) for model "${this.model}".${said}`);
    }
  }

  private parse(body: string, count: number): Float32Array[] {
    const bad = (why: string) =>
      new EmbedderError(`The embeddings endpoint ${this.where} did not answer like an OpenAI embeddings API: ${why}.`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw bad(`the answer is not JSON (it starts with "${this.scrub(body.slice(0, 80))}")`);
    }
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw bad('it has no "data" array');
    if (data.length !== count) throw bad(`it returned ${data.length} embeddings for ${count} texts`);
    const vectors: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count);
    let size: number | undefined;
    data.forEach((item: unknown, position) => {
      const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
        throw bad(`data[${position}].index is ${JSON.stringify(index)}; expected each of 0..${count - 1} once`);
      }
      const v = toVector(embedding);
      if (!v) throw bad(`data[${position}].embedding is not an array of numbers`);
      if (size !== undefined && v.length !== size) {
        throw new EmbedderError(
          `The embeddings endpoint ${this.where} returned vectors of different sizes (${size} and ${v.length}) in one answer for model "${this.model}".`,
        );
      }
      size = v.length;
      vectors[index] = v;
    });
    if (count > 0 && size !== undefined) {
      if (this.knownDims === undefined) {
        this.knownDims = size;
        this.dimsFrom = 'answer';
      } else if (size !== this.knownDims) {
        const expected = this.dimsFrom === 'option' ? 'the configured dims' : 'earlier answers from this endpoint';
        throw new EmbedderError(
          `The embeddings endpoint ${this.where} returned ${size}-dimensional vectors for model "${this.model}", but ${expected} had ${this.knownDims}. ` +
            (this.dimsFrom === 'option'
              ? `Set dims to ${size} (or leave it unset); an index built with other dimensions must be rebuilt.`
              : 'The model behind the endpoint seems to have changed; vectors of different sizes cannot be compared, so re-index.'),
        );
      }
    }
    return vectors.map((v) => normaliseInPlace(v!, `The embeddings endpoint ${this.where}`));
  }

  /** `s` with the API key removed, whatever the server or the network layer put into it. */
  private scrub(s: string): string {
    return this.apiKey ? s.split(this.apiKey).join('[redacted]') : s;
  }
}

/** An embedding as numbers or as base64 of little-endian float32 (encoding_format: 'base64'). */
function toVector(embedding: unknown): Float32Array | undefined {
  if (Array.isArray(embedding)) {
    if (embedding.length === 0 || !embedding.every((x) => typeof x === 'number')) return undefined;
    return Float32Array.from(embedding as number[]);
  }
  if (typeof embedding === 'string' && embedding.length > 0) {
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    const v = new Float32Array(bytes.length / 4);
    for (let i = 0; i < v.length; i++) v[i] = bytes.readFloatLE(i * 4);
    return v;
  }
  return undefined;
}

/** The error text of an error answer: OpenAI's {error: {message}}, Ollama's {error: "..."}, or the body's first line. */
function serverMessage(body: string): string {
  let message: unknown;
  try {
    const json = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = json.error;
    message =
      typeof error === 'string'
        ? error
        : ((error as { message?: unknown } | undefined)?.message ?? json.message ?? json.detail);
  } catch {
    message = body;
  }
  if (typeof message !== 'string') return '';
  const line = message.trim().split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return e instanceof Error ? e.message : String(e);
}

export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  return new OpenAiEmbedder(options);
}
