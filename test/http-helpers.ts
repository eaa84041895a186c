/** Starting the built binary's REST listener on a free loopback port, and talking to it over real HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { BIN, demoStore, type DemoStore } from './helpers.js';

export interface RunningServer {
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** `vault-tools serve --http 127.0.0.1:0 --no-stdio …`, resolved once it prints its URL. */
export function startServer(
  dataDir: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--no-stdio', ...extra],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          VAULT_TOOLS_KEY: '',
          VAULT_TOOLS_HOME: '',
          VAULT_TOOLS_INDEX: 'off',
          VAULT_TOOLS_LOG: 'warn',
          ...env,
        },
      },
    );
    let err = '';
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 15_000);
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /REST API on (http:\/\/[^/\s]+)/.exec(err);
      if (m && timer) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          child,
          stderr: () => err,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode);
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${err}${out}`)));
  });
}

/**
 * A demo store (`vault-tools demo`) served over REST (no rate limit unless `extra` says otherwise) for the duration
 * of the calling test file: `store` and `server` are set once its beforeAll has run.
 */
export function demoServer(extra: string[] = ['--rate-limit', '0']): {
  readonly store: DemoStore;
  readonly server: RunningServer;
} {
  const running = {} as { store: DemoStore; server: RunningServer };
  beforeAll(async () => {
    running.store = demoStore();
    running.server = await startServer(running.store.dir, extra);
  });
  afterAll(async () => {
    await running.server?.stop();
    running.store?.cleanup();
  });
  return running;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/** A raw HTTP request (node:http, so Host and Origin can be set freely). */
export function http(
  url: string,
  opts: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
  } = {},
): Promise<RawResponse> {
  const u = new URL(opts.path ?? '/', url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? 'GET',
        headers: opts.headers ?? {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      },
    );
    req.on('error', reject);
    // A request the server never answers fails the caller instead of waiting for ever.
    if (opts.timeoutMs)
      req.setTimeout(opts.timeoutMs, () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.end(opts.body);
  });
}

/** POST /v1/tools/<name> with a JSON body and an optional bearer key. */
export function callTool(
  url: string,
  name: string,
  args: unknown,
  key?: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return http(url, {
    method: 'POST',
    path: `/v1/tools/${name}`,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(args),
  });
}
