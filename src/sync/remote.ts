/**
 * The client of the hosted service's REST API (or of another `vault-tools serve`): `POST /v1/tools/<name>`
 * and downloads, over one keep-alive undici pool with a few requests in flight, paced by the server (see
 * pacer.ts: Retry-After holds every request, 429s shrink the window and the rate). Transient failures
 * (network errors, 429, 5xx, timeouts, bodies cut short) are retried, with exponential backoff and jitter
 * where the server named no wait; a refused key (401/403 on every call) is final at once; any other refusal
 * comes back as a RemoteError with the server's code and message, for the caller to decide. No body is
 * read whole without a cap: answers held in memory stop at MAX_JSON_BYTES, files streamed to disk at
 * MAX_DOWNLOAD_BYTES.
 */
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { randomBytes } from 'node:crypto';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_VERSION } from '../package-info.js';
import { printable } from '../core/printable.js';
import { backoffMs, retryAfterMs } from '../core/retry.js';
import { parseRemoteUrl } from './config.js';
import { LIMIT_SETTINGS, numberSetting } from './limits.js';
import { MAX_WAIT_MS, Pacer } from './pacer.js';

export interface RemoteOptions {
  /** Base URL of the service, with or without the trailing `/v1`. */
  url: string;
  key: string;
  /** Requests in flight at once at most (default 4; fewer while the server refuses with 429). */
  concurrency?: number;
  /** Per-request timeout for headers and for the body, ms (default 30 s; VAULT_TOOLS_SYNC_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * The most one request may take, from going out to the last byte of its answer, ms (default
   * LIMIT_SETTINGS.requestDeadlineMs): the timeouts above are idle times, which a trickled answer resets forever.
   */
  deadlineMs?: number;
  /** Attempts per request before giving up on a transient failure (default 6). */
  attempts?: number;
  /** Backoff unit, ms (default 250): waits are unit × 2^attempt × jitter, capped at 30 s. */
  backoffMs?: number;
  /** Largest answer read into memory (default MAX_JSON_BYTES; VAULT_TOOLS_SYNC_MAX_JSON_BYTES). */
  maxJsonBytes?: number;
  /** Largest file streamed to disk (default MAX_DOWNLOAD_BYTES; VAULT_TOOLS_SYNC_MAX_DOWNLOAD_BYTES). */
  maxDownloadBytes?: number;
  signal?: AbortSignal;
}

/** A tool's answer (or a file's text) is parsed in memory: 32 MiB is far above any answer the service gives. */
export const MAX_JSON_BYTES = 32 * 1024 * 1024;
/** An artifact is streamed to disk, never held whole, so it may be larger: 512 MiB. */
export const MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024;
/** An error answer is only read for its code and message. */
const MAX_ERROR_BYTES = 64 * 1024;
const JSON_SETTING = 'VAULT_TOOLS_SYNC_MAX_JSON_BYTES';
const DOWNLOAD_SETTING = 'VAULT_TOOLS_SYNC_MAX_DOWNLOAD_BYTES';

/** The server answered, and refused: 4xx other than 429, with its error body. */
export class RemoteError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

/** The credential was refused: nothing more can succeed, so sync stops with this. */
export class RemoteAuthError extends RemoteError {}

/** An answer longer than its cap: reading stopped there (not retried; the same request would answer the same). */
export class BodyTooLargeError extends Error {
  constructor(
    readonly what: string,
    readonly limit: number,
    setting?: string,
  ) {
    super(
      `${what}: the answer is larger than the ${formatBytes(limit)} limit${setting ? ` (${setting})` : ''}, so it was not read`,
    );
    this.name = 'BodyTooLargeError';
  }
}

/** A request that had not finished by its deadline (stopped there; not retried). */
export class DeadlineError extends Error {
  constructor(what: string, deadlineMs: number) {
    super(
      `${what}: no complete answer within ${formatMs(deadlineMs)} (${LIMIT_SETTINGS.requestDeadlineMs.env}), so it was stopped`,
    );
    this.name = 'DeadlineError';
  }
}

