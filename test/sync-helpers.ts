/**
 * Sync test helpers: a "hosted" and a local `vault-tools serve`, tool-by-tool comparison of their answers,
 * a store dump for "equal to a clean sync", and a fault-injecting proxy.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { openDb } from '../src/store/db.js';
import { BIN, cli, tempDir } from './helpers.js';
import { callTool, startServer, type RunningServer } from './http-helpers.js';
import { sampleArgs } from './sample-args.js';

export const VAULTS = ['northwind-logistics', 'meridian-health'] as const;

/**
 * Read tools whose data the API cannot enumerate, so a pull cannot copy it: the mailbox behind
 * find_email_thread (only thread summaries, 20 at most, are ever returned) and the agent's memory behind
 * search_agent_memory (search hits only). Both still answer locally from what was done locally.
 */
export const NOT_PULLABLE = new Set(['find_email_thread', 'search_agent_memory']);

/**
 * Base URLs differ between the two listeners, and "now" between two calls (list_calendar's window start is
 * now minus 45 days, to the millisecond; stored times have no milliseconds); everything else must be equal.
 */
function normalize(data: unknown, server: RunningServer): string {
  return JSON.stringify(data)
    .split(server.url)
    .join('<base>')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"<now>"');
}

/** The arguments each comparison uses, made once so both servers get exactly the same ones. */
export function comparisonArgs(tools: string[]): Map<string, Record<string, unknown>> {
  const args = new Map<string, Record<string, unknown>>();
  for (const vault of VAULTS) for (const tool of tools) args.set(`${vault} ${tool}`, sampleArgs(tool, vault));
  return args;
}

export async function answersOf(
  server: RunningServer,
  key: string,
  args: Map<string, Record<string, unknown>>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [name, body] of args) {
    {
      const tool = name.split(' ')[1]!;
      const res = await callTool(server.url, tool, body, key);
      out.set(name, `${res.status} ${normalize(res.json(), server)}`);
    }
  }
  return out;
}

/**
 * A "hosted" `vault-tools serve --http` on the demo vaults (rate limit off) for a describe block: started
 * before its tests, stopped (and its data dir removed) after them. Its URL and owner key are read in tests;
 * its data dir serves a second listener (say, one with a rate limit).
 */
export function useHostedDemo(): { readonly url: string; readonly key: string; readonly dataDir: string } {
  const dir = tempDir('vt-hosted-');
  let server: RunningServer | undefined;
  let key = '';
  beforeAll(async () => {
    cli(['demo', '--data-dir', dir.dir, '--no-serve']);
    key = readFileSync(join(dir.dir, 'owner.key'), 'utf8').trim();
    server = await startServer(dir.dir, ['--rate-limit', '0']);
  });
  afterAll(async () => {
    await server?.stop();
    dir.cleanup();
  });
  return {
    get url() {
      return server!.url;
    },
    get key() {
      return key;
    },
    dataDir: dir.dir,
  };
}

