/**
 * `npm run bench:actions`: render_chart latency through the service (cold: first call, worker start and
 * Vega load included; warm: p50 of 30 calls), and export_report of 100,000 findings to xlsx, csv and pdf,
 * each in its own `vault-tools call` process, timed with its peak RSS (from /usr/bin/time when present,
 * else the child's own resource usage).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { authenticate } from '../src/auth/keys.js';
import { openDb } from '../src/store/db.js';
import { Service } from '../src/service/invoke.js';

const BIN = resolve(import.meta.dirname, '..', 'bin', 'vault-tools.js');
const VAULT = 'northwind-logistics';
const ROWS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'vt-bench-actions-'));
try {
  execFileSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve'], { stdio: 'ignore' });
  const key = readFileSync(join(dir, 'owner.key'), 'utf8').trim();
  const db = openDb(dir);

  // render_chart through the service path, in this process.
  const service = new Service(db, { dataDir: dir });
  const principal = authenticate(db, key);
  const spec = {
    data: { values: Array.from({ length: 12 }, (_, i) => ({ month: `2026-${String(i + 1).padStart(2, '0')}-01`, findings: 20 + ((i * 7) % 13) })) },
    mark: 'line',
    encoding: { x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' }, y: { field: 'findings', type: 'quantitative' } },
  };
  const chart = async () => {
    const t0 = process.hrtime.bigint();
    const r = await service.invoke('render_chart', { vault: VAULT, title: 'Findings per month', vega_lite_spec: spec }, principal);
    if (!r.ok) throw new Error(r.message);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const cold = await chart();
  const warm: number[] = [];
  for (let i = 0; i < 30; i++) warm.push(await chart());
  const rows = [`render_chart (line, 12 points): cold ${cold.toFixed(0)} ms (first call: worker start + Vega load), warm p50 ${median(warm).toFixed(1)} ms (30 calls)`];

  // 100,000 findings with realistic text, in one transaction.
  const insert = db.prepare(
    `INSERT INTO entities (vault_id, id, type, name, aliases_json, description, source, mention_count, first_seen_at, last_mentioned_at)
     VALUES (?, ?, ?, ?, ?, ?, 'meeting', ?, ?, ?)`,
  );
  const types = ['department', 'person', 'process', 'system', 'problem', 'opportunity', 'kpi'];
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const when = new Date(Date.UTC(2026, 0, 1) + (i % 320) * 86_400_000).toISOString();
      insert.run(VAULT, `bench-${i}`, types[i % 7], `Synthetic finding ${i} about dock ${i % 40} and shift ${i % 3}`, JSON.stringify([`SF-${i}`]),
        `Observed during the site walk: ${'the pick path doubles back through aisle ' + (i % 60) + ' when replenishment is late; '.repeat(1 + (i % 4))}owner to confirm.`,
        i % 97, when, when);
    }
  })();
  db.close();

  const hasTime = existsSync('/usr/bin/time');
  for (const format of ['xlsx', 'csv', 'pdf']) {
    const args = [BIN, 'call', 'export_report', JSON.stringify({ format }), '--vault', VAULT, '--data-dir', dir, '--key', key];
    const t0 = Date.now();
    const run = hasTime
      ? spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, ...args], { encoding: 'utf8' })
      : spawnSync(process.execPath, args, { encoding: 'utf8' });
    const ms = Date.now() - t0;
    if (run.status !== 0) throw new Error(`export ${format} failed: ${run.stderr}`);
    const out = JSON.parse(run.stdout) as { rows: number; sizeBytes: number };
    const rss = /maxrss_kb=(\d+)/.exec(run.stderr)?.[1];
    rows.push(
      `export_report ${format.padEnd(4)} ${out.rows.toLocaleString('en')} findings: ${(ms / 1000).toFixed(1)} s (whole CLI process), peak RSS ${rss ? `${Math.round(Number(rss) / 1024)} MB` : 'n/a'}, file ${(out.sizeBytes / 1e6).toFixed(1)} MB`,
    );
  }
  process.stdout.write(`${rows.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
