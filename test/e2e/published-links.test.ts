/**
 * Every link the listener publishes opens: each URL in the protected-resource metadata (both resources), the
 * authorization server metadata, the API index and the docs page is followed over real HTTP. A page or a
 * document a person or client reads must answer 200; an endpoint meant for POST or for a request with
 * parameters must at least exist (its own 4xx, never 404 or 5xx).
 */
import { describe, expect, it } from 'vitest';
import { demoServer } from '../http-helpers.js';

const running = demoServer();

/** Every string value of a JSON document that is an absolute http(s) URL, with the field that holds it. */
function urlsIn(doc: unknown, field = ''): { field: string; url: string }[] {
  if (typeof doc === 'string') return /^https?:\/\//.test(doc) ? [{ field, url: doc }] : [];
  if (Array.isArray(doc)) return doc.flatMap((x) => urlsIn(x, field));
  if (doc && typeof doc === 'object') return Object.entries(doc).flatMap(([k, v]) => urlsIn(v, k));
  return [];
}

/** Fields whose URL a person or a client opens with a plain GET: they must answer 200. */
const OPENED_BY_GET = new Set(['resource_documentation', 'service_documentation', 'jwks_uri']);
/** Endpoints a client POSTs to (RFC 6749, 7591, 7009): an empty POST gets their own 4xx. */
const POSTED_TO = new Set(['token_endpoint', 'registration_endpoint', 'revocation_endpoint', 'introspection_endpoint']);
/**
 * Identifiers, not pages (RFC 8414's issuer, RFC 9728's resource): a client opens the metadata they name, at the
 * well-known path the RFCs derive from them, and that must answer 200.
 */
const IDENTIFIER: Record<string, (url: URL) => string> = {
  issuer: (u) => `${u.origin}/.well-known/oauth-authorization-server${u.pathname.replace(/\/$/, '')}`,
  authorization_servers: (u) => `${u.origin}/.well-known/oauth-authorization-server${u.pathname.replace(/\/$/, '')}`,
  resource: (u) => `${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/$/, '')}`,
};

async function follow(links: { field: string; url: string }[]): Promise<string[]> {
  const broken: string[] = [];
  for (const { field, url } of links) {
    expect(new URL(url).origin, `${field}: ${url}`).toBe(running.server.url);
    const target = IDENTIFIER[field]?.(new URL(url)) ?? url;
    const r = await fetch(
      target,
      POSTED_TO.has(field) ? { method: 'POST', body: new URLSearchParams() } : { redirect: 'manual' },
    );
    const ok = OPENED_BY_GET.has(field) || IDENTIFIER[field] ? r.status === 200 : r.status !== 404 && r.status < 500;
    if (!ok) broken.push(`${field}: ${target} answered ${r.status}`);
  }
  return broken;
}

describe('the links the listener publishes', () => {
  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/v1/mcp',
    '/.well-known/oauth-authorization-server',
  ])('%s: every URL in it opens', async (path) => {
    const doc = await (await fetch(`${running.server.url}${path}`)).json();
    const links = urlsIn(doc);
    expect(links.length).toBeGreaterThan(path.includes('authorization-server') ? 4 : 1);
    expect(await follow(links)).toEqual([]);
  });

  it('resource_documentation is the API reference page', async () => {
    const prm = (await (await fetch(`${running.server.url}/.well-known/oauth-protected-resource`)).json()) as {
      resource_documentation: string;
    };
    const page = await fetch(prm.resource_documentation);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
  });

  it('the API index: every endpoint path it names exists (templates filled in)', async () => {
    const index = (await (await fetch(`${running.server.url}/v1`)).json()) as { endpoints: Record<string, string> };
    const paths = Object.values(index.endpoints).map((p) =>
      p
        .replace('{tool_name}', 'stats')
        .replace('{vault}', 'northwind-logistics')
        .replace(/\{\w+\}/g, 'x'),
    );
    expect(paths.length).toBeGreaterThan(3);
    const broken: string[] = [];
    for (const p of paths) {
      // With the key the index says to send: a tool call is a POST, a download of id "x" may be a 404 of its own.
      const r = await fetch(`${running.server.url}${p}`, {
        headers: { authorization: `Bearer ${running.store.ownerKey}` },
      });
      if (r.status >= 500 || (r.status === 404 && !p.endsWith('/x'))) broken.push(`${p}: ${r.status}`);
    }
    expect(broken).toEqual([]);
  });

  it('the docs page: every asset it loads answers 200 without a key', async () => {
    const html = await (await fetch(`${running.server.url}/docs`)).text();
    const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
    const init = await (await fetch(`${running.server.url}/docs/init.js`)).text();
    const documents = [...init.matchAll(/url: '([^']+)'/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    expect(documents).toEqual(['/docs/openapi.json']);
    const broken: string[] = [];
    for (const a of [...assets, ...documents]) {
      const r = await fetch(new URL(a, running.server.url));
      if (r.status !== 200) broken.push(`${a}: ${r.status}`);
    }
    expect(broken).toEqual([]);
  });
});
