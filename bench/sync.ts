/**
 * Sync: a full pull of a generated vault (10,000 entities, 500 meetings; `--small`: 1,000 and 50) from a
 * loopback `vault-tools serve --http` into an empty data dir, then a sync with nothing changed, each a
 * whole `vault-tools sync` process (wall time and peak RSS).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describeSpec, generateStore } from './generate.js';
import { BIN, runMeasured, startHttp } from './lib/procs.js';
import { row, unavailable, type Row } from './lib/report.js';
import type { BenchContext } from './lib/context.js';

/** Whether this build has the sync command (it ships separately from the suite). */
export function syncAvailable(): boolean {
  const r = spawnSync(process.execPath, [BIN, 'sync', '--help'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('--remote');
}

export async function syncRows(ctx: BenchContext): Promise<Row[]> {
  const spec = ctx.small
    ? { vaults: 1, entities: 1_000, meetings: 50, chunks: 50 * 20, vectors: false }
    : { vaults: 1, entities: 10_000, meetings: 500, chunks: 500 * 20, vectors: false };
  const size = `${describeSpec(spec)}, from a loopback \`serve --http\` (rate limit off)`;
  if (!syncAvailable()) {
    const why = 'this build has no `vault-tools sync` command';
    return ['sync.full', 'sync.nochange'].flatMap((m) => [unavailable(`${m}.seconds`, 's', size, why), unavailable(`${m}.peak_rss`, 'MB', size, why)]);
  }
  const source = join(ctx.tmp, 'sync-source');
  const target = join(ctx.tmp, 'sync-target');
  ctx.log('sync: generating the source vault');
  const m = await generateStore(source, spec);
  const server = await startHttp([BIN, 'serve', '--data-dir', source, '--http', '127.0.0.1:0', '--no-stdio', '--rate-limit', '0', '--no-index']);
  try {
    const args = [BIN, 'sync', '--remote', server.url, '--remote-key', m.ownerKey, '--data-dir', target];
    const env = { ...process.env, VAULT_TOOLS_INDEX: 'off' };
    const rows: Row[] = [];
    for (const [metric, what] of [['sync.full', 'full pull into an empty data dir'], ['sync.nochange', 'second sync, nothing changed']] as const) {
      ctx.log(`sync: ${what}`);
      const r = await runMeasured(args, env);
      if (r.status !== 0) throw new Error(`vault-tools sync failed (${what}): ${r.stderr.slice(-2000)}`);
      rows.push(
        row({ metric: `${metric}.seconds`, value: r.seconds, unit: 's', size: `${size}; ${what}` }),
        row({ metric: `${metric}.peak_rss`, value: r.peakMb, unit: 'MB', size: `${size}; ${what}` }),
      );
    }
    return rows;
  } finally {
    await server.stop();
  }
}
