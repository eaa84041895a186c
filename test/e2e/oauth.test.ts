/**
 * OAuth against a real `serve --http` (issue 33): the v2 SDK client discovers the server from the 401, registers
 * (DCR), sends the person to the consent page, finishes with PKCE, and calls MCP and REST with the token; then
 * refresh rotation, reuse detection, revocation; and the hostile cases, each refused with nothing granted.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { cli, cliFails, demoStore, type DemoStore } from '../helpers.js';
import { http, startServer, type RunningServer } from '../http-helpers.js';
import { Browser, hidden } from '../oauth-helpers.js';
import { Chromium } from '../chromium-cdp.js';
import { loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const REDIRECT = 'http://127.0.0.1:9/callback';

class TestProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  authorizeUrl?: URL;
  readonly clientMetadata: OAuthClientMetadata;
  constructor(readonly redirectUrl: string) {
    this.clientMetadata = {
      client_name: 'Test MCP Client',
      redirect_uris: [redirectUrl],
      application_type: 'native',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  redirectToAuthorization(url: URL) {
    this.authorizeUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

/** The client's redirect URI: a real loopback server, where the browser lands with the code. */
let callbacks: { url: string; next(): Promise<URL>; close(): void };
let store: DemoStore;
let server: RunningServer;
let vaults: string[];
beforeAll(async () => {
  const waiting: ((url: URL) => void)[] = [];
  const callbackServer = createServer((req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>done</title><p>Signed in; you can close this page.</p>');
    waiting.shift()?.(new URL(req.url!, callbacks.url));
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  callbacks = {
    url: `http://127.0.0.1:${(callbackServer.address() as { port: number }).port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => callbackServer.close(),
  };
  store = demoStore();
  // At info level: the approval log line is checked (a client's name must not write to the terminal).
  server = await startServer(store.dir, ['--rate-limit', '0'], { VAULT_TOOLS_LOG: 'info' });
  const res = await fetch(`${server.url}/v1/vaults`, { headers: { authorization: `Bearer ${store.ownerKey}` } });
  vaults = ((await res.json()) as { data: { vaults: { id: string }[] } }).data.vaults.map((v) => v.id);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  store?.cleanup();
  callbacks?.close();
});

const get = (path: string, token: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
const form = (path: string, body: Record<string, string>) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    body: new URLSearchParams(body),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

/** A client registered by DCR, and a PKCE pair. */
async function register(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Hand-made client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      application_type: 'native',
      ...extra,
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}
function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
function authorizeUrl(clientId: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${server.url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'vaults offline_access',
    state: 's1',
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}
/** The code of an approved authorization (by the given key, for the given vaults). */
async function approvedCode(
  clientId: string,
  key: string,
  chosen: string[],
  extra: Record<string, string | undefined> = {},
) {
  const { verifier, challenge } = pkce();
  const done = await new Browser().consent(
    authorizeUrl(clientId, { code_challenge: challenge, ...extra }),
    server.url,
    { key, vaults: chosen },
  );
  const code = new URL(done.url).searchParams.get('code');
  expect(code, done.page.slice(0, 300)).toBeTruthy();
  return { code: code!, verifier };
}
const exchange = (clientId: string, code: string, verifier: string) =>
  form('/oauth/token', {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
  });

it('answers the metadata documents and names the resource metadata in every 401', async () => {
  const prm = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json()) as Record<
    string,
    unknown
  >;
  expect(prm).toMatchObject({
    resource: `${server.url}/`,
    authorization_servers: [server.url],
    scopes_supported: ['vaults'],
  });
  const mcpPrm = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource/v1/mcp`)).json()) as Record<
    string,
    unknown
  >;
  expect(mcpPrm.resource).toBe(`${server.url}/v1/mcp`);
  const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  expect(as).toMatchObject({
    issuer: server.url,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  });
  expect(as.registration_endpoint).toBe(`${server.url}/oauth/register`);
  expect(as.revocation_endpoint).toBe(`${server.url}/oauth/revoke`);
  for (const res of [
    await fetch(`${server.url}/v1/vaults`),
    await fetch(`${server.url}/v1/mcp`, { method: 'POST', body: '{}' }),
    await get('/v1/vaults', 'not-a-token'),
  ]) {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${server.url}/.well-known/oauth-protected-resource"`,
    );
  }
  expect((await get('/v1/vaults', 'not-a-token')).headers.get('www-authenticate')).toContain('error="invalid_token"');
  // The consent page cannot be framed.
  const consent = await new Browser().follow(
    authorizeUrl(await register(), { code_challenge: pkce().challenge }),
    server.url,
  );
  expect(consent.res!.headers.get('x-frame-options')).toBe('DENY');
  expect(consent.res!.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  // Keys work as before.
  expect((await get('/v1/vaults', store.ownerKey)).status).toBe(200);
});

