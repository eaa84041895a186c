/**
 * Hostile chart specs against the built server over a real stdio pipe (MCP SDK client): a memory bomb, row
 * multipliers, links and a renderer that dies mid-chart each get a clear invalid_arguments answer, and the SAME
 * server process stays up and renders the next chart.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIN, demoStore, type DemoStore } from '../helpers.js';

type Data = Record<string, any>;

const NW = 'northwind-logistics';
let store: DemoStore;
let transport: StdioClientTransport;
let client: Client;
let serverPid: number;

beforeAll(async () => {
  store = demoStore();
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--data-dir', store.dir, '--key', store.ownerKey],
    env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn', VAULT_TOOLS_INDEX: 'off' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'vault-tools-test', version: '1.0.0' });
  await client.connect(transport);
  serverPid = transport.pid!;
});

afterAll(async () => {
  await client?.close();
  store?.cleanup();
});

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function chart(
  spec: object,
): Promise<{ data: Data; error?: undefined } | { data?: undefined; error: { code: string; message: string } }> {
  const result = await client.callTool(
    { name: 'render_chart', arguments: { vault: NW, title: 'Hostile', vega_lite_spec: spec } },
    { timeout: 60_000 },
  );
  const text = (result.content as { type: string; text: string }[])[0]!.text;
  return result.isError ? { error: JSON.parse(text).error } : { data: result.structuredContent as Data };
}

async function refused(spec: object): Promise<string> {
  const r = await chart(spec);
  expect(r.error, JSON.stringify(r.data)).toBeDefined();
  expect(r.error!.code).toBe('invalid_arguments');
  return r.error!.message;
}

/** Renders a small bar chart and checks the PNG it stored. */
async function rendersNormally(): Promise<void> {
  const r = await chart({
    data: {
      values: [
        { client: 'Northwind', findings: 4 },
        { client: 'Meridian', findings: 7 },
      ],
    },
    mark: 'bar',
    encoding: { y: { field: 'client', type: 'nominal', sort: '-x' }, x: { field: 'findings', type: 'quantitative' } },
  });
  expect(r.error).toBeUndefined();
  expect(r.data).toMatchObject({ mimeType: 'image/png' });
  const png = readFileSync(fileURLToPath(r.data!.url as string));
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(png.length).toBe(r.data!.bytes);
}

/** The renderer process the server started: its child whose command line sets the renderer's heap. */
/** CPU time a process has used, in clock ticks (user + system, /proc/<pid>/stat fields 14 and 15). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function rendererPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === serverPid && cmdline.includes('--max-old-space-size')) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

const TICK = { mark: 'tick', encoding: { x: { field: 'a', type: 'quantitative' } } };

describe('render_chart with hostile specs, on one server process', () => {
  it('refuses the memory bomb of issue 15 with a clear error, then renders a normal chart', async () => {
    const message = await refused({
      data: { values: [{ a: 1 }] },
      transform: [{ calculate: 'sequence(0,300000000)', as: 's' }],
      ...TICK,
    });
    expect(message).toMatch(/vega_lite_spec\.transform\[0\]\.calculate/);
    expect(message).toMatch(
      /sequence\(0,300000000\) would make 300,000,000 values; a chart may generate at most 1,000,000/,
    );
    await rendersNormally();
    expect(isAlive(serverPid)).toBe(true);
  });

  it('stops generators whose size only evaluation tells, in the renderer, and keeps serving', async () => {
    // Bounds computed by the expression: not visible in the spec, stopped before the array is allocated.
    let message = await refused({
      data: { values: [{ a: 1 }] },
      transform: [{ calculate: 'sequence(0, 3 * pow(10, 8))', as: 's' }],
      ...TICK,
    });
    expect(message).toMatch(/sequence\(\) would make 300,000,000 values/);
    // A fold that multiplies 50,000 rows by 30 fields.
    message = await refused({
      data: { sequence: { start: 0, stop: 50_000, as: 'a' } },
      transform: [{ fold: Array.from({ length: 30 }, (_, i) => `f${i}`) }],
      ...TICK,
    });
    expect(message).toMatch(/fold step made 1,500,000 rows; a chart may derive at most 1,000,000 rows/);
    await rendersNormally();
    expect(isAlive(serverPid)).toBe(true);
  });

  it('refuses links (href in an encoding, a mark or config), naming where', async () => {
    const data = { values: [{ a: 1, u: 'https://example.com/a' }] };
    expect(
      await refused({
        data,
        mark: 'point',
        encoding: { x: { field: 'a', type: 'quantitative' }, href: { field: 'u' } },
      }),
    ).toMatch(/`?vega_lite_spec\.encoding\.href`?.*links \(href\) are not allowed/);
    expect(
      await refused({
        data,
        mark: { type: 'point', href: 'https://example.com' },
        encoding: { x: { field: 'a', type: 'quantitative' } },
      }),
    ).toMatch(/vega_lite_spec\.mark\.href/);
    expect(
      await refused({
        data,
        mark: 'point',
        config: { point: { href: 'https://example.com' } },
        encoding: { x: { field: 'a', type: 'quantitative' } },
      }),
    ).toMatch(/vega_lite_spec\.config\.point\.href/);
    await rendersNormally();
  });

  it.runIf(process.platform === 'linux')(
    'answers a clear error when the renderer dies mid-chart, and the next chart gets a fresh renderer',
    async () => {
      await rendersNormally(); // a warm renderer
      const [renderer] = rendererPids();
      expect(renderer).toBeGreaterThan(0);
      const slow = {
        data: { sequence: { start: 0, stop: 30_000, as: 'x' } },
        transform: [
          { calculate: 'sin(datum.x / 100)', as: 'y' },
          { loess: 'y', on: 'x', bandwidth: 1 },
        ],
        mark: 'line',
        encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
      };
      const before = cpuTicks(renderer!);
      const dying = chart(slow);
      // Killed while drawing: once the renderer has spent a tenth of a second of CPU on this chart.
      await vi.waitFor(() => expect(cpuTicks(renderer!)).toBeGreaterThan(before + 10), {
        timeout: 20_000,
        interval: 20,
      });
      process.kill(renderer!, 'SIGKILL'); // as the kernel's out-of-memory killer would
      const r = await dying;
      expect(r.error?.code).toBe('invalid_arguments');
      expect(r.error?.message).toMatch(/renderer stopped while drawing this chart \(signal SIGKILL\)/);
      await rendersNormally();
      expect(rendererPids()).not.toContain(renderer);
      expect(rendererPids()).toHaveLength(1);
      expect(isAlive(serverPid)).toBe(true);
    },
  );
});
