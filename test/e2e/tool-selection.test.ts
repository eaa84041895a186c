/** --read-only, --tools and --exclude-tools shape MCP tools/list, GET /v1/tools, OpenAPI and what may be called. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { selectTools } from '../../src/catalog/select.js';
import { cliFails, demoStore, type DemoStore } from '../helpers.js';
import { callTool, http, startServer } from '../http-helpers.js';

let store: DemoStore;
beforeAll(() => {
  store = demoStore();
});
afterAll(() => store?.cleanup());

describe('tool selection', () => {
  it('--read-only offers no action tool on REST, OpenAPI or MCP over HTTP, and refuses their calls', async () => {
    const server = await startServer(store.dir, ['--read-only']);
    try {
      const auth = { authorization: `Bearer ${store.ownerKey}` };
      const listed = (await http(server.url, { path: '/v1/tools', headers: auth }))
        .json()
        .data.tools.map((t: { name: string }) => t.name);
      expect(listed).toEqual(tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name));
      expect(listed).not.toContain('render_chart');
      const doc = (await http(server.url, { path: '/v1/openapi.json', headers: auth })).json();
      expect(doc.paths['/v1/tools/render_chart']).toBeUndefined();
      expect(doc.paths['/v1/tools/stats']).toBeDefined();
      const refused = await callTool(
        server.url,
        'resolve_conflict',
        { vault: 'northwind-logistics', conflictId: 'x', status: 'open' },
        store.ownerKey,
      );
      expect(refused.status).toBe(404);
      expect(refused.json().error.code).toBe('tool_not_found');
      expect((await http(server.url, { path: '/v1/vaults', headers: auth })).status).toBe(200);
      const { Client } = await import('@modelcontextprotocol/client');
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
      const client = new Client({ name: 'selection-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/v1/mcp', server.url), { requestInit: { headers: auth } }),
      );
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(listed);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  it('--tools and --exclude-tools pick by name, and GET /v1/vaults works whatever is picked', async () => {
    const server = await startServer(store.dir, ['--tools', 'stats,get_brief', '--tools', 'list_meetings']);
    try {
      const auth = { authorization: `Bearer ${store.ownerKey}` };
      const listed = (await http(server.url, { path: '/v1/tools', headers: auth }))
        .json()
        .data.tools.map((t: { name: string }) => t.name);
      expect(listed).toEqual(['stats', 'get_brief', 'list_meetings']);
      expect((await http(server.url, { path: '/v1/vaults', headers: auth })).json().data.vaults).toHaveLength(2);
    } finally {
      await server.stop();
    }
    expect(selectTools({ exclude: ['send_email,render_chart'] }).map((t) => t.name)).not.toContain('send_email');
    expect(selectTools({ exclude: ['send_email'] }).length).toBe(tools.length - 1);
  });

  it('names an unknown tool and how to list the real ones', () => {
    const r = cliFails(['serve', '--data-dir', store.dir, '--http', '0', '--no-stdio', '--tools', 'stats,delete_all']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `vault-tools: --tools / --exclude-tools: no tool named delete_all; \`vault-tools tools\` lists all ${tools.length}\n`,
    );
  });
});
