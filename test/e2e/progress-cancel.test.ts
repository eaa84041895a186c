/**
 * Progress notifications and cancellation of the long tools, end to end: the MCP SDK's own client over a
 * real stdio pipe to the built binary (progress tokens, notifications/progress, notifications/cancelled),
 * and a REST client that hangs up mid-export. A cancelled export must leave nothing behind: no artifact,
 * no outbox entry, no file; and the server keeps answering.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Progress } from '@modelcontextprotocol/client';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/auth/keys.js';
import { closeChartRenderer } from '../../src/render/chart/index.js';
import { Service } from '../../src/service/invoke.js';
import { openDb } from '../../src/store/db.js';
import { BIN, cli, demoStore, type DemoStore } from '../helpers.js';
import { startServer, type RunningServer } from '../http-helpers.js';

const NW = 'northwind-logistics'; // the fixture as shipped: 72 findings
const MH = 'meridian-health'; // the fixture plus BIG synthetic findings, so an export runs long enough to cancel
const BIG = 20_000;

let store: DemoStore;
let client: Client;
let serverLog = '';

/** Findings with realistic text, like bench/actions.ts, written before any server opens the store. */
function seedFindings(dir: string, vaultId: string, n: number): void {
  const db = openDb(dir);
  const insert = db.prepare(
    `INSERT INTO entities (vault_id, id, type, name, aliases_json, description, source, mention_count, first_seen_at, last_mentioned_at)
     VALUES (?, ?, ?, ?, ?, ?, 'meeting', ?, ?, ?)`,
  );
  const types = ['department', 'person', 'process', 'system', 'problem', 'opportunity', 'kpi'];
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const when = new Date(Date.UTC(2026, 0, 1) + (i % 320) * 86_400_000).toISOString();
      insert.run(
        vaultId,
        `seed-${i}`,
        types[i % 7],
        `Synthetic finding ${i} about ward ${i % 40}`,
        JSON.stringify([`SF-${i}`]),
        `Observed on the ward round: discharge letters wait for a second signature in unit ${i % 60}; owner to confirm.`,
        i % 97,
        when,
        when,
      );
    }
  })();
  db.close();
}

const outbox = (vault: string) =>
  JSON.parse(cli(['outbox', '--json', '--vault', vault, '--data-dir', store.dir])) as { seq: number; tool: string }[];
const artifactDirs = (vault: string) => {
  const dir = join(store.dir, 'artifacts', vault);
  return existsSync(dir) ? readdirSync(dir) : [];
};

async function data(name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${(result.content as { text: string }[])[0]!.text}`);
  return result.structuredContent as Record<string, any>;
}

/** Resolves when the server's stderr shows `pattern` (the log line of a cancelled call). */
async function serverLogs(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!pattern.test(serverLog)) {
    if (Date.now() > until) throw new Error(`the server never logged ${pattern}; its stderr:\n${serverLog}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  store = demoStore();
  seedFindings(store.dir, MH, BIG);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--data-dir', store.dir, '--key', store.ownerKey],
    env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'info', VAULT_TOOLS_INDEX: 'off' },
    stderr: 'pipe',
  });
  transport.stderr!.on('data', (d) => (serverLog += d));
  client = new Client(
    { name: 'vault-tools-progress-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  store?.cleanup();
});

describe('progress over MCP stdio', () => {
  it('a small export (the 72 shipped findings) reports at least two increasing steps, up to the total', async () => {
    const seen: Progress[] = [];
    const result = await client.callTool(
      { name: 'export_report', arguments: { vault: NW, format: 'csv' } },
      { onprogress: (p: Progress) => seen.push(p) },
    );
    expect(result.isError).toBeFalsy();
    const rows = (result.structuredContent as { rows: number }).rows;
    expect(rows).toBeGreaterThan(50);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.every((p) => p.total === rows)).toBe(true);
    expect(seen.at(-1)!.progress).toBe(rows); // the final step always goes out, whatever the throttle
    expect(seen[0]!.message).toMatch(/rows/);
  });

  it('a call without a progress token gets no notifications and the same result', async () => {
    const out = await data('export_report', { vault: NW, format: 'csv' });
    expect(out.rows).toBeGreaterThan(50);
  });

  it('a long export is throttled to about 10 notifications a second', async () => {
    const seen: { at: number; p: Progress }[] = [];
    const t0 = Date.now();
    const result = await client.callTool(
      { name: 'export_report', arguments: { vault: MH, format: 'csv' } },
      {
        onprogress: (p: Progress) => seen.push({ at: Date.now(), p }),
      },
    );
    const ms = Date.now() - t0;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { rows: number }).rows).toBeGreaterThan(BIG);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(ms / 100) + 2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.p.progress).toBeGreaterThan(seen[i - 1]!.p.progress);
  });
});

describe('cancellation over MCP stdio', () => {
  it('an export cancelled after its first progress notification stores nothing, and the server keeps answering', async () => {
    const artifactsBefore = (await data('find_artifact', { vault: MH, limit: 25 })).artifacts.length;
    const outboxBefore = outbox(MH).length;
    const dirsBefore = artifactDirs(MH);
    const logBefore = serverLog.length;

    const controller = new AbortController();
    let progressed = 0;
    const call = client.callTool(
      { name: 'export_report', arguments: { vault: MH, format: 'xlsx' } },
      {
        signal: controller.signal,
        onprogress: () => {
          progressed++;
          controller.abort('the user pressed stop');
        },
      },
    );
    await expect(call).rejects.toBeDefined(); // the SDK rejects at once and sends notifications/cancelled
    expect(progressed).toBeGreaterThanOrEqual(1);

    // The server stops the export at its next page of rows and logs it; only then is the store checked.
    await serverLogs(/export_report cancelled by the client/);
    expect(serverLog.slice(logBefore)).not.toMatch(/error/i);

    expect((await data('find_artifact', { vault: MH, limit: 25 })).artifacts.length).toBe(artifactsBefore);
    expect(outbox(MH).length).toBe(outboxBefore);
    expect(artifactDirs(MH)).toEqual(dirsBefore); // the partial file and its folder are gone

    // The server keeps answering, long tools included.
    expect(await data('stats', { vault: MH })).toBeTruthy();
    const again = await data('export_report', { vault: NW, format: 'csv' });
    expect(again.artifactId).toMatch(/^art_/);
  });
});

