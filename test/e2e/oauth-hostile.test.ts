/**
 * Issue 36: the OAuth endpoints anyone can reach, behind `--public-url` (a tunnel in front: every caller on the
 * internet). What they can make the listener store is bounded (rate limits per address, size limits, caps), and
 * what the listener publishes comes from the public URL alone, whatever X-Forwarded-* a caller sends. One
 * listener for the file; each test speaks from its own address (X-Forwarded-For, as the tunnel would write it:
 * the listener trusts the tunnel's loopback address with --trust-proxy). Issue 45: a full cap makes room.
 */
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoStore, type DemoStore } from '../helpers.js';
import { startServer, type RunningServer } from '../http-helpers.js';
import { loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const PUBLIC = 'https://vault.example.test';
let store: DemoStore;
let server: RunningServer;
beforeAll(async () => {
  store = demoStore();
  server = await startServer(store.dir, ['--public-url', PUBLIC, '--trust-proxy', '127.0.0.1', '--rate-limit', '0']);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  store?.cleanup();
});

let addresses = 0;
/** A caller of its own, as the tunnel names it. */
const newAddress = () => `198.51.100.${++addresses}`;
const registration = {
  client_name: 'Flood',
  redirect_uris: ['http://127.0.0.1:9/cb'],
  application_type: 'native',
  token_endpoint_auth_method: 'none',
};
const register = (from: string, body: unknown = registration) =>
  fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.250, ${from}` },
    body: JSON.stringify(body),
  });
const authorize = (from: string, params: Record<string, string>) => {
  const url = new URL(`${server.url}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': from } });
};
const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {});
const storeDb = () => new Database(join(store.dir, 'vault-tools.db'));
const liveRows = (model: string) => {
  const db = storeDb();
  try {
    return (
      db
        .prepare('SELECT COUNT(*) AS n FROM oauth_records WHERE model = ? AND (expires_at IS NULL OR expires_at > ?)')
        .get(model, Date.now()) as { n: number }
    ).n;
  } finally {
    db.close();
  }
};

