/**
 * The HTTP listener against clients that hold connections, batch calls or probe the MCP endpoint with
 * methods it does not serve: nothing hangs, nothing slips past the rate limit, every error names its
 * request, and SIGTERM ends the process whatever the clients hold.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIN, demoStore, type DemoStore } from '../helpers.js';
import { http, startServer, type RawResponse, type RunningServer } from '../http-helpers.js';

const NW = 'northwind-logistics';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let store: DemoStore;
let server: RunningServer;

beforeAll(async () => {
  store = demoStore();
  server = await startServer(store.dir, ['--rate-limit', '0', '--allow-origin', 'https://app.example.com']);
});

afterAll(async () => {
  await server?.stop();
  store?.cleanup();
});

/** `http()` that gives up after `ms`: a request the server never answers fails the test instead of hanging it. */
function httpWithin(ms: number, ...args: Parameters<typeof http>): Promise<RawResponse> {
  return Promise.race([
    http(...args),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no complete answer within ${ms} ms`)), ms)),
  ]);
}

/** The JSON-RPC messages of an MCP answer, whether it came as JSON or as an event stream. */
function rpcMessages(r: RawResponse): any[] {
  if (String(r.headers['content-type']).startsWith('application/json')) return [r.json()].flat();
  return r.body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .flatMap((l) => JSON.parse(l.slice(6)));
}

const toolCall = (id: number, name: string, args: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('the MCP endpoint offers no stream and no sessions', () => {
  it('answers GET and DELETE with 405, Allow: POST and the error body, at once', async () => {
    const auth = { authorization: `Bearer ${store.ownerKey}` };
    for (const method of ['GET', 'DELETE']) {
      const r = await httpWithin(5000, server.url, {
        method,
        path: '/v1/mcp',
        headers: { ...auth, accept: 'text/event-stream', 'x-request-id': `probe-${method}` },
      });
      expect(r.status, `${method}: ${r.body}`).toBe(405);
      expect(r.headers.allow).toBe('POST');
      expect(r.headers['x-request-id']).toBe(`probe-${method}`);
      expect(r.json().error).toMatchObject({ code: 'method_not_allowed', requestId: `probe-${method}` });
      expect(r.json().error.message).toContain('POST');
    }
  });
});

describe('request ids', () => {
  it("an MCP tool error carries the response's X-Request-Id, a sane incoming one kept", async () => {
    const auth = { authorization: `Bearer ${store.ownerKey}` };
    const bad = toolCall(1, 'stats', { vault: 'no-such-vault' });
    const kept = await http(server.url, {
      method: 'POST',
      path: '/v1/mcp',
      headers: { ...MCP_HEADERS, ...auth, 'x-request-id': 'client-req-42' },
      body: JSON.stringify(bad),
    });
    expect(kept.headers['x-request-id']).toBe('client-req-42');
    const [reply] = rpcMessages(kept);
    expect(reply.result.isError).toBe(true);
    expect(JSON.parse(reply.result.content[0].text).error).toMatchObject({
      code: 'vault_not_found',
      requestId: 'client-req-42',
    });

    const fresh = await http(server.url, {
      method: 'POST',
      path: '/v1/mcp',
      headers: { ...MCP_HEADERS, ...auth },
      body: JSON.stringify(bad),
    });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(rpcMessages(fresh)[0].result.content[0].text).error.requestId).toBe(
      fresh.headers['x-request-id'],
    );
  });
});

describe('CORS', () => {
  it('a preflight from an allowed origin lists Idempotency-Key among the allowed headers', async () => {
    const r = await http(server.url, {
      method: 'OPTIONS',
      path: '/v1/tools/add_task',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(r.status).toBe(204);
    const allowed = String(r.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
  });
});

describe('JSON-RPC batches and the rate limit', () => {
  it('a batch pays one call per message: with --rate-limit 5 a batch of 100 runs nothing', async () => {
    const limited = await startServer(store.dir, ['--rate-limit', '5']);
    try {
      const auth = { authorization: `Bearer ${store.memberKey(NW)}` };
      const post = (messages: object[]) =>
        http(limited.url, {
          method: 'POST',
          path: '/v1/mcp',
          headers: { ...MCP_HEADERS, ...auth },
          body: JSON.stringify(messages),
        });
      const succeeded = (r: RawResponse) =>
        r.status === 200 ? rpcMessages(r).filter((m) => m.result && !m.result.isError).length : 0;

      // 100 calls can never fit a burst of 10: refused outright, as a request to change, not one to retry.
      const big = await post(Array.from({ length: 100 }, (_, i) => toolCall(i + 1, 'stats', { vault: NW })));
      expect(succeeded(big), `${big.status} ${big.body.slice(0, 300)}`).toBe(0);
      expect(big.status).toBe(400);
      expect(big.json().error).toMatchObject({ code: 'invalid_request', requestId: big.headers['x-request-id'] });
      expect(big.json().error.message).toMatch(/100 calls.*at most 10/);

      // Batches within the burst run, and spend the bucket like single calls: 3 + 3 (+1 refused above) of 10 tokens.
      const small = [
        toolCall(1, 'stats', { vault: NW }),
        toolCall(2, 'stats', { vault: NW }),
        toolCall(3, 'list_vaults', {}),
      ];
      for (let i = 0; i < 2; i++) {
        const r = await post(small);
        expect(r.status, r.body).toBe(200);
        expect(succeeded(r)).toBe(3);
      }
      const eight = await post(Array.from({ length: 8 }, (_, i) => toolCall(i + 1, 'stats', { vault: NW })));
      expect(eight.status, eight.body.slice(0, 300)).toBe(429);
      expect(Number(eight.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(eight.json().error).toMatchObject({ code: 'rate_limited', requestId: eight.headers['x-request-id'] });
      expect(eight.json().error.message).toMatch(/batch holds 8/);
    } finally {
      await limited.stop();
    }
  });
});

describe('shutdown with hostile clients', () => {
  it('SIGTERM ends the process in seconds while 20 connections hold it (half-sent requests, idle keep-alive, open MCP GETs)', async () => {
    const s = await startServer(store.dir, ['--rate-limit', '0']);
    const { hostname, port } = new URL(s.url);
    const host = `${hostname}:${port}`;
    const sockets: Socket[] = [];
    let answered = 0;
    const open = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect({ host: hostname, port: Number(port) }, () => {
          socket.write(text);
          resolve();
        });
        socket.on('error', () => {}); // the server is expected to hang up on us
        socket.once('error', reject);
        socket.once('data', () => answered++);
        sockets.push(socket);
      });
    // The server's open sockets (Linux): its listener and every connection it has accepted.
    const serverSockets = () =>
      readdirSync(`/proc/${s.child.pid}/fd`).filter((fd) => {
        try {
          return readlinkSync(`/proc/${s.child.pid}/fd/${fd}`).startsWith('socket:');
        } catch {
          return false; // closed while listed
        }
      }).length;
    const before = serverSockets();
    const auth = `Authorization: Bearer ${store.ownerKey}\r\n`;
    try {
      for (let i = 0; i < 6; i++) await open(`POST /v1/tools/stats HTTP/1.1\r\nHost: ${host}\r\n${auth}`); // headers never finished
      for (let i = 0; i < 6; i++)
        await open(
          `POST /v1/tools/stats HTTP/1.1\r\nHost: ${host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"vault":`,
        ); // body never finished
      for (let i = 0; i < 4; i++)
        await open(`GET /v1/mcp HTTP/1.1\r\nHost: ${host}\r\n${auth}Accept: text/event-stream\r\n\r\n`); // would-be event streams
      for (let i = 0; i < 4; i++) await open(`GET /v1 HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`); // answered, then idle
      expect(sockets).toHaveLength(20);
      // The server has taken them all in: accepted all 20, and answered the 4 GET /v1 and the 4 event streams.
      await vi.waitFor(
        () => {
          expect(serverSockets()).toBeGreaterThanOrEqual(before + 20);
          expect(answered).toBeGreaterThanOrEqual(8);
        },
        { timeout: 20_000, interval: 20 },
      );

      const started = Date.now();
      const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
      s.child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
      const ms = Date.now() - started;
      expect(code, `still running ${ms} ms after SIGTERM`).toBe(0);
      expect(ms).toBeLessThan(10_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
    }
  }, 30_000);
});

describe('listening beyond loopback', () => {
  it('warns on stderr that the API is reachable from the network when bound to 0.0.0.0', async () => {
    // Binds 0.0.0.0 on a free port only to read the start-up message; no request goes anywhere.
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--data-dir', store.dir, '--http', '0.0.0.0:0', '--no-stdio'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          VAULT_TOOLS_KEY: '',
          VAULT_TOOLS_HOME: '',
          VAULT_TOOLS_INDEX: 'off',
          VAULT_TOOLS_LOG: 'warn',
        },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!/REST API on/.test(stderr) && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/REST API on http:\/\/0\.0\.0\.0:\d+/);
    expect(stderr).toMatch(/warning: .*0\.0\.0\.0.* reachable from (the network|other machines)/i);

    // The usual loopback listener says nothing of the kind.
    expect(server.stderr()).not.toMatch(/reachable from/i);
  }, 45_000);
});
