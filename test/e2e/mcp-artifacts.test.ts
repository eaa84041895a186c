/**
 * Results that show themselves: over a real stdio pipe (and over HTTP), render_chart answers with the image
 * itself and a resource_link, the exports with a resource_link, and every link reads back the file's bytes
 * under the tools' access rules (a key that cannot reach the vault cannot read it).
 */
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, demoStore, fixture, type DemoStore } from '../helpers.js';
import { startServer, type RunningServer } from '../http-helpers.js';

type Data = Record<string, any>;
type Block = { type: string; [k: string]: any };

const NW = 'northwind-logistics';
const MH = 'meridian-health';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

let store: DemoStore;
let owner: Client;

const stdioClient = (key: string) => connectStdio(store, key);

/** A successful call: its structured data (which the first, text, block repeats) and its content blocks. */
async function call(client: Client, name: string, args: Data): Promise<{ data: Data; blocks: Block[] }> {
  const result = await client.callTool({ name, arguments: args });
  const blocks = result.content as Block[];
  expect(result.isError, blocks[0]?.text).toBeFalsy();
  expect(blocks[0]!.type).toBe('text');
  expect(JSON.parse(blocks[0]!.text)).toEqual(result.structuredContent);
  return { data: result.structuredContent as Data, blocks };
}

/** The PNG's size from its IHDR chunk, after checking the signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The bytes resources/read returns for `uri` (a blob, or text as UTF-8). */
async function readBytes(client: Client, uri: string): Promise<Buffer> {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  const c = contents[0] as { uri: string; blob?: string; text?: string };
  expect(c.uri).toBe(uri);
  return c.blob !== undefined ? Buffer.from(c.blob, 'base64') : Buffer.from(c.text!, 'utf8');
}

/** The one resource_link of a result, checked against the tool's own answer and the file on disk. */
function linkOf(blocks: Block[], data: Data, mimeType: string): { link: Block; file: Buffer } {
  const links = blocks.filter((b) => b.type === 'resource_link');
  expect(links).toHaveLength(1);
  const link = links[0]!;
  const file = readFileSync(fileURLToPath(data.url)); // over stdio, without a listener, `url` is the file on disk
  expect(link).toMatchObject({
    uri: `vault-tools://vaults/${NW}/artifacts/${data.artifactId}`,
    name: data.fileName,
    mimeType,
    size: file.length,
  });
  return { link, file };
}

const CHART = {
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: {
    values: [
      { k: 'Leeds', v: 12 },
      { k: 'Bristol', v: 7 },
    ],
  },
  mark: 'bar',
  encoding: { x: { field: 'k', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } },
};

beforeAll(async () => {
  store = demoStore();
  owner = await stdioClient(store.ownerKey);
});

afterAll(async () => {
  await owner?.close();
  store?.cleanup();
});

