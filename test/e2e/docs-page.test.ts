/**
 * The API reference page: `GET /docs` needs no key, is served from the package (no CDN), and in a real
 * headless browser (Debian's chromium) renders every tool of the listener's OpenAPI document.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs helper shared with scripts/docs-screenshot.mjs
import { renderedDom } from '../../scripts/chromium.mjs';
import { startServer, type RunningServer } from '../http-helpers.js';
import { demoStore, type DemoStore } from '../helpers.js';
import { tools } from '../../src/catalog/index.js';

let store: DemoStore;
let server: RunningServer;
beforeAll(async () => {
  store = demoStore();
  server = await startServer(store.dir);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  store?.cleanup();
});

it('serves the page and its assets without a key, locked to its own origin', async () => {
  const page = await fetch(`${server.url}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  // Not frameable, like every page of the listener (issue 36).
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  const html = await page.text();
  expect(html).not.toMatch(/https?:\/\//); // nothing from a CDN
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js', 'openapi.json']) {
    expect((await fetch(`${server.url}/docs/${asset}`)).status, asset).toBe(200);
  }
  const doc = (await (await fetch(`${server.url}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(doc.paths)).toContain('/v1/tools/stats');
  const missing = await fetch(`${server.url}/docs/..%2F..%2Fpackage.json`);
  expect(missing.status).toBe(404);
  // The API itself still wants a key.
  expect((await fetch(`${server.url}/v1/openapi.json`)).status).toBe(401);
});

it('renders every tool in headless chromium', () => {
  const dom = renderedDom(`${server.url}/docs`) as string;
  expect(dom).toContain('Vault Knowledge and Actions Service');
  for (const tool of tools) expect(dom, tool.name).toContain(`/v1/tools/${tool.name}`);
}, 120_000);