export interface RemoteStats {
  requests: number;
  retries: number;
  bytes: number;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export class RemoteClient {
  readonly origin: string;
  readonly basePath: string;
  readonly stats: RemoteStats = { requests: 0, retries: 0, bytes: 0 };
  private readonly pool: Pool;
  private readonly key: string;
  private readonly timeoutMs: number;
  private readonly deadlineMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly maxJsonBytes: number;
  private readonly maxDownloadBytes: number;
  private readonly signal?: AbortSignal;
  private readonly pacer: Pacer;
  /** Tool and extra fields this server refused (see toolWithExtras). */
  private readonly unsupported = new Set<string>();

  constructor(options: RemoteOptions) {
    ({ origin: this.origin, basePath: this.basePath } = parseRemoteUrl(options.url));
    this.key = options.key;
    const concurrency = Math.max(1, options.concurrency ?? 4);
    this.timeoutMs = options.timeoutMs ?? numberSetting('VAULT_TOOLS_SYNC_TIMEOUT_MS', 30_000);
    this.deadlineMs =
      options.deadlineMs ??
      numberSetting(LIMIT_SETTINGS.requestDeadlineMs.env, LIMIT_SETTINGS.requestDeadlineMs.fallback);
    this.attempts = Math.max(1, options.attempts ?? 6);
    this.backoffMs = options.backoffMs ?? 250;
    this.maxJsonBytes = options.maxJsonBytes ?? numberSetting(JSON_SETTING, MAX_JSON_BYTES);
    this.maxDownloadBytes = options.maxDownloadBytes ?? numberSetting(DOWNLOAD_SETTING, MAX_DOWNLOAD_BYTES);
    this.signal = options.signal;
    this.pacer = new Pacer(concurrency, this.signal);
    this.pool = new Pool(this.origin, {
      connections: concurrency,
      keepAliveTimeout: 10_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  /** Calls a tool; resolves with its `data`. */
  async tool<T = Record<string, unknown>>(
    name: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<T> {
    return (await this.call<T>(name, body, headers))!.data;
  }

  /**
   * Calls a read tool sending the ETag of the answer the caller keeps (If-None-Match): undefined when the
   * server says that answer is still current (304, no body); else the data and its ETag, if the server gives one.
   */
  async toolIfChanged<T = Record<string, unknown>>(
    name: string,
    body: Record<string, unknown>,
    etag: string | undefined,
  ): Promise<{ data: T; etag?: string } | undefined> {
    return this.call<T>(name, body, etag ? { 'if-none-match': etag } : {});
  }

  private async call<T>(
    name: string,
    body: Record<string, unknown>,
    headers: Record<string, string>,
  ): Promise<{ data: T; etag?: string } | undefined> {
    const path = `${this.basePath}/v1/tools/${encodeURIComponent(name)}`;
    const what = `${name} (POST ${path})`;
    return this.request('POST', path, JSON.stringify(body), headers, async (res) => {
      if (res.statusCode === 304) {
        await res.body.dump();
        if (!headers['if-none-match'])
          throw new RemoteError(502, 'bad_response', `${name}: "not modified" (304) to a request that named no ETag`);
        return undefined;
      }
      const parsed = parseJson(await this.readCapped(res, this.maxJsonBytes, what, JSON_SETTING), name) as {
        data?: unknown;
      };
      if (!parsed || typeof parsed !== 'object' || !('data' in parsed))
        throw new RemoteError(502, 'bad_response', `${name}: the answer has no "data" field`);
      const etag = res.headers.etag;
      return { data: parsed.data as T, ...(typeof etag === 'string' ? { etag } : {}) };
    });
  }

  /**
   * Calls a tool with `extras`: fields our own server understands beyond the hosted wire (paging, details).
   * A server that refuses one of them (400 naming the field) is asked again without any, and never again
   * with them; `extended` says whether the answer is to the extended request.
   */
  async toolWithExtras<T = Record<string, unknown>>(
    name: string,
    body: Record<string, unknown>,
    extras: Record<string, unknown>,
  ): Promise<{ data: T; extended: boolean }> {
    const fields = Object.keys(extras);
    const known = `${name} ${fields.join(',')}`;
    if (!this.unsupported.has(known)) {
      try {
        return { data: await this.tool<T>(name, { ...body, ...extras }), extended: true };
      } catch (err) {
        if (!(err instanceof RemoteError && err.status === 400 && fields.some((f) => err.message.includes(f))))
          throw err;
        this.unsupported.add(known);
      }
    }
    return { data: await this.tool<T>(name, body), extended: false };
  }

  /**
   * GETs a file the service links to, into memory (for text that is stored in the database), capped like a
   * tool's answer. Only the link's path is used, against the configured remote: the key never goes to
   * another host, and a service behind a proxy (whose links name its inner address) still works.
   */
  async download(url: string): Promise<Buffer> {
    const path = this.pathOf(url);
    return this.request('GET', path, undefined, {}, (res) =>
      this.readCapped(res, this.maxJsonBytes, `GET ${path}`, JSON_SETTING),
    );
  }

  /**
   * GETs a file the service links to straight to disk: into a temp file beside `target`, renamed into place
   * once complete, so `target` is never half-written and the file is never held in memory.
   */
  async downloadTo(url: string, target: string): Promise<void> {
    const path = this.pathOf(url);
    return this.request('GET', path, undefined, {}, async (res) => {
      const partial = `${target}.${randomBytes(4).toString('hex')}.partial`;
      const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
      try {
        await pipeline(this.capped(res, this.maxDownloadBytes, `GET ${path}`, DOWNLOAD_SETTING), out);
        renameSync(partial, target);
      } catch (err) {
        // The file may still be opening: it is removed once closed, or it would be left behind.
        if (!out.closed) await new Promise<void>((closed) => out.once('close', () => closed()));
        rmSync(partial, { force: true });
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private pathOf(url: string): string {
    const target = new URL(url, this.origin);
    return target.pathname + target.search;
  }

  /**
   * The body's chunks, counted into the stats, ending in a BodyTooLargeError as soon as they pass `limit`
   * (at once when Content-Length already says so): the rest is never read.
   */
  private async *capped(
    res: Dispatcher.ResponseData,
    limit: number,
    what: string,
    setting?: string,
  ): AsyncGenerator<Buffer> {
    const tooLarge = () => new BodyTooLargeError(what, limit, setting);
    if (Number(res.headers['content-length']) > limit) {
      res.body.destroy();
      throw tooLarge();
    }
    let seen = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      seen += chunk.length;
      this.stats.bytes += chunk.length;
      if (seen > limit) throw tooLarge(); // leaving the loop destroys the body
      yield chunk;
    }
  }

  private async readCapped(
    res: Dispatcher.ResponseData,
    limit: number,
    what: string,
    setting?: string,
  ): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.capped(res, limit, what, setting)) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  /**
   * One request with retries; the concurrency slot is held only while a request is on the wire. A 2xx (or
   * 304) answer goes to `consume`, which may fail like the network does (then the request is retried).
   */
  private async request<T>(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
    consume: (res: Dispatcher.ResponseData) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let failure: Error;
      let throttled = false;
      const ticket = await this.pacer.acquire();
      // The deadline covers this attempt, its answer's body included (consume reads it under the same signal).
      const deadline = this.deadline();
      try {
        this.stats.requests++;
        const res = await this.pool.request({
          method,
          path,
          body,
          signal: deadline.signal,
          headers: {
            authorization: `Bearer ${this.key}`,
            'user-agent': `vault-tools/${PACKAGE_VERSION} sync`,
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        });
        this.pacer.observe(res.headers);
        const wait = retryAfterMs(res.headers['retry-after']);
        // A 429 is the rate limit, and so is a 503 that says when to come back: every request waits.
        throttled = res.statusCode === 429 || (res.statusCode === 503 && wait !== undefined);
        if (throttled)
          this.pacer.throttled(ticket, wait ?? this.backoff(attempt)); // the pacer caps the wait
        else this.pacer.succeeded();
        // Reading the body may fail too (connection dropped, a length that does not match): that is retried.
        if ((res.statusCode >= 200 && res.statusCode < 300) || res.statusCode === 304) return await consume(res);
        const { code, message } = await this.errorOf(res);
        if (res.statusCode === 401 || res.statusCode === 403) {
          // 403 for one tool on a member key is a per-call refusal (manager-only tool), not a dead credential.
          if (res.statusCode === 401 || code !== 'forbidden')
            throw new RemoteAuthError(
              res.statusCode,
              code,
              `the remote refused the key (${res.statusCode} ${code}): ${message}`,
            );
        }
        if (!RETRYABLE_STATUS.has(res.statusCode)) throw new RemoteError(res.statusCode, code, message);
        failure = new RemoteError(res.statusCode, code, message);
      } catch (err) {
        if (err instanceof RemoteError || err instanceof BodyTooLargeError || this.signal?.aborted) throw err;
        // Not retried: a server that trickled its answer once would do it again.
        if (deadline.expired()) throw new DeadlineError(`${method} ${path}`, this.deadlineMs);
        failure = err as Error;
        if (!isTransient(failure)) throw failure;
      } finally {
        deadline.dispose();
        this.pacer.release();
      }
      if (attempt >= this.attempts)
        throw new Error(`${method} ${path} failed after ${attempt} attempts: ${failure.message}`);
      this.stats.retries++;
      // A refusal's wait is the pacer's gate, which holds this request too; other failures back off alone.
      if (!throttled) await sleep(this.backoff(attempt), undefined, { signal: this.signal });
    }
  }

  /**
   * A signal for one attempt: fired by the sync's own signal or when `deadlineMs` have passed. Built by hand
   * and disposed of, because AbortSignal.timeout and AbortSignal.any leave a timer, or an entry on the sync's
   * signal, behind for every request (about 1 KB each: 200,000 calls kept 237 MB).
   */
  private deadline(): { signal: AbortSignal; expired(): boolean; dispose(): void } {
    const controller = new AbortController();
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      controller.abort();
    }, this.deadlineMs);
    const follow = () => controller.abort(this.signal?.reason);
    if (this.signal?.aborted) follow();
    else this.signal?.addEventListener('abort', follow, { once: true });
    return {
      signal: controller.signal,
      expired: () => expired,
      dispose: () => {
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', follow);
      },
    };
  }

  private backoff(attempt: number): number {
    return backoffMs(attempt, this.backoffMs, MAX_WAIT_MS);
  }

  /** The service's error body `{error:{code,message}}`, or the status when the body is something else. */
  private async errorOf(res: Dispatcher.ResponseData): Promise<{ code: string; message: string }> {
    try {
      const bytes = await this.readCapped(res, MAX_ERROR_BYTES, 'an error answer');
      const e = (JSON.parse(bytes.toString('utf8')) as { error?: { code?: string; message?: string } }).error;
      // Both reach a terminal and the stored status: no escape sequence, no line of their own, no 64 KB line.
      if (typeof e?.code === 'string')
        return { code: printable(e.code, 60), message: printable(typeof e.message === 'string' ? e.message : e.code) };
    } catch (err) {
      // not the service's error body (or a longer one): the status says enough, unless the connection failed
      if (!(err instanceof BodyTooLargeError) && !(err instanceof SyntaxError)) throw err;
    }
    return { code: `http_${res.statusCode}`, message: `HTTP ${res.statusCode}` };
  }
}

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RemoteError(502, 'bad_response', `${what}: the answer is not JSON (${bytes.length} bytes)`);
  }
}

export function formatMs(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 && n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** Network-level failures worth another attempt: resets, timeouts, bodies cut short. */
function isTransient(err: Error): boolean {
  if (err instanceof undiciErrors.UndiciError) return true;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  return (
    /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|UND_ERR)/.test(code) ||
    /terminated|other side closed|socket/i.test(err.message)
  );
}