describe('render_chart over stdio', () => {
  it('answers with the image itself and a resource_link that reads back the PNG file', async () => {
    const { data, blocks } = await call(owner, 'render_chart', {
      vault: NW,
      title: 'Open findings by site',
      vega_lite_spec: CHART,
    });
    expect(blocks.map((b) => b.type)).toEqual(['text', 'image', 'resource_link']);
    const { link, file } = linkOf(blocks, data, 'image/png');
    expect(pngSize(file)).toEqual({ width: data.width, height: data.height });
    expect({ width: data.width, height: data.height, bytes: data.bytes }).toEqual({
      width: 1600,
      height: 900,
      bytes: file.length,
    });

    // A slide chart is within the inline limits, so the image block is the file itself.
    const image = blocks[1]!;
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').equals(file)).toBe(true);
    expect((await readBytes(owner, link.uri)).equals(file)).toBe(true);
  });

  it('shows a smaller rendition of a chart larger than 1600 px, and the link still reads the full file', async () => {
    const aisles = Array.from({ length: 60 }, (_, i) => ({ aisle: `Aisle ${i + 1}`, n: (i * 37) % 23 }));
    const spec = {
      ...CHART,
      data: { values: aisles },
      encoding: { x: { field: 'aisle', type: 'nominal' }, y: { field: 'n', type: 'quantitative' } },
    };
    const { data, blocks } = await call(owner, 'render_chart', {
      vault: NW,
      title: 'Discrepancies by aisle',
      vega_lite_spec: spec,
    });
    const { link, file } = linkOf(blocks, data, 'image/png');
    expect(data.height).toBeGreaterThan(1600); // 60 rows: taller than a slide
    const shown = Buffer.from(blocks.find((b) => b.type === 'image')!.data, 'base64');
    const size = pngSize(shown);
    expect(Math.max(size.width, size.height)).toBe(1600);
    expect(size.width / size.height).toBeCloseTo(data.width / data.height, 2);
    expect(shown.length).toBeLessThan(1024 * 1024);
    expect((await readBytes(owner, link.uri)).equals(file)).toBe(true);
  });

  it('draws the canvas the size option asks for', async () => {
    const square = await call(owner, 'render_chart', {
      vault: NW,
      title: 'Square',
      vega_lite_spec: CHART,
      size: 'square',
    });
    const portrait = await call(owner, 'render_chart', {
      vault: NW,
      title: 'Portrait',
      vega_lite_spec: CHART,
      size: 'portrait',
    });
    expect([square.data.width, square.data.height]).toEqual([900, 900]);
    expect([portrait.data.width, portrait.data.height]).toEqual([900, 1200]);
    expect(pngSize(Buffer.from(portrait.blocks[1]!.data, 'base64'))).toEqual({ width: 900, height: 1200 });
  });

  it('refuses empty data, naming vega_lite_spec.data.values', async () => {
    const result = await owner.callTool({
      name: 'render_chart',
      arguments: { vault: NW, title: 'Nothing', vega_lite_spec: { ...CHART, data: { values: [] } } },
    });
    expect(result.isError).toBe(true);
    const { error } = JSON.parse((result.content as Block[])[0]!.text);
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toMatch(/^`vega_lite_spec\.data\.values`: no rows/);
  });
});

