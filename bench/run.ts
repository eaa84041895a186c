/**
 * `npm run bench [-- --small] [--out DIR] [--only a,b] [--store DIR] [--keep]`: the performance suite.
 * Generates a scaled store (bench/generate.ts), measures every row of issue 7 against a reference measured
 * in the same run, prints a table and writes `<out>/<date>.json` (default bench/results/).
 *
 *   --small       2 vaults, 2,000 entities, 100 meetings, 10,000 chunks; fewer calls (a few minutes)
 *   --only LIST   parts to run: generate, cold_start, stdio, quotes, chart, rest, export, sync, rss, backup, live, soak
 *                 (`--only soak` alone needs no generated store: it makes its own from the demo vaults)
 *   --soak-minutes N  how long the soak runs (default 3; 1 with --small)
 *   --store DIR   reuse a store this generator made (its bench-manifest.json) instead of generating one
 *   --keep        keep the generated store (its path is printed)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSpec, generateStore, MANIFEST_FILE, PRESETS, type Manifest } from './generate.js';
import { ROOT } from './lib/synth.js';
import { row, table, writeResults, type Row } from './lib/report.js';
import type { BenchContext } from './lib/context.js';
import { coldStart, toolLatencies } from './stdio.js';
import { restThroughput } from './rest.js';
import { chart, exports } from './actions.js';
import { syncRows } from './sync.js';
import { rssRows } from './rss.js';
import { liveRows } from './live.js';
import { backupRows } from './backup.js';
import { soakRows } from './soak.js';
import { quoteRows } from './quotes.js';

const PARTS = [
  'generate',
  'cold_start',
  'stdio',
  'quotes',
  'chart',
  'rest',
  'export',
  'sync',
  'rss',
  'backup',
  'live',
  'soak',
] as const;
type Part = (typeof PARTS)[number];

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const small = flag('--small');
const only = option('--only')?.split(',') ?? [...PARTS];
for (const p of only)
  if (!PARTS.includes(p as Part)) throw new Error(`--only: unknown part "${p}"; the parts are ${PARTS.join(', ')}`);
const out = option('--out') ?? join(ROOT, 'bench', 'results');
const log = (line: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const started = performance.now();
const work = mkdtempSync(join(tmpdir(), 'vt-bench-'));
const reuse = option('--store');
const dir = reuse ?? join(work, 'store');
const load0 = loadavg();
const soakMinutes = Number(option('--soak-minutes') ?? (small ? 1 : 3));
if (!(soakMinutes > 0)) throw new Error(`--soak-minutes: expected minutes above 0, got "${option('--soak-minutes')}"`);
const machineNow = () => ({
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
  loadAverageAtStart: load0,
  loadAverageAtEnd: loadavg(),
});
const finish = (rows: Row[], preset: string, spec: unknown) => {
  const wallSeconds = (performance.now() - started) / 1000;
  const machine = machineNow();
  const file = writeResults(out, {
    date: new Date().toISOString(),
    preset,
    spec,
    command: argv.length ? `npm run bench -- ${argv.join(' ')}` : 'npm run bench',
    wallSeconds,
    machine,
    rows,
  });
  process.stdout.write(
    `${table(rows)}\n\n${rows.length} rows in ${wallSeconds.toFixed(0)} s (load average at start ${load0.map((x) => x.toFixed(2)).join(' ')}, at end ${machine.loadAverageAtEnd.map((x) => x.toFixed(2)).join(' ')}); written to ${file}\n`,
  );
};
try {
  if (only.length === 1 && only[0] === 'soak') {
    // The soak makes its own stores: no generated one is needed.
    log(`soak for ${soakMinutes} min…`);
    finish(await soakRows(work, soakMinutes), 'soak only (demo vaults)', { soakMinutes });
  } else {
    let manifest: Manifest;
    const rows: Row[] = [];
    if (reuse) {
      if (!existsSync(join(reuse, MANIFEST_FILE)))
        throw new Error(`--store ${reuse}: no ${MANIFEST_FILE}; make one with tsx bench/generate.ts`);
      manifest = JSON.parse(readFileSync(join(reuse, MANIFEST_FILE), 'utf8')) as Manifest;
      log(`reusing ${describeSpec(manifest.spec)} in ${reuse}`);
    } else {
      const spec = small ? PRESETS.small : PRESETS.full;
      log(`generating ${describeSpec(spec)} in ${dir}`);
      manifest = await generateStore(dir, spec, log);
    }
    const size = describeSpec(manifest.spec);
    if (only.includes('generate')) {
      const chunks = manifest.vaults.reduce((n, v) => n + v.chunks, 0);
      rows.push(
        row({
          metric: 'generate.seconds',
          value: manifest.seconds.total,
          unit: 's',
          size: `${size}, words indexed, ${manifest.spec.vectors ? '512-dim vectors' : 'no vectors'}`,
          note: `${(chunks / manifest.seconds.total).toFixed(0)} chunks/s overall; records ${manifest.seconds.records.toFixed(0)} s, vectors ${manifest.seconds.vectors.toFixed(0)} s${reuse ? '; measured when the reused store was generated' : ''}`,
        }),
      );
    }
    const ctx: BenchContext = {
      dir,
      manifest,
      size,
      small,
      calls: small ? 200 : 1_000,
      warmup: small ? 10 : 50,
      tmp: work,
      log,
    };
    const parts: [Part, () => Promise<Row[]>][] = [
      ['cold_start', () => coldStart(ctx)],
      ['stdio', () => toolLatencies(ctx)],
      ['quotes', () => quoteRows(ctx)],
      ['chart', () => chart(ctx)],
      ['rest', () => restThroughput(ctx)],
      ['export', () => exports(ctx)],
      ['sync', () => syncRows(ctx)],
      ['rss', () => rssRows(ctx)],
      ['backup', () => backupRows(ctx)],
      // Last: it writes to the store (tasks) and builds stores of its own.
      ['live', () => liveRows(ctx)],
      // Stores of its own (the demo vaults and a hosted copy), minutes long.
      ['soak', () => soakRows(work, soakMinutes)],
    ];
    for (const [name, run] of parts) {
      if (!only.includes(name)) continue;
      log(`${name}…`);
      rows.push(...(await run()));
    }
    finish(rows, reuse ? 'reused store' : small ? 'small' : 'full', manifest.spec);
  }
} finally {
  if (flag('--keep') && !reuse) {
    for (const entry of readdirSync(work))
      if (entry !== 'store') rmSync(join(work, entry), { recursive: true, force: true });
    log(`kept the generated store: ${dir}`);
  } else rmSync(work, { recursive: true, force: true });
}