it('runs the whole flow with the v2 SDK client: DCR, consent in chromium, PKCE, MCP and REST calls scoped to the approved vault, refresh, revoke', async () => {
  const [one, other] = vaults as [string, string];
  const provider = new TestProvider(callbacks.url);
  const mcpUrl = new URL(`${server.url}/v1/mcp`);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await expect(
    client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizeUrl?.searchParams.get('code_challenge_method')).toBe('S256');
  // The person approves one vault with a member key of that vault, in a real browser.
  const chromium = await Chromium.launch();
  let callback: URL;
  try {
    await chromium.goto(provider.authorizeUrl!.href);
    const page = await chromium.evaluate<string>('document.body.innerText');
    expect(page).toContain('Allow Test MCP Client to use your vaults?');
    expect(page).toContain(`your browser goes back to ${new URL(callbacks.url).host}`);
    // Set VAULT_TOOLS_CONSENT_PNG to keep a screenshot of the page to look at.
    writeFileSync(process.env.VAULT_TOOLS_CONSENT_PNG ?? join(store.dir, 'consent.png'), await chromium.screenshot());
    // No vault is named before a key is proven (anyone can open this page); then only the key's.
    expect(page).not.toContain(one);
    expect(page).not.toContain(other);
    const landed = callbacks.next();
    await chromium.loading(() =>
      chromium.evaluate(
        `document.querySelector('#key').value = ${JSON.stringify(store.memberKey(one))}; document.querySelector('button[value=continue]').click();`,
      ),
    );
    const chooser = await chromium.evaluate<string>('document.body.innerText');
    // The second step, beside the first (VAULT_TOOLS_CONSENT_PNG: consent.png and consent-vaults.png).
    writeFileSync(
      (process.env.VAULT_TOOLS_CONSENT_PNG ?? join(store.dir, 'consent.png')).replace(/\.png$/, '-vaults.png'),
      await chromium.screenshot(),
    );
    expect(chooser).toContain(`(${one})`);
    expect(chooser).not.toContain(other);
    const pick = `document.querySelector('input[name=vault][value=${JSON.stringify(one)}]').checked = true; document.querySelector('button[value=approve]').click();`;
    await chromium.loading(() => chromium.evaluate(pick));
    callback = await landed;
  } finally {
    await chromium.close();
  }
  expect(callback.origin + callback.pathname).toBe(callbacks.url);
  expect(callback.searchParams.get('iss')).toBe(server.url); // RFC 9207
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(callback.searchParams);
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const listed = (await client.callTool({ name: 'list_vaults', arguments: {} })) as {
    structuredContent?: { vaults: { id: string }[] };
  };
  expect(listed.structuredContent?.vaults.map((v) => v.id)).toEqual([one]);
  await client.close();

  const tokens = provider.stored!;
  expect(tokens.refresh_token).toBeTruthy();
  const rest = (await (await get('/v1/vaults', tokens.access_token)).json()) as { data: { vaults: { id: string }[] } };
  expect(rest.data.vaults.map((v) => v.id)).toEqual([one]);
  // Another vault is out of reach, as for the key.
  const elsewhere = await fetch(`${server.url}/v1/tools/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ vault: other, query: 'budget' }),
  });
  expect(elsewhere.status).toBe(404);

  // Tokens are stored hashed, as keys are.
  const db = new Database(join(store.dir, 'vault-tools.db'), { readonly: true });
  const raw = JSON.stringify(db.prepare('SELECT * FROM oauth_records').all());
  db.close();
  expect(raw).toContain('"AccessToken"');
  expect(raw).not.toContain(tokens.access_token);
  expect(raw).not.toContain(tokens.refresh_token);

  // keys list shows the grant.
  const listedKeys = cli(['keys', 'list', '--data-dir', store.dir]);
  expect(listedKeys).toMatch(/grant_\S+\s+OAuth\s+"Test MCP Client"/);

  // Refresh rotates; the old refresh token used again revokes the grant and all its tokens.
  const clientId = (provider.info as { client_id: string }).client_id;
  const refreshed = await form('/oauth/token', {
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: tokens.refresh_token!,
  });
  expect(refreshed.status).toBe(200);
  const next = (await refreshed.json()) as OAuthTokens;
  expect(next.refresh_token).not.toBe(tokens.refresh_token);
  expect((await get('/v1/vaults', next.access_token)).status).toBe(200);
  const reused = await form('/oauth/token', {
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: tokens.refresh_token!,
  });
  expect(reused.status).toBe(400);
  expect(((await reused.json()) as { error: string }).error).toBe('invalid_grant');
  expect((await get('/v1/vaults', next.access_token)).status).toBe(401);
  expect(
    (
      await form('/oauth/token', {
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: next.refresh_token!,
      })
    ).status,
  ).toBe(400);
  expect(cli(['keys', 'list', '--data-dir', store.dir])).toMatch(/"Test MCP Client"[^\n]*REVOKED/);

  // A new grant, ended by the revocation endpoint, then another ended by `keys revoke`.
  const a = await approvedCode(clientId, store.memberKey(one), [one]);
  const t1 = (await (await exchange(clientId, a.code, a.verifier)).json()) as OAuthTokens;
  expect((await get('/v1/vaults', t1.access_token)).status).toBe(200);
  expect((await form('/oauth/revoke', { client_id: clientId, token: t1.access_token })).status).toBe(200);
  expect((await get('/v1/vaults', t1.access_token)).status).toBe(401);
  const b = await approvedCode(clientId, store.memberKey(one), [one]);
  const t2 = (await (await exchange(clientId, b.code, b.verifier)).json()) as OAuthTokens;
  expect((await get('/v1/vaults', t2.access_token)).status).toBe(200);
  const grantId = /(grant_\S+)\s+OAuth\s+"Test MCP Client"[^\n]*$/.exec(
    cli(['keys', 'list', '--data-dir', store.dir]).trim(),
  )![1]!;
  cli(['keys', 'revoke', grantId, '--data-dir', store.dir]);
  expect((await get('/v1/vaults', t2.access_token)).status).toBe(401);
  expect(
    (await form('/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: t2.refresh_token! }))
      .status,
  ).toBe(400);
}, 60_000);

describe('hostile cases: the right OAuth error and nothing granted', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = await register();
  });
  const grantCount = () =>
    (JSON.parse(cli(['keys', 'list', '--json', '--data-dir', store.dir])) as { kind?: string }[]).filter(
      (k) => k.kind === 'oauth_grant',
    ).length;
  const keysListed = () =>
    JSON.parse(cli(['keys', 'list', '--json', '--data-dir', store.dir])) as {
      id: string;
      name: string;
      kind?: string;
    }[];
  const keyIdOf = (name: string) => keysListed().find((k) => k.name === name)!.id;
  /** A fresh member key of one vault, and its id. */
  const memberKeyWithId = (vaultId: string) => {
    const made = JSON.parse(
      cli([
        'keys',
        'create',
        '--vault',
        vaultId,
        '--json',
        '--name',
        `consent ${randomBytes(4).toString('hex')}`,
        '--data-dir',
        store.dir,
      ]),
    ) as { key: string; id?: string; info?: { id: string } };
    return { key: made.key, id: made.id ?? made.info!.id };
  };
  const vaultNames = () =>
    (JSON.parse(cli(['call', 'list_vaults', '--data-dir', store.dir])) as { vaults: { id: string; name: string }[] })
      .vaults;
  const errorOf = (url: string) => new URL(url).searchParams.get('error');

  it('refuses an authorization without PKCE', async () => {
    const { url } = await new Browser().follow(
      authorizeUrl(clientId, { code_challenge_method: undefined }),
      server.url,
    );
    expect(errorOf(url)).toBe('invalid_request');
  });

  it('refuses a wrong verifier and a code used twice', async () => {
    const { code } = await approvedCode(clientId, store.ownerKey, [vaults[0]!]);
    const wrong = await exchange(clientId, code, pkce().verifier);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');
    const { code: code2, verifier: v2 } = await approvedCode(clientId, store.ownerKey, [vaults[0]!]);
    const first = await exchange(clientId, code2, v2);
    expect(first.status).toBe(200);
    const token = ((await first.json()) as OAuthTokens).access_token;
    expect((await get('/v1/vaults', token)).status).toBe(200);
    const again = await exchange(clientId, code2, v2);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
    // A code used twice is a stolen code: what it gave is taken back (RFC 6749 §4.1.2).
    expect((await get('/v1/vaults', token)).status).toBe(401);
  });

  it('refuses a redirect URI not registered, on its own page (never redirecting there)', async () => {
    const { url, res } = await new Browser().follow(
      authorizeUrl(clientId, { redirect_uri: 'https://attacker.example/cb', code_challenge: pkce().challenge }),
      server.url,
    );
    expect(url.startsWith(server.url)).toBe(true);
    expect(res!.status).toBe(400);
    expect(await res!.text()).toContain('redirect_uri');
  });

  it('shows a client name that is HTML as text, on a page that cannot be framed or run script', async () => {
    const hostile = await register({ client_name: '<img src=x onerror=alert(1)><script>alert(2)</script>' });
    const { res } = await new Browser().follow(authorizeUrl(hostile, { code_challenge: pkce().challenge }), server.url);
    const page = await res!.text();
    expect(res!.status).toBe(200);
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(res!.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(res!.headers.get('x-frame-options')).toBe('DENY');
  });

  it('gives manager actions only when a manager key ticked them', async () => {
    const call = (token: string) =>
      fetch(`${server.url}/v1/tools/resolve_conflict`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ vault: vaults[0], conflictId: 'no-such-conflict', status: 'resolved' }),
      });
    const tokenOf = async (manager: boolean) => {
      const { verifier, challenge } = pkce();
      const done = await new Browser().consent(authorizeUrl(clientId, { code_challenge: challenge }), server.url, {
        key: store.ownerKey,
        vaults: [vaults[0]!],
        manager,
      });
      const code = new URL(done.url).searchParams.get('code')!;
      return ((await (await exchange(clientId, code, verifier)).json()) as OAuthTokens).access_token;
    };
    expect((await call(await tokenOf(false))).status).toBe(403); // the owner key is a manager key, but the box was not ticked
    expect((await call(await tokenOf(true))).status).toBe(404); // past the manager check: the conflict is unknown
  });

  it('asks again on every authorization: a browser that approved once approves nothing on its own', async () => {
    const browser = new Browser();
    const first = await browser.consent(authorizeUrl(clientId, { code_challenge: pkce().challenge }), server.url, {
      key: store.ownerKey,
      vaults: [vaults[0]!],
    });
    expect(new URL(first.url).searchParams.get('code')).toBeTruthy();
    const again = await browser.follow(authorizeUrl(clientId, { code_challenge: pkce().challenge }), server.url);
    expect(again.url).toContain('/oauth/consent/');
    expect(await again.res!.text()).toContain('Prove you hold a key of this store');
  });

  it('sends the client back with access_denied when the person denies', async () => {
    const browser = new Browser();
    const opened = await browser.follow(authorizeUrl(clientId, { code_challenge: pkce().challenge }), server.url);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await opened.res!.text())![1]!;
    const { url } = await browser.follow(opened.url, server.url, {
      method: 'POST',
      body: new URLSearchParams({ csrf, decision: 'deny' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(errorOf(url)).toBe('access_denied');
    expect(new URL(url).searchParams.get('iss')).toBe(server.url);
  });

  it('refuses a token for another resource', async () => {
    const { url } = await new Browser().follow(
      authorizeUrl(clientId, { code_challenge: pkce().challenge, resource: 'https://other.example/api' }),
      server.url,
    );
    expect(errorOf(url)).toBe('invalid_target');
  });

  it('refuses a grant wider than the key, and a consent POST without its CSRF token', async () => {
    const [one, other] = vaults as [string, string];
    const grantsBefore = grantCount();
    for (const choice of [
      { key: store.memberKey(one), vaults: [one, other] },
      { key: store.memberKey(one), vaults: [one], manager: true },
      { key: store.ownerKey, vaults: [one], dropCsrf: true },
      { key: 'vt_not-a-key-of-this-store', vaults: [one] },
    ]) {
      const done = await new Browser().consent(
        authorizeUrl(clientId, { code_challenge: pkce().challenge }),
        server.url,
        choice,
      );
      expect(done.url.startsWith(server.url), JSON.stringify(choice)).toBe(true);
      expect([401, 403]).toContain(done.status);
      expect(done.page).toContain('Nothing was granted');
    }
    expect(grantCount()).toBe(grantsBefore);
  });

  it('names no vault before a key is proven, then only the vaults that key reaches; a forged or stale proof grants nothing', async () => {
    const [one, other] = vaults as [string, string];
    const names = vaultNames();
    const browser = new Browser();
    const opened = await browser.follow(authorizeUrl(clientId, { code_challenge: pkce().challenge }), server.url);
    const first = await opened.res!.text();
    expect(names.length).toBeGreaterThan(1);
    for (const v of names) {
      expect(first).not.toContain(v.id);
      expect(first).not.toContain(v.name);
    }
    const csrf = hidden(first, 'csrf')!;
    const post = (fields: Record<string, string>, vault?: string) => {
      const body = new URLSearchParams({ csrf, ...fields });
      if (vault) body.append('vault', vault);
      return browser.request(opened.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      });
    };
    // A wrong key: still nothing of the store.
    const wrong = await post({ key: 'vt_not-a-key-of-this-store', decision: 'continue' });
    expect(wrong.status).toBe(401);
    const wrongPage = await wrong.text();
    for (const v of names) expect(wrongPage).not.toContain(v.id);
    // A member key of one vault: that vault alone, and no manager box.
    const { key, id } = memberKeyWithId(one);
    const chooser = await post({ key, decision: 'continue' });
    expect(chooser.status).toBe(200);
    const chooserPage = await chooser.text();
    expect(chooserPage).toContain(`value="${one}"`);
    expect(chooserPage).not.toContain(other);
    expect(chooserPage).not.toContain('name="manager"');
    expect(chooserPage).not.toContain(key);
    const proof = hidden(chooserPage, 'proof')!;
    expect(hidden(chooserPage, 'key_id')).toBe(id);
    const grantsBefore = grantCount();
    // A proof for another key id, or a made-up one, is refused.
    const owner = keyIdOf('owner');
    for (const forged of [
      { key_id: owner, proof },
      { key_id: id, proof: `${proof.slice(0, -2)}AA` },
    ]) {
      const res = await post({ ...forged, decision: 'approve' }, other);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('Nothing was granted');
    }
    // The key revoked between the two steps: its proof no longer counts.
    cli(['keys', 'revoke', id, '--data-dir', store.dir]);
    const stale = await post({ key_id: id, proof, decision: 'approve' }, one);
    expect(stale.status).toBe(401);
    expect(await stale.text()).toContain('was revoked');
    expect(grantCount()).toBe(grantsBefore);
  });

  it('refuses a client ID metadata document at a private address', async () => {
    const { url, res } = await new Browser().follow(
      authorizeUrl('https://10.0.0.1/client.json', { code_challenge: pkce().challenge }),
      server.url,
    );
    expect(url.startsWith(server.url)).toBe(true);
    expect(res!.status).toBe(400);
    expect(await res!.text()).toMatch(/invalid_client/);
  });

  it('refuses an expired token, one whose key was revoked, and a made-up one', async () => {
    const key = JSON.parse(
      cli([
        'keys',
        'create',
        '--vault',
        vaults[0]!,
        '--json',
        '--name',
        'short-lived approver',
        '--data-dir',
        store.dir,
      ]),
    ) as { key: string; id: string };
    const mint = async () => {
      const { code, verifier } = await approvedCode(clientId, key.key, [vaults[0]!]);
      return ((await (await exchange(clientId, code, verifier)).json()) as OAuthTokens).access_token;
    };
    const expiring = await mint();
    expect((await get('/v1/vaults', expiring)).status).toBe(200);
    // Its hour passed: the record's expiry, set back (the listener reads the same store file).
    const db = new Database(join(store.dir, 'vault-tools.db'));
    db.prepare("UPDATE oauth_records SET expires_at = ? WHERE model = 'AccessToken'").run(Date.now() - 1000);
    db.close();
    const expired = await get('/v1/vaults', expiring);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The grant dies with the key that approved it.
    const token = await mint();
    expect((await get('/v1/vaults', token)).status).toBe(200);
    cli(['keys', 'revoke', key.id, '--data-dir', store.dir]);
    expect((await get('/v1/vaults', token)).status).toBe(401);
    expect((await get('/v1/vaults', 'x'.repeat(43))).status).toBe(401);
    const res = await fetch(`${server.url}/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer nope',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });
});

describe('issue 36: what a client sends is named, bounded and answered once', () => {
  const storeDb = () => new Database(join(store.dir, 'vault-tools.db'));
  const grantRows = () => {
    const db = storeDb();
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM oauth_grants').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const clientExpiry = (clientId: string) => {
    const db = storeDb();
    try {
      const row = db
        .prepare("SELECT expires_at FROM oauth_records WHERE model = 'Client' AND id_hash = ?")
        .get(createHash('sha256').update(clientId).digest('hex')) as { expires_at: number | null } | undefined;
      return row?.expires_at;
    } finally {
      db.close();
    }
  };
  /** Registers a client with the given redirect URI and opens its consent page; the page's HTML. */
  async function consentPageOf(meta: Record<string, unknown>, redirect: string) {
    const res = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: [redirect],
        ...meta,
      }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { client_id: string }).client_id;
    const opened = await new Browser().follow(
      authorizeUrl(id, { redirect_uri: redirect, code_challenge: pkce().challenge }),
      server.url,
    );
    expect(opened.res?.status).toBe(200);
    return opened.res!.text();
  }
  const goesTo = (page: string) => /After you answer, (.*?)<\/p>/.exec(page)?.[1]?.replace(/<[^>]+>/g, '');

  it('names an app-scheme redirect URI whole, a site by its host, and drops bidi controls from what a client says', async () => {
    expect(goesTo(await consentPageOf({ client_name: 'Claude' }, 'myapp://claude.ai/cb'))).toBe(
      'your browser opens myapp://claude.ai/cb (not a web site: whatever app on this device claimed that address).',
    );
    expect(goesTo(await consentPageOf({ client_name: 'App' }, 'com.example.app:/cb'))).toBe(
      'your browser opens com.example.app:/cb (not a web site: whatever app on this device claimed that address).',
    );
    expect(goesTo(await consentPageOf({ client_name: 'Loopback' }, REDIRECT))).toBe(
      'your browser goes back to 127.0.0.1:9.',
    );
    const page = await consentPageOf(
      { client_name: 'Invoice\u202egnp.exe', client_uri: 'https://example.com/\u2066x' },
      REDIRECT,
    );
    expect(page).toContain('Invoicegnp.exe');
    expect(page).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f]/);
  });

  it('keeps a client name out of the terminal: the approval is logged with its control characters shown, not sent', async () => {
    const clientId = await register({
      client_name: 'Evil\r\nkey_fake manager vaults: all\u001b]0;pwned\u0007\u001b[8mhidden',
    });
    await approvedCode(clientId, store.ownerKey, [vaults[0]!]);
    await vi.waitFor(() => expect(server.stderr()).toContain('approved Evil'));
    const line = server
      .stderr()
      .split('\n')
      .find((l) => l.includes('approved Evil'));
    expect(line).toContain('Evil\\u000d\\u000akey_fake manager vaults: all\\u001b]0;pwned\\u0007\\u001b[8mhidden');
    expect(server.stderr()).not.toMatch(/\u001b|^key_fake/m);
  });

  it('takes several resource parameters: one grant for both, and a token', async () => {
    const clientId = await register();
    const both = [`${server.url}/`, `${server.url}/v1/mcp`];
    const { verifier, challenge } = pkce();
    const url = new URL(authorizeUrl(clientId, { code_challenge: challenge }));
    for (const r of both) url.searchParams.append('resource', r);
    const before = grantRows();
    const done = await new Browser().consent(url.href, server.url, { key: store.ownerKey, vaults: [vaults[0]!] });
    const code = new URL(done.url).searchParams.get('code');
    expect(code, done.page.slice(0, 300)).toBeTruthy();
    expect(grantRows()).toBe(before + 1);
    // The token request may name both again.
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code!,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    });
    for (const r of both) body.append('resource', r);
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect((await get('/v1/vaults', ((await res.json()) as OAuthTokens).access_token)).status).toBe(200);
  });

  it('gives scope=openid a token (and an ID token) after one Allow, not another consent page', async () => {
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const before = grantRows();
    const done = await new Browser().consent(
      authorizeUrl(clientId, { code_challenge: challenge, scope: 'openid vaults offline_access' }),
      server.url,
      { key: store.ownerKey, vaults: [vaults[0]!] },
    );
    const code = new URL(done.url).searchParams.get('code');
    expect(code, done.page.slice(0, 300)).toBeTruthy();
    expect(grantRows()).toBe(before + 1);
    const tokens = (await (await exchange(clientId, code!, verifier)).json()) as OAuthTokens & { id_token?: string };
    expect(tokens.id_token).toMatch(/^eyJ/);
    expect((await get('/v1/vaults', tokens.access_token)).status).toBe(200);
  });

  it('takes one answer per consent form: the same form POSTed again grants nothing more', async () => {
    const clientId = await register();
    const browser = new Browser();
    const opened = await browser.follow(authorizeUrl(clientId, { code_challenge: pkce().challenge }), server.url);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await opened.res!.text())![1]!;
    const post = () =>
      browser.request(opened.url, {
        method: 'POST',
        body: new URLSearchParams({ csrf, key: store.ownerKey, vault: vaults[0]!, decision: 'approve' }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      });
    const before = grantRows();
    const [first, second] = await Promise.all([post(), post()]);
    expect([first.status, second.status].sort()).toEqual([303, 409]);
    const refused = first.status === 409 ? first : second;
    expect(await refused.text()).toContain('a form is good for one answer');
    expect(grantRows()).toBe(before + 1);
    expect((await post()).status).toBe(409);
    expect(grantRows()).toBe(before + 1);
  });

  it("serves the library's own pages under the consent page's headers, loading nothing from elsewhere, and has no unused endpoints", async () => {
    const error = await fetch(`${server.url}/oauth/authorize?client_id=nope`);
    const html = await error.text();
    expect(error.status).toBe(400);
    expect(html).toContain('invalid_client');
    expect(html).not.toMatch(/googleapis|@import|<link|<script/);
    for (const res of [error, await fetch(`${server.url}/oauth/logout`)]) {
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    for (const path of ['/oauth/logout', '/oauth/userinfo', '/oauth/par'])
      expect((await fetch(`${server.url}${path}`, { method: 'POST' })).status, path).toBe(404);
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    for (const field of [
      'end_session_endpoint',
      'userinfo_endpoint',
      'pushed_authorization_request_endpoint',
      'dpop_signing_alg_values_supported',
      'introspection_endpoint',
    ])
      expect(as[field], field).toBeUndefined();
  });

  it("refuses a web client's http redirect URI on a non-loopback host (OAuth 2.1), and a name too long", async () => {
    const registerRaw = (meta: Record<string, unknown>) =>
      fetch(`${server.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token_endpoint_auth_method: 'none', ...meta }),
      });
    const web = await registerRaw({ application_type: 'web', redirect_uris: ['http://evil.example/cb'] });
    expect(web.status).toBe(400);
    expect(await web.json()).toMatchObject({
      error: 'invalid_redirect_uri',
      error_description: expect.stringContaining('must be https (http only on a loopback address)'),
    });
    expect((await registerRaw({ redirect_uris: ['https://app.example/cb'] })).status).toBe(201);
    expect((await registerRaw({ redirect_uris: ['http://127.0.0.1:8080/cb'] })).status).toBe(201);
    const long = await registerRaw({ client_name: 'x'.repeat(201), redirect_uris: ['https://app.example/cb'] });
    expect(await long.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('client_name is 201 characters'),
    });
  });

  it('forgets a registered client that never got a grant: it expires in a day, unless a person approves it', async () => {
    const unused = await register();
    const approved = await register();
    const day = 24 * 60 * 60 * 1000;
    for (const id of [unused, approved]) expect(Math.abs(clientExpiry(id)! - (Date.now() + day))).toBeLessThan(60_000);
    await approvedCode(approved, store.ownerKey, [vaults[0]!]);
    expect(clientExpiry(approved)).toBeNull();
    expect(clientExpiry(unused)).not.toBeNull();
    // Its day passed: the client is unknown.
    const db = storeDb();
    db.prepare("UPDATE oauth_records SET expires_at = ? WHERE model = 'Client' AND id_hash = ?").run(
      Date.now() - 1000,
      createHash('sha256').update(unused).digest('hex'),
    );
    db.close();
    const { res } = await new Browser().follow(authorizeUrl(unused, { code_challenge: pkce().challenge }), server.url);
    expect(res!.status).toBe(400);
    expect(await res!.text()).toContain('invalid_client');
  });
});

describe('client ID metadata documents', () => {
  // A metadata document on an https loopback server: its certificate made here, trusted by the listener
  // through NODE_EXTRA_CA_CERTS, and loopback allowed by the test-only switch.
  let tls: { url: string; close(): void; fetched: number };
  let cimdServer: RunningServer;
  beforeAll(async () => {
    const { execFileSync } = await import('node:child_process');
    const { readFileSync } = await import('node:fs');
    const { createServer } = await import('node:https');
    const dir = store.dir;
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(dir, 'tls.key'),
        '-out',
        join(dir, 'tls.crt'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const state = { fetched: 0 };
    const https = createServer(
      { key: readFileSync(join(dir, 'tls.key')), cert: readFileSync(join(dir, 'tls.crt')) },
      (req, res) => {
        state.fetched++;
        const { port } = https.address() as { port: number };
        const id = `https://127.0.0.1:${port}/client.json`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            client_id: id,
            client_name: 'Metadata Document Client',
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
          }),
        );
      },
    );
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    const { port } = https.address() as { port: number };
    tls = {
      url: `https://127.0.0.1:${port}/client.json`,
      close: () => https.close(),
      get fetched() {
        return state.fetched;
      },
    };
    cimdServer = await startServer(store.dir, ['--rate-limit', '0'], {
      NODE_EXTRA_CA_CERTS: join(dir, 'tls.crt'),
      VAULT_TOOLS_TEST_LOOPBACK_CLIENT_METADATA: '1',
    });
  }, 60_000);
  afterAll(async () => {
    await cimdServer?.stop();
    tls?.close();
  });

  it('authorizes a client whose client_id is the https URL of its metadata, fetched once and cached', async () => {
    const { verifier, challenge } = pkce();
    const url = new URL(`${cimdServer.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: tls.url,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'vaults',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const done = await new Browser().consent(url.href, cimdServer.url, { key: store.ownerKey, vaults: [vaults[0]!] });
    const code = new URL(done.url).searchParams.get('code');
    expect(code, done.page.slice(0, 500)).toBeTruthy();
    const res = await fetch(`${cimdServer.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: tls.url,
        code: code!,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
      }),
    });
    expect(res.status).toBe(200);
    const token = ((await res.json()) as OAuthTokens).access_token;
    expect((await fetch(`${cimdServer.url}/v1/vaults`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    expect(cli(['keys', 'list', '--data-dir', store.dir])).toContain('"Metadata Document Client"');
    expect(tls.fetched).toBe(1);
  });

  it('refuses the same loopback document on a listener without the test-only switch', async () => {
    const { url, res } = await new Browser().follow(
      authorizeUrl(tls.url, { code_challenge: pkce().challenge }),
      server.url,
    );
    expect(url.startsWith(server.url)).toBe(true);
    expect(res!.status).toBe(400);
    expect(await res!.text()).toMatch(/invalid_client/);
  });
});