describe('exports over stdio', () => {
  it.each([
    ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['csv', 'text/csv'],
    ['pdf', 'application/pdf'],
  ])('export_report %s answers with a resource_link that reads back the file', async (format, mimeType) => {
    const { data, blocks } = await call(owner, 'export_report', { vault: NW, dataset: 'conflicts', format });
    expect(blocks.map((b) => b.type)).toEqual(['text', 'resource_link']);
    const { link, file } = linkOf(blocks, data, mimeType);
    expect(link.size).toBe(data.sizeBytes);
    expect((await readBytes(owner, link.uri)).equals(file)).toBe(true);
  });

  it('export_workbook answers with a resource_link that reads back the workbook', async () => {
    const sheets = [
      {
        name: 'KPIs',
        columns: [
          { header: 'KPI', key: 'kpi' },
          { header: 'Value', key: 'value' },
        ],
        rows: [{ kpi: 'Dock on-time', value: 0.72 }],
      },
    ];
    const { data, blocks } = await call(owner, 'export_workbook', { vault: NW, title: 'Baseline KPIs', sheets });
    expect(blocks.map((b) => b.type)).toEqual(['text', 'resource_link']);
    const { link, file } = linkOf(blocks, data, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(file.subarray(0, 2).toString('latin1')).toBe('PK'); // a zip, as an xlsx is
    expect((await readBytes(owner, link.uri)).equals(file)).toBe(true);
  });
});

describe('who may read a link', () => {
  it("a member key of the vault reads an artifact; another vault's member key gets the missing-vault answer", async () => {
    const { data, blocks } = await call(owner, 'export_report', { vault: NW, format: 'csv' });
    const { link, file } = linkOf(blocks, data, 'text/csv');
    const member = await stdioClient(store.memberKey(NW));
    const stranger = await stdioClient(store.memberKey(MH));
    try {
      expect((await readBytes(member, link.uri)).equals(file)).toBe(true);
      const refused = await stranger.readResource({ uri: link.uri }).then(
        () => undefined,
        (e: Error) => e,
      );
      const missing = await stranger.readResource({ uri: 'vault-tools://vaults/zz-missing/artifacts/x' }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(refused?.message).toMatch(/no vault "northwind-logistics" is available to this key/);
      expect(refused?.message.replace(NW, 'X')).toBe(missing?.message.replace('zz-missing', 'X'));
    } finally {
      await member.close();
      await stranger.close();
    }
  });

  it("reads a public file's download URI over stdio, where list_files and get_file hand it out", async () => {
    const mh = fixture('meridian');
    const pub = mh.files.find((f) => f.visibility === 'public')!;
    const { data } = await call(owner, 'get_file', { vault: MH, fileId: pub.id });
    expect(data.downloadUrl).toBe(`vault-tools://vaults/${MH}/files/${pub.id}`);
    const { contents } = await owner.readResource({ uri: data.downloadUrl });
    expect(contents[0]).toMatchObject({ mimeType: 'text/plain', text: pub.content });
    const internal = mh.files.find((f) => f.visibility === 'internal')!;
    await expect(owner.readResource({ uri: `vault-tools://vaults/${MH}/files/${internal.id}` })).rejects.toThrow(
      /No public file/,
    );
  });

  it('says once what is missing: no "MCP error -32002:" doubled into the message, the URI and code in the data', async () => {
    const uri = `vault-tools://vaults/${NW}/artifacts/art_missing`;
    const error = await owner.readResource({ uri }).then(
      () => undefined,
      (err: Error & { code?: number; data?: any }) => err,
    );
    expect(error?.message).toBe('No artifact "art_missing" in vault "Northwind Logistics".');
    expect(error?.code).toBe(-32602); // resource not found, as the 2026-07-28 revision has it (and the SDK in every era)
    expect(error?.data).toMatchObject({ uri, code: 'not_found' });
  });
});

describe('over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(store.dir, ['--rate-limit', '0']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const httpClient = async (key: string) => {
    const client = new Client(
      { name: 'artifacts-http-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/v1/mcp', server.url), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    return client;
  };

  it('render_chart gives the same blocks, and the link reads back the file for keys that reach the vault only', async () => {
    const client = await httpClient(store.ownerKey);
    const stranger = await httpClient(store.memberKey(MH));
    try {
      const result = await client.callTool({
        name: 'render_chart',
        arguments: { vault: NW, title: 'Over HTTP', vega_lite_spec: CHART },
      });
      const blocks = result.content as Block[];
      expect(blocks.map((b) => b.type)).toEqual(['text', 'image', 'resource_link']);
      const data = result.structuredContent as Data;
      expect(new URL(data.url).origin).toBe(server.url); // with the listener, `url` is its download route
      const download = Buffer.from(
        await (await fetch(data.url, { headers: { authorization: `Bearer ${store.ownerKey}` } })).arrayBuffer(),
      );
      expect(Buffer.from(blocks[1]!.data, 'base64').equals(download)).toBe(true);
      expect((await readBytes(client, blocks[2]!.uri)).equals(download)).toBe(true);
      await expect(stranger.readResource({ uri: blocks[2]!.uri })).rejects.toThrow(/no vault/);
      // The REST download route keeps the same rule, and the chart is listed among the vault's resources.
      const refusedDownload = await fetch(data.url, { headers: { authorization: `Bearer ${store.memberKey(MH)}` } });
      expect(refusedDownload.status).toBe(404);
      const { resources } = await client.listResources();
      expect(resources.find((r) => r.uri === blocks[2]!.uri)).toMatchObject({
        mimeType: 'image/png',
        name: data.fileName,
      });
    } finally {
      await client.close();
      await stranger.close();
    }
  });
});
