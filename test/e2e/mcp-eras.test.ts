/**
 * Both protocol eras on both transports, with clients we did not write: the v2 SDK client pinned to 2026-07-28,
 * the v2 client in legacy (2025) mode, and the v1 SDK client that clients deployed today run, each over a real
 * stdio pipe and over POST /v1/mcp of a real `serve --http`. Each lists the tools and calls every one of them;
 * completions offer only the key's vaults; a member key is not shown manager-only tools; a call without `vault`
 * asks the person where the connection can carry the question, and fails with the clear error where it cannot.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { demoStore, type DemoStore } from '../helpers.js';
import { startServer, type RunningServer } from '../http-helpers.js';
import { connectMcp, ERAS, type ConnectOptions, type Era, type McpTestClient, type Wire } from '../mcp-clients.js';
import { sampleArgs } from '../sample-args.js';

const NW = 'northwind-logistics';
const MH = 'meridian-health';
const BRIEF_TEMPLATE = 'vault-tools://vaults/{vault}/briefs/{kind}';
const ARTIFACT_TEMPLATE = 'vault-tools://vaults/{vault}/artifacts/{artifactId}';

let store: DemoStore;
let server: RunningServer;
beforeAll(async () => {
  store = demoStore();
  server = await startServer(store.dir, ['--rate-limit', '0']);
});
afterAll(async () => {
  await server?.stop();
  store?.cleanup();
});

const connect = (era: Era, wire: Wire, key: string, extra: Partial<ConnectOptions> = {}) =>
  connectMcp({ era, wire, key, dataDir: store.dir, url: server.url, ...extra });

async function withClient<T>(client: Promise<McpTestClient>, use: (c: McpTestClient) => Promise<T>): Promise<T> {
  const c = await client;
  try {
    return await use(c);
  } finally {
    await c.close();
  }
}

const errorOf = (r: { isError?: boolean; content: { text: string }[] }) =>
  r.isError ? JSON.parse(r.content[0]!.text).error : undefined;

describe.each(['stdio', 'http'] as const)('over %s', (wire) => {
  describe.each(ERAS)('%s client', (era) => {
    it('speaks its era, lists every tool for the manager key and calls each one', { timeout: 120_000 }, async () => {
      await withClient(connect(era, wire, store.ownerKey), async (client) => {
        if (era === 'modern') expect(client.protocolVersion()).toBe('2026-07-28');
        else expect(client.protocolVersion()).not.toBe('2026-07-28');
        const { tools: listed } = await client.listTools();
        expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
        for (const tool of tools) {
          const result = await client.callTool({ name: tool.name, arguments: sampleArgs(tool.name, NW) });
          expect(errorOf(result), tool.name).toBeUndefined();
          expect(result.structuredContent, tool.name).toBeTypeOf('object');
          expect(JSON.parse(result.content[0].text), tool.name).toEqual(result.structuredContent);
        }
      });
    });

    it("offers a member key only its tools and its vault's completions", async () => {
      await withClient(connect(era, wire, store.memberKey(NW)), async (client) => {
        const { tools: listed } = await client.listTools();
        expect(listed.map((t) => t.name)).toEqual(tools.filter((t) => t.access === 'member').map((t) => t.name));
        const everything = await client.complete({
          ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
          argument: { name: 'vault', value: '' },
        });
        expect(everything.completion.values).toEqual([NW, 'Northwind Logistics']);
        const other = await client.complete({
          ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
          argument: { name: 'vault', value: 'mer' },
        });
        expect(other.completion).toMatchObject({ values: [], total: 0, hasMore: false });
      });
    });
  });
});

describe('completion/complete', () => {
  it("gives the manager key's vaults by prefix, brief kinds, and a vault's artifact ids", async () => {
    await withClient(connect('modern', 'stdio', store.ownerKey), async (client) => {
      const byId = await client.complete({
        ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
        argument: { name: 'vault', value: 'me' },
      });
      expect(byId.completion.values).toEqual([MH, 'Meridian Health Group']);
      const byName = await client.complete({
        ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
        argument: { name: 'vault', value: 'northwind l' },
      });
      expect(byName.completion.values).toEqual(['Northwind Logistics']);
      const kinds = await client.complete({
        ref: { type: 'ref/resource', uri: BRIEF_TEMPLATE },
        argument: { name: 'kind', value: 'week' },
        context: { arguments: { vault: NW } },
      });
      expect(kinds.completion.values).toEqual(['weekly-plan', 'weekly-digest']);
      const chart = await client.callTool({ name: 'render_chart', arguments: sampleArgs('render_chart', NW) });
      const artifactId = chart.structuredContent.artifactId as string;
      const ids = await client.complete({
        ref: { type: 'ref/resource', uri: ARTIFACT_TEMPLATE },
        argument: { name: 'artifactId', value: artifactId.slice(0, 6) },
        context: { arguments: { vault: NW } },
      });
      expect(ids.completion.values).toContain(artifactId);
      const prompt = await client.complete({
        ref: { type: 'ref/prompt', name: 'orient' },
        argument: { name: 'conversation', value: 'x' },
      });
      expect(prompt.completion.values).toEqual([]);
      await expect(
        client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
      ).rejects.toThrow(/Unknown prompt "nope"/);
    });
  });

  it('tells two exports of the same findings apart where they are listed and completed (title, kind, time)', async () => {
    await withClient(connect('modern', 'stdio', store.ownerKey), async (client) => {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await client.callTool({
          name: 'export_report',
          arguments: { vault: NW, dataset: 'findings', format: 'pdf' },
        });
        ids.push(r.structuredContent.artifactId as string);
        const second = Math.floor(Date.now() / 1000);
        await vi.waitFor(() => expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(second), {
          timeout: 5000,
          interval: 20,
        }); // another second on the clock
      }
      const { resources } = await client.listResources();
      const listed = ids.map(
        (id) => resources.find((r: { uri: string }) => r.uri.endsWith(id)) as { uri: string; title: string },
      );
      for (const r of listed)
        expect(r.title).toMatch(/: PDF report, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(Northwind Logistics\)$/);
      expect(listed[0]!.title).not.toBe(listed[1]!.title);
      for (const typed of ['findings', 'PDF', 'rep']) {
        const found = await client.complete({
          ref: { type: 'ref/resource', uri: ARTIFACT_TEMPLATE },
          argument: { name: 'artifactId', value: typed },
          context: { arguments: { vault: NW } },
        });
        expect(found.completion.values.slice(0, 2), typed).toEqual([...ids].reverse()); // newest first
      }
    });
  });

  it('never completes an artifact id of a vault the key does not reach', async () => {
    const chartId = await withClient(connect('modern', 'stdio', store.ownerKey), async (client) => {
      const chart = await client.callTool({ name: 'render_chart', arguments: sampleArgs('render_chart', MH) });
      return chart.structuredContent.artifactId as string;
    });
    await withClient(connect('legacy', 'http', store.memberKey(NW)), async (client) => {
      const ids = await client.complete({
        ref: { type: 'ref/resource', uri: ARTIFACT_TEMPLATE },
        argument: { name: 'artifactId', value: chartId.slice(0, 4) },
        context: { arguments: { vault: MH } },
      });
      expect(ids.completion.values).toEqual([]);
    });
  });
});

describe('a call without `vault` on a key that reaches several', () => {
  const asked: { message: string; choices: { const: string; title: string }[] }[] = [];
  const pickNorthwind = (params: any) => {
    asked.push({ message: params.message, choices: params.requestedSchema.properties.vault.oneOf });
    return { action: 'accept' as const, content: { vault: NW } };
  };

  const askingCases: [Era, Wire][] = [
    ['modern', 'stdio'],
    ['modern', 'http'],
    ['legacy', 'stdio'],
    ['v1', 'stdio'],
  ];
  it.each(askingCases)('asks the person (%s client over %s), then answers for the chosen vault', async (era, wire) => {
    asked.length = 0;
    await withClient(connect(era, wire, store.ownerKey, { onElicit: pickNorthwind }), async (client) => {
      const result = await client.callTool({ name: 'stats', arguments: {} });
      expect(errorOf(result)).toBeUndefined();
      expect(result.structuredContent.vault.id).toBe(NW);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain('stats');
      expect(asked[0]!.choices).toEqual([
        { const: MH, title: 'Meridian Health Group' },
        { const: NW, title: 'Northwind Logistics' },
      ]);
      // The answer was for that call only: the next call is asked again.
      await client.callTool({ name: 'list_milestones', arguments: {} });
      expect(asked).toHaveLength(2);
    });
  });

  it('keeps the clear error when the person declines', async () => {
    await withClient(
      connect('modern', 'stdio', store.ownerKey, { onElicit: () => ({ action: 'decline' }) }),
      async (client) => {
        const error = errorOf(await client.callTool({ name: 'stats', arguments: {} }));
        expect(error.code).toBe('vault_required');
        expect(error.message).toMatch(/declined/);
      },
    );
  });

  it('never takes an answer outside the key: a vault it does not reach is not found', async () => {
    const key = JSON.parse(
      (await import('../helpers.js')).cli([
        'keys',
        'create',
        '--vault',
        NW,
        '--vault',
        MH,
        '--json',
        '--name',
        'two vaults',
        '--data-dir',
        store.dir,
      ]),
    ).key as string;
    await withClient(
      connect('modern', 'http', key, {
        onElicit: () => ({ action: 'accept', content: { vault: 'somebody-elses-vault' } }),
      }),
      async (client) => {
        expect(errorOf(await client.callTool({ name: 'stats', arguments: {} })).code).toBe('vault_not_found');
      },
    );
  });

  it.each([
    ['modern', 'stdio'],
    ['modern', 'http'],
    ['legacy', 'stdio'],
    ['legacy', 'http'],
    ['v1', 'http'],
  ] as [Era, Wire][])('without elicitation (%s over %s) gets the error that names the vaults', async (era, wire) => {
    await withClient(connect(era, wire, store.ownerKey), async (client) => {
      const error = errorOf(await client.callTool({ name: 'stats', arguments: {} }));
      expect(error.code).toBe('vault_required');
      expect(error.message).toContain(NW);
      expect(error.message).toContain(MH);
    });
  });

  it('is not asked over stateless 2025 HTTP, which has no way to carry the question', async () => {
    await withClient(connect('legacy', 'http', store.ownerKey, { onElicit: pickNorthwind }), async (client) => {
      asked.length = 0;
      expect(errorOf(await client.callTool({ name: 'stats', arguments: {} })).code).toBe('vault_required');
      expect(asked).toHaveLength(0);
    });
  });
});
