/**
 * Issue 45, items 14 and 15: what one caller can take from the others. A call's weight in the per-key rate limit
 * grows with the work it asks for (search_transcripts: one per phrasing; the query embedder's turns are
 * test/unit/embedder-fair-share.test.ts), and the OAuth endpoints' per-address limits key on an address nobody can
 * forge: X-Forwarded-For counts only from a proxy the operator names (--trust-proxy), and only as far as it is an
 * IP address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoStore, type DemoStore } from '../helpers.js';
import { startServer, type RunningServer } from '../http-helpers.js';

const VAULT = 'northwind-logistics';
let store: DemoStore;
beforeAll(() => {
  store = demoStore();
}, 60_000);
afterAll(() => store?.cleanup());

const FIVE = [
  'trucks waiting at the dock',
  'lorries sitting outside for hours',
  'carrier detention charges',
  'yard congestion at Daventry',
  'slow unloading at goods in',
];

function search(server: RunningServer, key: string, alternatives?: string[]) {
  return fetch(`${server.url}/v1/tools/search_transcripts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      vault: VAULT,
      query: 'Why are trucks waiting so long at the dock?',
      limit: 3,
      ...(alternatives ? { alternatives } : {}),
    }),
  });
}

describe('a call weighs what it asks for', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(store.dir, ['--rate-limit', '5']); // bursts of 10
  }, 60_000);
  afterAll(() => server?.stop());

  it('lets a key make 10 plain searches at once, but only about half as many with one alternative each', async () => {
    const plain = await Promise.all(
      Array.from({ length: 10 }, () => search(server, store.memberKey(VAULT)).then((r) => r.status)),
    );
    expect(plain).toEqual(Array(10).fill(200));
    const key = store.memberKey('meridian-health'); // another key: a full bucket of its own
    const meridianSearch = () =>
      fetch(`${server.url}/v1/tools/search_transcripts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'agency staff on the wards',
          alternatives: ['bank and agency nurses'],
          limit: 3,
        }),
      });
    const answers = await Promise.all(Array.from({ length: 10 }, () => meridianSearch()));
    const ok = answers.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(4);
    expect(ok).toBeLessThanOrEqual(6); // 10 tokens, 2 a call (and a token or two refilled meanwhile)
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('rate_limited');
  });

  it("refuses outright a call whose work the key's burst can never pay, naming why", async () => {
    const slow = await startServer(store.dir, ['--rate-limit', '2']); // bursts of 4: five alternatives weigh 6
    try {
      const res = await search(slow, store.ownerKey, FIVE);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        'asks for the work of 6 calls; a key may make at most 4 at once',
      );
      expect((await search(slow, store.ownerKey, FIVE.slice(0, 2))).status).toBe(200);
    } finally {
      await slow.stop();
    }
  });
});

describe('per-address limits behind --public-url count the address only a trusted proxy can name', () => {
  const PUBLIC = 'https://vault.example.test';
  const registration = JSON.stringify({
    client_name: 'Flood',
    redirect_uris: ['http://127.0.0.1:9/cb'],
    application_type: 'native',
    token_endpoint_auth_method: 'none',
  });
  const register = (server: RunningServer, forwarded: string) =>
    fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded },
      body: registration,
    }).then((r) => r.status);

  it('without --trust-proxy: a caller writing a new X-Forwarded-For each time is still one address', async () => {
    const server = await startServer(store.dir, ['--public-url', PUBLIC, '--rate-limit', '0']);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) statuses.push(await register(server, `198.51.100.${i + 1}`));
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(201));
      expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    } finally {
      await server.stop();
    }
  });

  it('with --trust-proxy: the address the trusted proxy wrote decides; a value that is not an IP address counts as the proxy', async () => {
    const server = await startServer(store.dir, [
      '--public-url',
      PUBLIC,
      '--trust-proxy',
      '127.0.0.1',
      '--rate-limit',
      '0',
    ]);
    try {
      for (let i = 0; i < 20; i++) expect(await register(server, `203.0.113.9, 192.0.2.${i + 1}`)).toBe(201);
      // 16 KB of made-up "addresses": all are the proxy's own, one bucket, whatever each says.
      const junk: number[] = [];
      for (let i = 0; i < 22; i++) junk.push(await register(server, `x${i}`.repeat(4000)));
      expect(junk.filter((s) => s === 201)).toHaveLength(20);
      expect(junk.slice(-2)).toEqual([429, 429]);
      // An address forged left of the one the proxy wrote does not decide either.
      expect(await register(server, '192.0.2.1, 198.51.100.200')).toBe(201);
    } finally {
      await server.stop();
    }
  });

  it('refuses a --trust-proxy that is not an address, by name', async () => {
    await expect(startServer(store.dir, ['--trust-proxy', 'my-tunnel'])).rejects.toThrow(
      /--trust-proxy "my-tunnel": expected the IP address/,
    );
  });
});