describe('serve options', () => {
  it('--no-oauth answers as before: no metadata, a plain challenge', async () => {
    const plain = await startServer(store.dir, ['--no-oauth']);
    try {
      expect((await fetch(`${plain.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
      expect((await fetch(`${plain.url}/oauth/authorize`)).status).toBe(404);
      expect((await fetch(`${plain.url}/v1/vaults`)).headers.get('www-authenticate')).toBe(
        'Bearer realm="vault-tools"',
      );
    } finally {
      await plain.stop();
    }
  });

  it('--public-url sets the issuer and resource, and its host is accepted', async () => {
    const tunnel = await startServer(store.dir, ['--public-url', 'https://vault.example.test']);
    try {
      const prm = (await (await fetch(`${tunnel.url}/.well-known/oauth-protected-resource`)).json()) as Record<
        string,
        unknown
      >;
      expect(prm).toMatchObject({
        resource: 'https://vault.example.test/',
        authorization_servers: ['https://vault.example.test'],
      });
      const viaTunnel = await http(tunnel.url, {
        path: '/.well-known/oauth-authorization-server',
        headers: { host: 'vault.example.test', 'x-forwarded-proto': 'https' },
      });
      expect(viaTunnel.status).toBe(200);
      expect(viaTunnel.json()).toMatchObject({
        issuer: 'https://vault.example.test',
        token_endpoint: 'https://vault.example.test/oauth/token',
      });
      expect((await fetch(`${tunnel.url}/v1/vaults`)).headers.get('www-authenticate')).toContain(
        'resource_metadata="https://vault.example.test/.well-known/oauth-protected-resource"',
      );
    } finally {
      await tunnel.stop();
    }
    const refused = cliFails([
      'serve',
      '--data-dir',
      store.dir,
      '--http',
      '0',
      '--no-stdio',
      '--public-url',
      'http://vault.example.test',
    ]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('OAuth needs https except on loopback');
  });
});
