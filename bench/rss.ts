/**
 * Memory of `vault-tools serve` as a client runs it (stdio, default options, so the background indexer
 * runs too): resident set once start-up work is over, then after a mix of read-tool calls, compared with
 * the resident set after the first tenth of them (warm caches and loaded modules are not growth).
 */
import { StdioRpc } from './lib/rpc.js';
import { BIN, rssMb, waitIdle } from './lib/procs.js';
import { readCases } from './lib/cases.js';
import { row, type Row } from './lib/report.js';
import { benchVault, type BenchContext } from './lib/context.js';

/** Search by meaning is slow and rare in real use: one call in 50 of the mix. */
const SEARCH_EVERY = 50;
/** CPU-quiet time before a reading: longer than serve's idle heap trim takes to notice (src/cli/heap-trim.ts looks every 2 s). */
const SETTLE_MS = 5000;

export async function rssRows(ctx: BenchContext): Promise<Row[]> {
  const total = ctx.small ? 2_000 : 10_000;
  const rpc = new StdioRpc(process.execPath, [BIN, 'serve', '--data-dir', ctx.dir, '--key', ctx.manifest.ownerKey]);
  try {
    await rpc.initialize();
    await waitIdle(rpc.pid);
    const atStart = rssMb(rpc.pid);
    const cases = await readCases(rpc, ctx.manifest, benchVault(ctx).id);
    const search = cases.find((c) => c.tool === 'search_transcripts')!;
    const others = cases.filter((c) => c !== search);
    let warm = 0;
    for (let i = 0; i < total; i++) {
      const c = i % SEARCH_EVERY === SEARCH_EVERY - 1 ? search : others[i % others.length]!;
      await rpc.call(c.tool, c.args(i));
      if (i === total / 10 - 1) {
        await waitIdle(rpc.pid, SETTLE_MS);
        warm = rssMb(rpc.pid);
      }
    }
    await waitIdle(rpc.pid, SETTLE_MS);
    const after = rssMb(rpc.pid);
    const size = `${ctx.size}; ${total.toLocaleString('en')} mixed read calls (${cases.map((c) => c.id).join(', ')}; search_transcripts 1 in ${SEARCH_EVERY})`;
    return [
      row({
        metric: 'rss.idle_start',
        value: atStart,
        unit: 'MB',
        size: `${ctx.size}; serve over stdio, idle after start-up`,
      }),
      row({
        metric: 'rss.after_calls',
        value: after,
        unit: 'MB',
        reference: { what: `after the first ${(total / 10).toLocaleString('en')} calls`, value: warm },
        size,
        note: `${(after / atStart).toFixed(2)}× the idle RSS after start-up`,
        target: 'no growth beyond noise (≤ 1.10× reference)',
        maxRatio: 1.1,
      }),
    ];
  } finally {
    await rpc.close();
  }
}