/** `vault-tools sync --json` without blocking this process (a proxy living here must keep answering); resolves with its report. */
export function syncInBackground<R = Record<string, unknown>>(
  dataDir: string,
  remote: string,
  key: string,
  env: Record<string, string> = {},
): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'sync', '--remote', remote, '--remote-key', key, '--data-dir', dataDir, '--json'],
      {
        env: { ...process.env, ...env },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // A report on stdout (exit 0, or 1 when a vault failed) is the answer; anything else is the error.
    child.once('exit', (code) =>
      out.startsWith('{')
        ? resolve(JSON.parse(out) as R)
        : reject(new Error(`sync exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

/** Every table a pull writes, rows in a stable order, minus columns that differ by nature (row ids, load times). */
export function dumpStore(dataDir: string): Record<string, unknown[]> {
  const db = openDb(dataDir);
  try {
    const tables = [
      'vaults',
      'people',
      'entities',
      'entity_names',
      'edges',
      'meetings',
      'transcript_turns',
      'entity_mentions',
      'evidence',
      'conflicts',
      'conflict_claims',
      'calendar_events',
      'milestones',
      'tasks',
      'plan_steps',
      'files',
      'briefs',
      'sent_emails',
      'mail_threads',
      'artifacts',
      'transcript_chunks',
      'sync_records',
    ];
    const skip = new Set(['loaded_at', 'id@transcript_chunks']);
    const dump: Record<string, unknown[]> = {};
    for (const t of tables) {
      const cols = (db.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]).filter(
        (c) => !skip.has(c) && !skip.has(`${c}@${t}`),
      );
      dump[t] = db.prepare(`SELECT ${cols.join(', ')} FROM ${t} ORDER BY ${cols.join(', ')}`).all();
    }
    return dump;
  } finally {
    db.close();
  }
}

export type Fault = 'drop' | '429' | '500' | 'truncate' | 'slow';

export interface Proxy {
  url: string;
  requests: number;
  faults: Record<Fault, number>;
  close(): Promise<void>;
}

/**
 * A proxy in front of the hosted server that breaks some requests in the ways networks and services do:
 * `plan(n)` says what to do with the n-th request (undefined: pass it through). `delayMs` slows every answer.
 */
export function faultProxy(target: string, plan: (n: number) => Fault | undefined, delayMs = 0): Promise<Proxy> {
  const t = new URL(target);
  const proxy: Proxy = {
    url: '',
    requests: 0,
    faults: { drop: 0, '429': 0, '500': 0, truncate: 0, slow: 0 },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const n = ++proxy.requests;
    const fault = plan(n);
    if (fault) proxy.faults[fault]++;
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (fault === 'drop') return req.socket.destroy();
      if (fault === '429') {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down', requestId: 'proxy' } }));
      }
      if (fault === '500') {
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: 'internal_error', message: 'injected', requestId: 'proxy' } }));
      }
      const upstream = request(
        {
          host: t.hostname,
          port: t.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: t.host },
        },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c) => body.push(c));
          up.on('end', () => {
            const bytes = Buffer.concat(body);
            const send = () => {
              res.writeHead(up.statusCode!, { ...up.headers, 'content-length': String(bytes.length) });
              if (fault === 'truncate') {
                res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
                return req.socket.destroy();
              }
              res.end(bytes);
            };
            const wait = fault === 'slow' ? 3_000 : delayMs;
            if (wait) setTimeout(send, wait);
            else send();
          });
        },
      );
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      proxy.close = () =>
        new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        });
      resolve(proxy);
    }),
  );
}

export interface RewritingProxy {
  url: string;
  close(): Promise<void>;
}

export interface Rewrites {
  /**
   * Answers a request itself (a download, an endless body…) and returns true; otherwise it goes upstream.
   * `tool` and `args` are set for tool calls.
   */
  answer?(req: IncomingMessage, res: ServerResponse, tool?: string, args?: Record<string, unknown>): boolean;
  /** The arguments of a tool call, as sent upstream. */
  request?(tool: string, args: Record<string, unknown>): Record<string, unknown>;
  /** Upstream's answer to a tool call (`{data}` or `{error}`), as passed back. `args` are the caller's. */
  response?(tool: string, args: Record<string, unknown>, answer: Record<string, unknown>): Record<string, unknown>;
}

/**
 * A proxy in front of the hosted server that rewrites chosen calls and answers (a service gone hostile or
 * broken) and passes everything else through unchanged.
 */
export function rewritingProxy(target: string, rewrites: Rewrites): Promise<RewritingProxy> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const tool = /\/v1\/tools\/([^/?]+)$/.exec(req.url ?? '')?.[1];
      let sent = Buffer.concat(chunks);
      const args: Record<string, unknown> = tool && sent.length ? JSON.parse(sent.toString('utf8')) : {};
      if (rewrites.answer?.(req, res, tool, args)) return;
      if (tool && rewrites.request) sent = Buffer.from(JSON.stringify(rewrites.request(tool, args)));
      // A proxy that rewrites answers cannot let the client revalidate them against the origin's ETags.
      const { 'if-none-match': _revalidate, ...forwarded } = req.headers;
      const headers = {
        ...(rewrites.response ? forwarded : req.headers),
        host: t.host,
        'content-length': String(sent.length),
      };
      const upstream = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers }, (up) => {
        const body: Buffer[] = [];
        up.on('data', (c) => body.push(c));
        up.on('end', () => {
          let bytes = Buffer.concat(body);
          if (tool && rewrites.response && /json/.test(String(up.headers['content-type']))) {
            bytes = Buffer.from(JSON.stringify(rewrites.response(tool, args, JSON.parse(bytes.toString('utf8')))));
          }
          const { etag: _etag, ...kept } = up.headers;
          res.writeHead(up.statusCode!, {
            ...(rewrites.response ? kept : up.headers),
            'content-length': String(bytes.length),
          });
          res.end(bytes);
        });
      });
      upstream.on('error', () => req.socket.destroy());
      upstream.end(sent);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

/**
 * Writes `bytes` bytes of `fill` to `res` between `head` and `tail`, a MiB at a time as the client takes
 * them (never holding the whole body); stops early when the client goes away. Resolves with the bytes sent.
 */
export async function streamBody(
  res: ServerResponse,
  bytes: number,
  fill = 0x20,
  head = '',
  tail = '',
): Promise<number> {
  const chunk = Buffer.alloc(1 << 20, fill);
  let closed = false;
  let wake = () => {};
  res.once('close', () => {
    closed = true;
    wake();
  });
  let sent = 0;
  res.write(head);
  while (sent < bytes && !closed) {
    const part = bytes - sent >= chunk.length ? chunk : chunk.subarray(0, bytes - sent);
    sent += part.length;
    if (!res.write(part))
      await new Promise<void>((r) => {
        wake = r;
        res.once('drain', r);
      });
  }
  if (!closed) res.end(tail);
  return sent;
}
