/**
 * Sync paced by the server, and the calls it makes: a real `vault-tools serve` on loopback, alone or behind a
 * small node:http proxy that refuses requests the way a rate-limited service does (429/503 with Retry-After,
 * as seconds or as an HTTP date), hides the RateLimit headers, or speaks only the hosted wire (no paging of
 * changes_since, no details on list_findings, no ETags). Counts only: no timed assertions.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from '../helpers.js';
import { callTool, startServer } from '../http-helpers.js';
import { dumpStore, syncInBackground, useHostedDemo } from '../sync-helpers.js';
import { openDb } from '../../src/store/db.js';

const ENV = {
  VAULT_TOOLS_KEY: '',
  VAULT_TOOLS_HOME: '',
  VAULT_TOOLS_REMOTE_URL: '',
  VAULT_TOOLS_REMOTE_KEY: '',
  VAULT_TOOLS_INDEX: 'off',
};
const NW = 'northwind-logistics';

interface Report {
  errors: { vault: string; error: string }[];
  pulled: { vaultId: string; entitiesFetched: number }[];
  requests: { requests: number; retries: number; bytes: number };
}

interface Seen {
  tool: string | undefined;
  args: Record<string, unknown>;
  status: number;
}

interface Proxy {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/**
 * A proxy in front of `target`. `refuse` may answer a request itself with a status and headers (an error
 * body is added); `hide` names response headers upstream sent that the client must not see. Every request
 * is recorded with the status it got.
 */
function proxy(
  target: string,
  opts: {
    refuse?(
      n: number,
      tool: string | undefined,
      args: Record<string, unknown>,
      req: IncomingMessage,
    ): { status: number; headers: Record<string, string> } | undefined;
    hide?: RegExp;
  } = {},
): Promise<Proxy> {
  const t = new URL(target);
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const tool = /\/v1\/tools\/([^/?]+)$/.exec(req.url ?? '')?.[1];
      const args = tool && body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
      const record: Seen = { tool, args, status: 0 };
      seen.push(record);
      const refusal = opts.refuse?.(seen.length, tool, args, req);
      if (refusal) {
        record.status = refusal.status;
        res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
        return res.end(
          JSON.stringify({
            error: {
              code: refusal.status === 400 ? 'invalid_argument' : 'rate_limited',
              message: refusal.headers['x-why'] ?? 'refused',
              requestId: 'proxy',
            },
          }),
        );
      }
      const headers = { ...req.headers, host: t.host };
      if (opts.hide)
        for (const name of Object.keys(headers))
          if (opts.hide.test(name)) delete (headers as Record<string, unknown>)[name];
      const upstream = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers }, (up) => {
        record.status = up.statusCode!;
        const kept = Object.fromEntries(Object.entries(up.headers).filter(([name]) => !opts.hide?.test(name)));
        res.writeHead(up.statusCode!, kept);
        up.pipe(res);
      });
      upstream.on('error', () => req.socket.destroy());
      upstream.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

/** A rate limiter's window: from the n-th request on, every request for `ms` is refused with a Retry-After. */
function window(from: number, ms: number, status: 429 | 503, form: 'seconds' | 'date') {
  let until = 0;
  return (n: number) => {
    if (n === from) until = Math.ceil((Date.now() + ms) / 1000) * 1000; // a whole second, so the date form is exact
    if (Date.now() >= until) return undefined;
    const retryAfter =
      form === 'seconds' ? String(Math.ceil((until - Date.now()) / 1000)) : new Date(until).toUTCString();
    return { status, headers: { 'retry-after': retryAfter } };
  };
}

const RATE_HEADERS = /^ratelimit-/i;