describe('cancellation over REST', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(store.dir, []);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a client that hangs up mid-export cancels it: nothing stored, and the listener keeps answering', async () => {
    const outboxBefore = outbox(MH).length;
    const dirsBefore = artifactDirs(MH);
    const u = new URL('/v1/tools/export_report', server.url);
    const answered = await new Promise<boolean>((resolve) => {
      const req = request({
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${store.ownerKey}` },
      });
      req.on('error', () => resolve(false)); // our own hang-up ('socket hang up')
      req.on('close', () => resolve(false));
      req.on('response', () => resolve(true)); // too late: the export finished first (fails below)
      req.end(JSON.stringify({ vault: MH, format: 'pdf' }));
      // Hang up once the export is under way: its artifact folder appears as soon as it starts writing.
      const poll = setInterval(() => {
        if (artifactDirs(MH).length > dirsBefore.length) {
          clearInterval(poll);
          req.destroy();
        }
      }, 5);
    });
    expect(answered).toBe(false);
    expect(server.stderr()).not.toMatch(/error/i);
    const until = Date.now() + 20_000;
    while (artifactDirs(MH).length !== dirsBefore.length && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect(artifactDirs(MH)).toEqual(dirsBefore);
    expect(outbox(MH).length).toBe(outboxBefore);
    const res = await fetch(new URL('/v1/tools/stats', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${store.ownerKey}` },
      body: JSON.stringify({ vault: MH }),
    });
    expect(res.status).toBe(200);
  });
});

describe('render_chart and export_workbook, through the service path in this process', () => {
  const spec = {
    data: {
      values: Array.from({ length: 12 }, (_, i) => ({
        month: `2026-${String(i + 1).padStart(2, '0')}-01`,
        findings: 20 + ((i * 7) % 13),
      })),
    },
    mark: 'line',
    encoding: {
      x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' },
      y: { field: 'findings', type: 'quantitative' },
    },
  };
  const sheets = ['Wards', 'Clinics'].map((name) => ({
    name,
    columns: [
      { header: 'Unit', key: 'unit' },
      { header: 'Beds', key: 'beds', numFmt: '#,##0' },
    ],
    rows: Array.from({ length: 3000 }, (_, i) => ({ unit: `${name} ${i}`, beds: i % 40 })),
  }));
  let service: Service;
  let db: ReturnType<typeof openDb>;
  beforeAll(() => {
    db = openDb(store.dir);
    service = new Service(db, { dataDir: store.dir });
  });
  afterAll(async () => {
    await closeChartRenderer();
    db?.close();
  });

  it('export_workbook reports progress over all sheets and a cancel on its first report stores nothing', async () => {
    const owner = authenticate(db, store.ownerKey);
    const seen: [number, number | undefined][] = [];
    const ok = await service.invoke('export_workbook', { vault: NW, title: 'Beds', sheets }, owner, {
      progress: (done, total) => seen.push([done, total]),
    });
    expect(ok.ok).toBe(true);
    expect(seen[0]).toEqual([0, 6000]);
    expect(seen.at(-1)).toEqual([6000, 6000]);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThan(seen[i - 1]![0]);

    const outboxBefore = outbox(NW).length;
    const dirsBefore = artifactDirs(NW);
    const controller = new AbortController();
    const r = await service.invoke('export_workbook', { vault: NW, title: 'Beds', sheets }, owner, {
      signal: controller.signal,
      progress: (done) => done > 0 && controller.abort(),
    });
    expect(r).toMatchObject({ ok: false, code: 'cancelled', status: 499 });
    expect(!r.ok && r.message).toMatch(/`export_workbook` was cancelled.*nothing was stored/);
    expect(artifactDirs(NW)).toEqual(dirsBefore);
    expect(outbox(NW).length).toBe(outboxBefore);
  });

  it('render_chart: a cancel before or during the render stores nothing, and the next chart renders', async () => {
    const owner = authenticate(db, store.ownerKey);
    const outboxBefore = outbox(NW).length;
    const dirsBefore = artifactDirs(NW);
    const early = await service.invoke('render_chart', { vault: NW, title: 'Findings', vega_lite_spec: spec }, owner, {
      signal: AbortSignal.abort(),
    });
    expect(early).toMatchObject({ ok: false, code: 'cancelled' });
    // Cancelled while the worker starts or renders: the worker is stopped, the chart is not stored.
    const controller = new AbortController();
    const during = service.invoke('render_chart', { vault: NW, title: 'Findings', vega_lite_spec: spec }, owner, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    expect(await during).toMatchObject({ ok: false, code: 'cancelled' });
    expect(artifactDirs(NW)).toEqual(dirsBefore);
    expect(outbox(NW).length).toBe(outboxBefore);

    const after = await service.invoke('render_chart', { vault: NW, title: 'Findings', vega_lite_spec: spec }, owner);
    expect(after).toMatchObject({ ok: true });
  });
});
