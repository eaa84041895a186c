/**
 * MCP Apps over the wire: the tools with a view name it in `_meta.ui.resourceUri` (in both eras and to a v1
 * client), each view reads back as a self-contained `text/html;profile=mcp-app` page within its size budget, and
 * the tools' results are what they were before the views: the REST answer's JSON as text, nothing added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_VIEWS } from '../../src/catalog/define.js';
import { connectMcp, type Era, type McpTestClient } from '../mcp-clients.js';
import { callTool as callRest, demoServer } from '../http-helpers.js';

const NW = 'northwind-logistics';
const VIEWS: Record<string, string[]> = {
  'ui://vault-tools/chart.html': ['render_chart'],
  'ui://vault-tools/findings.html': ['list_findings', 'search_knowledge'],
  'ui://vault-tools/graph.html': ['get_entity', 'expand_graph'],
  'ui://vault-tools/conflicts.html': ['list_conflicts'],
  'ui://vault-tools/transcript.html': ['search_transcripts', 'get_transcript'],
  'ui://vault-tools/quotes.html': ['check_quotes'],
};
const MAX_VIEW_BYTES = 1.5 * 1024 * 1024;

const running = demoServer();

it('builds exactly the views the catalog names', async () => {
  const script = '../../scripts/build-views.mjs'; // plain JavaScript, no types to check
  const { VIEWS: built } = (await import(script)) as { VIEWS: string[] };
  expect([...built].sort()).toEqual([...TOOL_VIEWS].sort());
});

describe.each(['modern', 'legacy', 'v1'] as Era[])('%s client', (era) => {
  let client: McpTestClient;
  beforeAll(async () => {
    client = await connectMcp({ era, wire: 'http', url: running.server.url, key: running.store.ownerKey });
  });
  afterAll(() => client?.close());

  it('names each view on its tools, and on no other tool', async () => {
    const { tools } = await client.listTools();
    const named = Object.fromEntries(tools.filter((t) => t._meta).map((t) => [t.name, t._meta]));
    const expected = Object.fromEntries(
      Object.entries(VIEWS).flatMap(([uri, names]) =>
        names.map((n) => [n, { ui: { resourceUri: uri }, 'ui/resourceUri': uri }]),
      ),
    );
    expect(named).toEqual(expected);
  });

  it('serves each view as one self-contained page within 1.5 MB', async () => {
    for (const uri of Object.keys(VIEWS)) {
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [page] = contents;
      expect(page.mimeType, uri).toBe('text/html;profile=mcp-app');
      expect(page._meta.ui.csp, uri).toEqual({ connectDomains: [], resourceDomains: [] });
      const html = page.text as string;
      expect(Buffer.byteLength(html), uri).toBeLessThanOrEqual(MAX_VIEW_BYTES);
      expect(html).toMatch(/^<!doctype html>/);
      // Nothing loaded from elsewhere: no script, style sheet, font or image by URL.
      // (CSS's url() is lower case; the JS's `new URL("https://…")` constants load nothing.)
      const loads = /<script[^>]*\ssrc=|<link\b|@import|url\(\s*['"]?(https?:)?\/\//.exec(html);
      expect(loads && html.slice(loads.index - 60, loads.index + 60), uri).toBeNull();
      expect(html.match(/<script>/g), uri).toHaveLength(1);
    }
  });
});

it('answers the tools with views exactly as before: the REST data as text, no _meta, no extra block', async () => {
  const client = await connectMcp({
    era: 'modern',
    wire: 'http',
    url: running.server.url,
    key: running.store.ownerKey,
  });
  try {
    const calls: [string, Record<string, unknown>][] = [
      ['list_findings', { vault: NW, limit: 5 }],
      ['search_knowledge', { vault: NW, query: 'WMS' }],
      ['get_entity', { vault: NW, entityId: 'sys-logitrack', includeEvidence: true }],
      ['expand_graph', { vault: NW, entityId: 'sys-logitrack' }],
      ['list_conflicts', { vault: NW }],
      ['search_transcripts', { vault: NW, query: 'dock congestion at Leeds' }],
      ['get_transcript', { vault: NW, meetingId: 'nwl-m01-kickoff', limit: 3 }],
      [
        'check_quotes',
        { vault: NW, text: '“Ninety minutes gate to gate. In the afternoons we hit it.” — Lewis Harper' },
      ],
    ];
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      const rest = (await callRest(running.server.url, name, args, running.store.ownerKey)).json() as { data: unknown };
      // (The 2026-07-28 era's own `_meta` is the SDK's, as before; nothing of the views is in it.)
      const { _meta, ...answer } = result;
      expect(JSON.stringify(_meta ?? {}), name).not.toMatch(/ui/);
      expect(Object.keys(answer).sort(), name).toEqual(['content', 'structuredContent']);
      expect(answer.structuredContent, name).toEqual(rest.data);
      expect(result.content, name).toEqual([{ type: 'text', text: JSON.stringify(rest.data) }]);
    }
  } finally {
    await client.close();
  }
});
