/**
 * The client of the hosted service's REST API (or of another `vault-tools serve`): `POST /v1/tools/<name>`
 * and downloads, over one keep-alive undici pool with a few requests in flight. Transient failures (network
 * errors, 429 with Retry-After, 5xx, timeouts, bodies cut short) are retried with exponential backoff and
 * jitter; a refused key (401/403 on every call) is final at once; any other refusal comes back as a
 * RemoteError with the server's code and message, for the caller to decide.
 */
import { Pool, errors as undiciErrors } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_VERSION } from '../package-info.js';
import { parseRemoteUrl } from './config.js';

export interface RemoteOptions {
  /** Base URL of the service, with or without the trailing `/v1`. */
  url: string;
  key: string;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Per-request timeout for headers and for the body, ms (default 30 s; VAULT_TOOLS_SYNC_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Attempts per request before giving up on a transient failure (default 6). */
  attempts?: number;
  /** Backoff unit, ms (default 250): waits are unit × 2^attempt × jitter, capped at 30 s. */
  backoffMs?: number;
  signal?: AbortSignal;
}

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

export interface RemoteStats {
  requests: number;
  retries: number;
  bytes: number;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const MAX_WAIT_MS = 30_000;

export class RemoteClient {
  readonly origin: string;
  readonly basePath: string;
  readonly stats: RemoteStats = { requests: 0, retries: 0, bytes: 0 };
  private readonly pool: Pool;
  private readonly key: string;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly signal?: AbortSignal;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly concurrency: number;

  constructor(options: RemoteOptions) {
    ({ origin: this.origin, basePath: this.basePath } = parseRemoteUrl(options.url));
    this.key = options.key;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.timeoutMs = options.timeoutMs ?? Number(process.env.VAULT_TOOLS_SYNC_TIMEOUT_MS ?? 30_000);
    this.attempts = Math.max(1, options.attempts ?? 6);
    this.backoffMs = options.backoffMs ?? 250;
    this.signal = options.signal;
    this.pool = new Pool(this.origin, { connections: this.concurrency, keepAliveTimeout: 10_000, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
  }

  /** Calls a tool; resolves with its `data`. */
  async tool<T = Record<string, unknown>>(name: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<T> {
    const bytes = await this.request('POST', `${this.basePath}/v1/tools/${encodeURIComponent(name)}`, JSON.stringify(body), headers);
    const parsed = parseJson(bytes, name) as { data?: unknown };
    if (!parsed || typeof parsed !== 'object' || !('data' in parsed)) throw new RemoteError(502, 'bad_response', `${name}: the answer has no "data" field`);
    return parsed.data as T;
  }

  /**
   * GETs a file or artifact the service links to, as bytes. Only the link's path is used, against the
   * configured remote: the key never goes to another host, and a service behind a proxy (whose links name
   * its inner address) still works.
   */
  async download(url: string): Promise<Buffer> {
    const target = new URL(url, this.origin);
    return this.request('GET', target.pathname + target.search, undefined, {});
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** One request with retries; the concurrency slot is held only while a request is on the wire. */
  private async request(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<Buffer> {
    for (let attempt = 1; ; attempt++) {
      this.signal?.throwIfAborted();
      let wait: number | undefined;
      let failure: Error;
      await this.acquire();
      try {
        this.stats.requests++;
        const res = await this.pool.request({
          method,
          path,
          body,
          signal: this.signal,
          headers: {
            authorization: `Bearer ${this.key}`,
            'user-agent': `vault-tools/${PACKAGE_VERSION} sync`,
            accept: 'application/json',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        });
        // Reading the body may fail too (connection dropped, a length that does not match): that is retried.
        const bytes = Buffer.from(await res.body.arrayBuffer());
        this.stats.bytes += bytes.length;
        if (res.statusCode >= 200 && res.statusCode < 300) return bytes;
        const { code, message } = errorOf(bytes, res.statusCode);
        if (res.statusCode === 401 || res.statusCode === 403) {
          // 403 for one tool on a member key is a per-call refusal (manager-only tool), not a dead credential.
          if (res.statusCode === 401 || code !== 'forbidden') throw new RemoteAuthError(res.statusCode, code, `the remote refused the key (${res.statusCode} ${code}): ${message}`);
        }
        if (!RETRYABLE_STATUS.has(res.statusCode)) throw new RemoteError(res.statusCode, code, message);
        failure = new RemoteError(res.statusCode, code, message);
        wait = retryAfterMs(res.headers['retry-after']);
      } catch (err) {
        if (err instanceof RemoteError || this.signal?.aborted) throw err;
        failure = err as Error;
        if (!isTransient(failure)) throw failure;
      } finally {
        this.release();
      }
      if (attempt >= this.attempts) throw new Error(`${method} ${path} failed after ${attempt} attempts: ${failure.message}`);
      this.stats.retries++;
      const backoff = Math.min(MAX_WAIT_MS, this.backoffMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      await sleep(Math.min(MAX_WAIT_MS, Math.max(wait ?? 0, backoff)), undefined, { signal: this.signal });
    }
  }

  private async acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RemoteError(502, 'bad_response', `${what}: the answer is not JSON (${bytes.length} bytes)`);
  }
}

/** The service's error body `{error:{code,message}}`, or the status when the body is something else. */
function errorOf(bytes: Buffer, status: number): { code: string; message: string } {
  try {
    const e = (JSON.parse(bytes.toString('utf8')) as { error?: { code?: string; message?: string } }).error;
    if (e?.code) return { code: e.code, message: e.message ?? e.code };
  } catch {
    // not the service's error body
  }
  return { code: `http_${status}`, message: `HTTP ${status}` };
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Network-level failures worth another attempt: resets, timeouts, bodies cut short. */
function isTransient(err: Error): boolean {
  if (err instanceof undiciErrors.UndiciError) return true;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  return /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|UND_ERR)/.test(code) || /terminated|other side closed|socket/i.test(err.message);
}
