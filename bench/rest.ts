/**
 * REST throughput: `POST /v1/tools/stats` on `vault-tools serve --http` (rate limit off, no background
 * indexing) against a bare node:http server answering the same bytes, each in its own process, loaded by
 * autocannon in this process with the same settings. Rounds alternate between the two servers.
 */
import autocannon from 'autocannon';
import { join } from 'node:path';
import { ROOT } from './lib/synth.js';
import { BIN, startHttp } from './lib/procs.js';
import { row, type Row } from './lib/report.js';
import { benchVault, vaultSize, type BenchContext } from './lib/context.js';

const BARE = join(ROOT, 'bench', 'servers', 'bare-http.cjs');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function load(url: string, headers: Record<string, string>, body: string, seconds: number) {
  const r = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: seconds });
  if (r.errors || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.non2xx} non-2xx answers under load`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

export async function restThroughput(ctx: BenchContext): Promise<Row[]> {
  const vault = benchVault(ctx);
  const seconds = ctx.small ? 3 : 10;
  const rounds = ctx.small ? 1 : 2;
  const ours = await startHttp([
    BIN,
    'serve',
    '--data-dir',
    ctx.dir,
    '--http',
    '127.0.0.1:0',
    '--no-stdio',
    '--rate-limit',
    '0',
    '--no-index',
  ]);
  try {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${ctx.manifest.ownerKey}` };
    const body = JSON.stringify({ vault: vault.id });
    const answer = await fetch(`${ours.url}/v1/tools/stats`, { method: 'POST', headers, body });
    if (!answer.ok) throw new Error(`stats answered ${answer.status}: ${await answer.text()}`);
    const bare = await startHttp([BARE], { ...process.env, BENCH_BODY: await answer.text() });
    try {
      await load(`${ours.url}/v1/tools/stats`, headers, body, 2); // warm-up, discarded
      await load(`${bare.url}/`, headers, body, 1);
      const a: number[] = [];
      const b: number[] = [];
      for (let r = 0; r < rounds; r++) {
        a.push((await load(`${ours.url}/v1/tools/stats`, headers, body, seconds)).rps);
        b.push((await load(`${bare.url}/`, headers, body, seconds)).rps);
      }
      const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
      return [
        row({
          metric: 'rest.stats.rps',
          value: mean(a),
          unit: 'req/s',
          reference: { what: 'bare node:http, same body', value: mean(b) },
          size: `${vaultSize(vault)}; autocannon ${CONNECTIONS} connections, ${rounds} × ${seconds} s each`,
          target: '≥ 0.5× reference',
          minRatio: 0.5,
        }),
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    await ours.stop();
  }
}
