/**
 * Sync: a full pull of a generated vault (10,000 entities, 500 meetings; `--small`: 1,000 and 50) from a
 * loopback `vault-tools serve --http` into an empty data dir, once with the rate limit off and once under the
 * server's default limit (50 requests/s, bursts of 100), then a sync with nothing changed; each a whole
 * `vault-tools sync --json` process (wall time, peak RSS, and the requests, retries and bytes it reports).
 * Then `changes_since` over a fixed 7-day window of a vault of 100,000 entities (`--small`: 10,000): the
 * answer a client that sends no `limit` gets, and the requests and bytes of walking every page.
 *
 * Alone: `npx tsx bench/sync.ts [--small]` (build first: it runs bin/vault-tools.js).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSpec, generateStore, type ScaleSpec } from './generate.js';
import { BIN, runMeasured, startHttp } from './lib/procs.js';
import { row, table, unavailable, type Row } from './lib/report.js';
import type { BenchContext } from './lib/context.js';
import { DAY_MS } from '../src/time.js';

/** Whether this build has the sync command (it ships separately from the suite). */
export function syncAvailable(): boolean {
  const r = spawnSync(process.execPath, [BIN, 'sync', '--help'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('--remote');
}

type SyncContext = Pick<BenchContext, 'small' | 'tmp' | 'log'>;

/** Every row this part reports, with its unit (the suite's test checks them all). */
export const SYNC_METRICS: [string, string][] = [
  ...['full', 'nochange'].flatMap((m): [string, string][] => [
    [`sync.${m}.seconds`, 's'],
    [`sync.${m}.peak_rss`, 'MB'],
    [`sync.${m}.requests`, 'requests'],
    [`sync.${m}.bytes`, 'KB'],
  ]),
  ['sync.limited.seconds', 's'],
  ['sync.limited.requests', 'requests'],
  ['sync.limited.retry_share', '%'],
  ['changes_since.7d.bytes', 'KB'],
  ['changes_since.7d.walk_requests', 'requests'],
  ['changes_since.7d.walk_bytes', 'KB'],
];

interface SyncJson {
  requests: { requests: number; retries: number; bytes: number };
}

export async function syncRows(ctx: SyncContext): Promise<Row[]> {
  const spec: ScaleSpec = ctx.small
    ? { vaults: 1, entities: 1_000, meetings: 50, chunks: 50 * 20, vectors: false }
    : { vaults: 1, entities: 10_000, meetings: 500, chunks: 500 * 20, vectors: false };
  const size = `${describeSpec(spec)}, from a loopback \`serve --http\``;
  if (!syncAvailable()) {
    const why = 'this build has no `vault-tools sync` command';
    return SYNC_METRICS.map(([metric, unit]) => unavailable(metric, unit, size, why));
  }
  const source = join(ctx.tmp, 'sync-source');
  ctx.log('sync: generating the source vault');
  const m = await generateStore(source, spec);
  const rows: Row[] = [];
  const env = { ...process.env, VAULT_TOOLS_INDEX: 'off' };
  const serve = (limit: string[]) =>
    startHttp([BIN, 'serve', '--data-dir', source, '--http', '127.0.0.1:0', '--no-stdio', '--no-index', ...limit]);
  const sync = async (url: string, target: string, what: string) => {
    ctx.log(`sync: ${what}`);
    const r = await runMeasured(
      [BIN, 'sync', '--json', '--remote', url, '--remote-key', m.ownerKey, '--data-dir', target],
      env,
    );
    if (r.status !== 0) throw new Error(`vault-tools sync failed (${what}): ${r.stderr.slice(-2000)}`);
    return { ...r, stats: (JSON.parse(r.stdout) as SyncJson).requests };
  };

  const open = await serve(['--rate-limit', '0']);
  try {
    const target = join(ctx.tmp, 'sync-target');
    const full = `${size} (rate limit off); full pull into an empty data dir`;
    const r = await sync(open.url, target, 'full pull, rate limit off');
    rows.push(
      row({
        metric: 'sync.full.seconds',
        value: r.seconds,
        unit: 's',
        size: full,
        ...(ctx.small ? {} : { target: '≤ 5 s', maxValue: 5 }),
      }),
      row({ metric: 'sync.full.peak_rss', value: r.peakMb, unit: 'MB', size: full }),
      row({ metric: 'sync.full.requests', value: r.stats.requests, unit: 'requests', size: full }),
      row({ metric: 'sync.full.bytes', value: r.stats.bytes / 1024, unit: 'KB', size: full }),
    );
    const same = `${size} (rate limit off); second sync, nothing changed`;
    const n = await sync(open.url, target, 'second sync, nothing changed');
    rows.push(
      row({ metric: 'sync.nochange.seconds', value: n.seconds, unit: 's', size: same }),
      row({ metric: 'sync.nochange.peak_rss', value: n.peakMb, unit: 'MB', size: same }),
      row({ metric: 'sync.nochange.requests', value: n.stats.requests, unit: 'requests', size: same }),
      row({ metric: 'sync.nochange.bytes', value: n.stats.bytes / 1024, unit: 'KB', size: same }),
    );
  } finally {
    await open.stop();
  }

  const limited = await serve([]); // the server's default rate limit
  try {
    const what = `${size} under the server's default rate limit (50/s, bursts of 100); full pull into an empty data dir`;
    const r = await sync(limited.url, join(ctx.tmp, 'sync-target-limited'), 'full pull, default rate limit');
    rows.push(
      row({ metric: 'sync.limited.seconds', value: r.seconds, unit: 's', size: what }),
      row({ metric: 'sync.limited.requests', value: r.stats.requests, unit: 'requests', size: what }),
      row({
        metric: 'sync.limited.retry_share',
        value: (100 * r.stats.retries) / Math.max(1, r.stats.requests),
        unit: '%',
        size: what,
        target: '≤ 5 %',
        maxValue: 5,
        note: `${r.stats.retries} retries of ${r.stats.requests} requests`,
      }),
    );
  } finally {
    await limited.stop();
  }
  rows.push(...(await changesSinceRows(ctx)));
  return rows;
}

/** `changes_since` a fixed 7 days before the generated data's "now", on a vault of 100,000 entities. */
async function changesSinceRows(ctx: SyncContext): Promise<Row[]> {
  const spec: ScaleSpec = {
    vaults: 1,
    entities: ctx.small ? 10_000 : 100_000,
    meetings: 100,
    chunks: 100 * 5,
    vectors: false,
  };
  const dir = join(ctx.tmp, 'changes-source');
  ctx.log(`changes_since: generating ${describeSpec(spec)}`);
  const m = await generateStore(dir, spec);
  const server = await startHttp([
    BIN,
    'serve',
    '--data-dir',
    dir,
    '--http',
    '127.0.0.1:0',
    '--no-stdio',
    '--no-index',
    '--rate-limit',
    '0',
  ]);
  try {
    const since = new Date(Date.parse(m.anchor) - 7 * DAY_MS).toISOString();
    const call = async (body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/v1/tools/changes_since`, {
        method: 'POST',
        headers: { authorization: `Bearer ${m.ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ vault: m.vaults[0]!.id, since, ...body }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`changes_since ${res.status}: ${text.slice(0, 500)}`);
      return {
        bytes: Buffer.byteLength(text),
        data: (JSON.parse(text) as { data: { nextCursor?: string | null; totals?: Record<string, number> } }).data,
      };
    };
    const size = `${describeSpec(spec)}; since = 7 days before the data's "now"`;
    const first = await call({});
    const rows = [
      row({
        metric: 'changes_since.7d.bytes',
        value: first.bytes / 1024,
        unit: 'KB',
        size: `${size}; one call with no limit (what a hosted-style client sends)`,
      }),
    ];
    // Walking every page, where the server pages (a server without paging answers everything at once).
    let requests = 1;
    let bytes = first.bytes;
    let cursor = first.data.nextCursor;
    if (cursor !== undefined) {
      const page = await call({ limit: 200 });
      ({ bytes } = page);
      cursor = page.data.nextCursor;
      for (; cursor; requests++) {
        const next = await call({ limit: 200, cursor });
        bytes += next.bytes;
        cursor = next.data.nextCursor;
      }
    }
    const items = first.data.totals ? Object.values(first.data.totals).reduce((a, b) => a + b, 0) : undefined;
    const walk = `${size}; every page, limit 200${items === undefined ? ' (this server does not page: one answer)' : `, ${items} items`}`;
    rows.push(
      row({ metric: 'changes_since.7d.walk_requests', value: requests, unit: 'requests', size: walk }),
      row({ metric: 'changes_since.7d.walk_bytes', value: bytes / 1024, unit: 'KB', size: walk }),
    );
    return rows;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tmp = mkdtempSync(join(tmpdir(), 'vt-bench-sync-'));
  try {
    const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
    const rows = await syncRows({ small: process.argv.includes('--small'), tmp, log });
    process.stdout.write(`${table(rows)}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