describe('sync paced by the server', () => {
  const open = useHostedDemo();
  const sync = (dir: string, url: string) => syncInBackground<Report>(dir, url, open.key, ENV);

  it('holds every request while a Retry-After runs (seconds on a 429, an HTTP date on a 503), so only requests already in flight are refused', async () => {
    const clean = tempDir('vt-pacing-clean-');
    const paced = tempDir('vt-pacing-');
    const first = window(10, 1500, 429, 'seconds');
    const second = window(40, 1500, 503, 'date');
    const p = await proxy(open.url, { refuse: (n) => first(n) ?? second(n), hide: RATE_HEADERS });
    try {
      const reference = await sync(clean.dir, open.url);
      const report = await sync(paced.dir, p.url);
      expect(report.errors).toEqual([]);
      const refused = p.seen.filter((s) => s.status === 429 || s.status === 503).length;
      expect(refused).toBeGreaterThan(0);
      // The default concurrency is 4: at most that many were on the wire when each window opened.
      expect(refused).toBeLessThanOrEqual(2 * 4);
      expect(report.requests.retries).toBe(refused);
      expect(dumpStore(paced.dir)).toEqual(dumpStore(clean.dir));
      expect(report.requests.requests).toBe(reference.requests.requests + refused);
    } finally {
      await p.close();
      clean.cleanup();
      paced.cleanup();
    }
  });

  it('under a server rate limit it is not told, it adapts (AIMD): retries stay a small share', async () => {
    const limited = await startServer(open.dataDir, ['--rate-limit', '10']);
    const p = await proxy(limited.url, { hide: RATE_HEADERS });
    const dir = tempDir('vt-pacing-aimd-');
    try {
      const report = await sync(dir.dir, p.url);
      expect(report.errors).toEqual([]);
      expect(p.seen.filter((s) => s.status === 429).length).toBe(report.requests.retries);
      expect(report.requests.retries / report.requests.requests).toBeLessThanOrEqual(0.15);
    } finally {
      await p.close();
      await limited.stop();
      dir.cleanup();
    }
  });

  it('reads the RateLimit headers serve publishes and waits for a token instead of being refused', async () => {
    const limited = await startServer(open.dataDir, ['--rate-limit', '10']);
    const dir = tempDir('vt-pacing-headers-');
    try {
      const answer = await callTool(limited.url, 'stats', { vault: NW }, open.key);
      expect(answer.headers['ratelimit-policy']).toBe('20;w=2');
      expect(Number(answer.headers['ratelimit-remaining'])).toBeLessThan(20);
      const report = await sync(dir.dir, limited.url);
      expect(report.errors).toEqual([]);
      expect(report.requests.retries).toBeLessThanOrEqual(2);
      // Refusals say when to come back, and that nothing is left.
      let refusal;
      for (let i = 0; i < 40 && !refusal; i++) {
        const r = await callTool(limited.url, 'stats', { vault: NW }, open.key);
        if (r.status === 429) refusal = r;
      }
      expect(refusal?.headers['retry-after']).toMatch(/^\d+$/);
      expect(refusal?.headers['ratelimit-remaining']).toBe('0');
    } finally {
      await limited.stop();
      dir.cleanup();
    }
  });

  it('pulls the inventory with its details in pages (no get_entity per entity), and a no-change pull is answered 304 for its lists', async () => {
    const dir = tempDir('vt-pacing-calls-');
    const p = await proxy(open.url);
    try {
      const full = await sync(dir.dir, p.url);
      expect(full.errors).toEqual([]);
      const entities = full.pulled.reduce((n, v) => n + v.entitiesFetched, 0);
      expect(entities).toBeGreaterThan(50);
      expect(p.seen.filter((s) => s.tool === 'get_entity')).toEqual([]);
      expect(full.requests.requests).toBeLessThan(entities);
      p.seen.length = 0;
      const again = await sync(dir.dir, p.url);
      expect(again.errors).toEqual([]);
      const notModified = p.seen.filter((s) => s.status === 304).map((s) => s.tool);
      for (const tool of [
        'list_meetings',
        'list_conflicts',
        'list_tasks',
        'find_person',
        'list_files',
        'list_sent_emails',
        'find_artifact',
      ]) {
        expect(notModified, tool).toContain(tool);
      }
    } finally {
      await p.close();
      dir.cleanup();
    }
  });

  it('an incremental pull reads the details of many changed entities from the most recent pages, not one call each', async () => {
    const upstreamDir = tempDir('vt-pacing-upstream-');
    const local = tempDir('vt-pacing-incremental-');
    const clean = tempDir('vt-pacing-clean-');
    cli(['demo', '--data-dir', upstreamDir.dir, '--no-serve']);
    const upstreamKey = readFileSync(join(upstreamDir.dir, 'owner.key'), 'utf8').trim();
    const upstream = await startServer(upstreamDir.dir, ['--rate-limit', '0']);
    const p = await proxy(upstream.url);
    try {
      expect((await syncInBackground<Report>(local.dir, p.url, upstreamKey, ENV)).errors).toEqual([]);
      // Upstream: 30 entities are mentioned again (as a new meeting's extraction would), with new counts.
      const db = openDb(upstreamDir.dir);
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const touched = db
        .prepare(
          `UPDATE entities SET mention_count = mention_count + 1, last_mentioned_at = ? WHERE vault_id = ? AND id IN (SELECT id FROM entities WHERE vault_id = ? ORDER BY id LIMIT 30)`,
        )
        .run(now, NW, NW).changes;
      db.close();
      expect(touched).toBe(30);
      p.seen.length = 0;
      const report = await syncInBackground<Report>(local.dir, p.url, upstreamKey, ENV);
      expect(report.errors).toEqual([]);
      expect(report.pulled.find((v) => v.vaultId === NW)?.entitiesFetched).toBe(30);
      expect(p.seen.filter((s) => s.tool === 'get_entity')).toEqual([]);
      expect((await syncInBackground<Report>(clean.dir, upstream.url, upstreamKey, ENV)).errors).toEqual([]);
      expect(dumpStore(local.dir)).toEqual(dumpStore(clean.dir));
    } finally {
      await p.close();
      await upstream.stop();
      upstreamDir.cleanup();
      local.cleanup();
      clean.cleanup();
    }
  });

  it('against a server that speaks only the hosted wire (extra fields refused, no ETags) it falls back and ends the same', async () => {
    const clean = tempDir('vt-pacing-clean-');
    const hostedStyle = tempDir('vt-pacing-wire-');
    const extra = (tool: string | undefined, args: Record<string, unknown>) =>
      (tool === 'changes_since' && ('limit' in args || 'cursor' in args)) ||
      (tool === 'list_findings' && 'includeDetails' in args);
    const p = await proxy(open.url, {
      refuse: (_n, tool, args) =>
        extra(tool, args)
          ? {
              status: 400,
              headers: { 'x-why': `unknown field \`${tool === 'list_findings' ? 'includeDetails' : 'limit'}\`` },
            }
          : undefined,
      hide: /^(etag|if-none-match)$/i,
    });
    try {
      await sync(clean.dir, open.url);
      const first = await sync(hostedStyle.dir, p.url);
      expect(first.errors).toEqual([]);
      expect(p.seen.filter((s) => s.tool === 'get_entity').length).toBeGreaterThan(50);
      // The extra field is tried once per sync; after the refusal the sync remembers (two vaults, many pages).
      const refused = (tool: string) => p.seen.filter((s) => s.tool === tool && s.status === 400).length;
      expect(refused('list_findings')).toBe(1);
      // An incremental pull asks changes_since: refused with `limit`, asked again without.
      const second = await sync(hostedStyle.dir, p.url);
      expect(second.errors).toEqual([]);
      expect(refused('changes_since')).toBe(1);
      expect(p.seen.filter((s) => s.tool === 'changes_since' && s.status === 200 && !('limit' in s.args)).length).toBe(
        2,
      );
      expect(dumpStore(hostedStyle.dir)).toEqual(dumpStore(clean.dir));
    } finally {
      await p.close();
      clean.cleanup();
      hostedStyle.cleanup();
    }
  });
});