describe('behind --public-url, the published endpoints come from the public URL alone', () => {
  it("ignores a forwarded host or scheme that is not the public URL's", async () => {
    for (const headers of [
      { 'x-forwarded-host': 'evil.example, vault.example.test', 'x-forwarded-proto': 'https' },
      { 'x-forwarded-host': 'vault.example.test' },
      { 'x-forwarded-proto': 'http' },
      {},
    ] as Record<string, string>[]) {
      const as = (await (
        await fetch(`${server.url}/.well-known/oauth-authorization-server`, { headers })
      ).json()) as Record<string, string>;
      expect(as, JSON.stringify(headers)).toMatchObject({
        issuer: PUBLIC,
        authorization_endpoint: `${PUBLIC}/oauth/authorize`,
        token_endpoint: `${PUBLIC}/oauth/token`,
        registration_endpoint: `${PUBLIC}/oauth/register`,
        revocation_endpoint: `${PUBLIC}/oauth/revoke`,
        jwks_uri: `${PUBLIC}/oauth/jwks`,
      });
      const prm = (await (
        await fetch(`${server.url}/.well-known/oauth-protected-resource`, { headers })
      ).json()) as Record<string, unknown>;
      expect(prm).toMatchObject({ resource: `${PUBLIC}/`, authorization_servers: [PUBLIC] });
    }
  });

  it("keeps the public URL's scheme whatever X-Forwarded-Proto says: the flow's cookies are Secure", async () => {
    const client = ((await (await register(newAddress())).json()) as { client_id: string }).client_id;
    const res = await fetch(
      `${server.url}/oauth/authorize?client_id=${encodeURIComponent(client)}&response_type=code&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/cb')}&scope=vaults&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
      {
        redirect: 'manual',
        headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
      },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/oauth\/consent\//);
    // The cookie is for the public URL's scheme: Secure.
    expect(res.headers.getSetCookie().join('\n')).toMatch(/; secure/i);
  });
});

describe('registration is bounded', () => {
  it('refuses metadata over 8 KB (413) and a body of unknown length (411), storing nothing', async () => {
    const before = liveRows('Client');
    const big = await register(newAddress(), {
      ...registration,
      client_name: 'x',
      logo_uri: `https://app.example/${'x'.repeat(50_000)}`,
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/at most 8,192 are accepted/),
    });
    const chunked = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${server.url}/oauth/register`);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            'x-forwarded-for': newAddress(),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(registration));
    });
    expect(chunked).toBe(411);
    expect(liveRows('Client')).toBe(before);
  });

  it('takes 20 registrations from one address at once, then one every 30 s; another address is not held up', async () => {
    const from = newAddress();
    for (let i = 0; i < 20; i++) expect((await register(from)).status).toBe(201);
    const refused = await register(from);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      error: 'temporarily_unavailable',
      error_description: expect.stringContaining('Too many client registrations from this address'),
    });
    // The tunnel's own address (the first X-Forwarded-For entry is the caller's to forge) does not decide.
    expect((await register(newAddress())).status).toBe(201);
  });

  it('keeps 1,000 registered clients waiting for their first grant: a new one makes room by forgetting the oldest', async () => {
    const db = storeDb();
    const add = db.prepare(
      "INSERT INTO oauth_records (model, id_hash, payload, expires_at) VALUES ('Client', ?, '{}', ?)",
    );
    const soon = Date.now() + 60_000;
    db.transaction(() => {
      // filler-0000 expires first: it is the oldest of the lot (every unused client lives a day from its registration).
      for (let i = liveRows('Client'); i < 1000; i++) add.run(`filler-${String(i).padStart(4, '0')}`, soon + i);
    })();
    db.close();
    const fillers = () => {
      const check = storeDb();
      try {
        return check
          .prepare(
            "SELECT id_hash FROM oauth_records WHERE model = 'Client' AND id_hash LIKE 'filler-%' ORDER BY id_hash",
          )
          .all()
          .map((r) => (r as { id_hash: string }).id_hash);
      } finally {
        check.close();
      }
    };
    try {
      const oldest = fillers()[0]!;
      const res = await register(newAddress());
      expect(res.status).toBe(201);
      expect(liveRows('Client')).toBe(1000);
      expect(fillers()).not.toContain(oldest);
    } finally {
      const cleanup = storeDb();
      cleanup.prepare("DELETE FROM oauth_records WHERE model = 'Client' AND id_hash LIKE 'filler-%'").run();
      cleanup.close();
    }
  });
});

describe('authorization is bounded', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = ((await (await register(newAddress())).json()) as { client_id: string }).client_id;
  });
  const params = (extra: Record<string, string> = {}) => ({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:9/cb',
    scope: 'vaults',
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'S256',
    state: 's',
    ...extra,
  });

  it('refuses a state over 1,024 characters and a request over 4,096, on a page, storing nothing', async () => {
    const before = liveRows('Interaction');
    const from = newAddress();
    const state = await authorize(from, params({ state: 's'.repeat(14_000) }));
    expect(state.status).toBe(400);
    expect(state.headers.get('x-frame-options')).toBe('DENY');
    expect(await state.text()).toContain(
      'The &#34;state&#34; parameter is 14,000 characters; at most 1,024 are accepted.',
    );
    const whole = await authorize(from, params({ nonce: 'n'.repeat(5000) }));
    expect(whole.status).toBe(400);
    expect(await whole.text()).toMatch(/The authorization request is [\d,]+ characters; at most 4,096 are accepted/);
    expect(liveRows('Interaction')).toBe(before);
    expect((await authorize(from, params({ state: 's'.repeat(1024) }))).status).toBe(303);
  });

  it('takes 60 authorizations from one address at once, then one a second', async () => {
    const from = newAddress();
    const statuses = await Promise.all(
      Array.from({ length: 80 }, () => authorize(from, params()).then((r) => r.status)),
    );
    // All at once: 60, and what the second or two they take refills.
    expect(tally(statuses)[303]).toBeGreaterThanOrEqual(60);
    expect(tally(statuses)[303]).toBeLessThan(70);
    expect(tally(statuses)[303]! + tally(statuses)[429]!).toBe(80);
    expect((await authorize(newAddress(), params())).status).toBe(303);
  });

  it('takes a new authorization while 1,000 wait for consent: the oldest waiting one makes room', async () => {
    const db = storeDb();
    const add = db.prepare(
      "INSERT INTO oauth_records (model, id_hash, payload, uid, expires_at) VALUES ('Interaction', ?, '{}', ?, ?)",
    );
    const soon = Date.now() + 60_000;
    db.transaction(() => {
      for (let i = liveRows('Interaction'); i < 1000; i++)
        add.run(`filler-${String(i).padStart(4, '0')}`, `filler-${i}`, soon + i);
    })();
    db.close();
    const oldestLeft = () => {
      const check = storeDb();
      try {
        return (
          check
            .prepare(
              "SELECT MIN(id_hash) AS id FROM oauth_records WHERE model = 'Interaction' AND id_hash LIKE 'filler-%'",
            )
            .get() as { id: string }
        ).id;
      } finally {
        check.close();
      }
    };
    try {
      const before = oldestLeft();
      const res = await authorize(newAddress(), params());
      expect(res.status).toBe(303);
      expect(liveRows('Interaction')).toBe(1000);
      expect(oldestLeft() > before).toBe(true);
    } finally {
      const cleanup = storeDb();
      cleanup.prepare("DELETE FROM oauth_records WHERE model = 'Interaction' AND id_hash LIKE 'filler-%'").run();
      cleanup.close();
    }
  });

  it('takes 60 token requests from one address at once, then two a second', async () => {
    const from = newAddress();
    const post = () =>
      fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: clientId,
          code: 'nope',
          code_verifier: 'v'.repeat(43),
          redirect_uri: 'http://127.0.0.1:9/cb',
        }),
      });
    const statuses = await Promise.all(Array.from({ length: 80 }, () => post().then((r) => r.status)));
    expect(tally(statuses)[400]).toBeGreaterThanOrEqual(60);
    expect(tally(statuses)[400]).toBeLessThan(70);
    expect(tally(statuses)[400]! + tally(statuses)[429]!).toBe(80);
  });
});