describe('changes_since bounded', () => {
  const server = useHostedDemo();
  const since = '2000-01-01T00:00:00Z'; // everything is new since then

  const call = async (args: Record<string, unknown>) => {
    const r = await callTool(server.url, 'changes_since', { vault: NW, ...args }, server.key);
    return { status: r.status, body: r.json() };
  };

  it('pages return every item of each list exactly once, with totals over all pages', async () => {
    const lists = ['newEntities', 'rementionedEntities', 'newMeetings'] as const;
    const ids: Record<string, string[]> = { newEntities: [], rementionedEntities: [], newMeetings: [] };
    let cursor: string | undefined;
    let pages = 0;
    let totals: Record<string, number> | undefined;
    do {
      const { status, body } = await call({ since, limit: 7, ...(cursor ? { cursor } : {}) });
      expect(status).toBe(200);
      for (const l of lists) {
        expect(body.data[l].length).toBeLessThanOrEqual(7);
        ids[l]!.push(...body.data[l].map((x: { id: string }) => x.id));
      }
      totals ??= body.data.totals;
      expect(body.data.totals).toEqual(totals);
      cursor = body.data.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(2);
    const whole = (await call({ since, limit: 200 })).body.data;
    expect(whole.nextCursor).toBeNull();
    for (const l of lists) {
      expect(new Set(ids[l]).size, l).toBe(ids[l]!.length);
      expect(ids[l], l).toEqual(whole[l].map((x: { id: string }) => x.id));
      expect(totals?.[l], l).toBe(whole[l].length);
    }
    expect((totals?.newEntities ?? 0) + (totals?.newMeetings ?? 0)).toBeGreaterThan(7);
  });

  it('a hosted-style client that sends no limit gets a small first page with the totals; a cursor of another `since` is refused', async () => {
    const { status, body } = await call({ since });
    expect(status).toBe(200);
    expect(Object.keys(body.data).sort()).toEqual([
      'newEntities',
      'newMeetings',
      'nextCursor',
      'rementionedEntities',
      'since',
      'totals',
    ]);
    expect(body.data.newEntities.length).toBe(Math.min(50, body.data.totals.newEntities));
    expect(body.data.newMeetings.length).toBe(Math.min(50, body.data.totals.newMeetings));
    const page = (await call({ since, limit: 1 })).body.data;
    const other = await call({ since: '2001-01-01T00:00:00Z', limit: 1, cursor: page.nextCursor });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain('cursor');
    const bad = await call({ since, cursor: 'not-a-cursor' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('cursor');
  });
});
