/**
 * Action tools: `render_chart` over stdio (first call, then warm p50), and `export_report` of a vault of
 * 100,000 findings (the `--small` preset: 10,000) to xlsx, csv and pdf, and `export_deck` of the same vault,
 * each in its own `vault-tools call` process, with wall time and peak RSS; the deck's package checked as PowerPoint
 * reads it (test/ooxml-check.ts), and the deck again once the vault holds 100,000 more open conflicts, tasks and
 * plan steps (its reads are bounded: issue 45, item 13).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDb } from '../src/store/db.js';
import { insertConflict } from '../src/store/conflicts.js';
import { insertPlanStep, insertTask } from '../src/store/plan.js';
import { checkPackage } from '../test/ooxml-check.js';
import { generateStore } from './generate.js';
import { BIN, runMeasured, TSX } from './lib/procs.js';
import { StdioRpc } from './lib/rpc.js';
import { median, timeCalls } from './lib/measure.js';
import { row, type Row } from './lib/report.js';
import { benchVault, type BenchContext } from './lib/context.js';
import { BENCH_SERVER } from './stdio.js';

const SPEC = {
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

export async function chart(ctx: BenchContext): Promise<Row[]> {
  const rpc = new StdioRpc(process.execPath, [...TSX, BENCH_SERVER, ctx.dir, ctx.manifest.ownerKey]);
  try {
    await rpc.initialize();
    const args = { vault: benchVault(ctx).id, title: 'Findings per month', vega_lite_spec: SPEC };
    const [cold] = await timeCalls(1, 0, () => rpc.call('render_chart', args));
    const calls = ctx.small ? 10 : 30;
    const warm = await timeCalls(calls, 0, () => rpc.call('render_chart', args));
    const size = 'line chart of 12 points, PNG, over stdio';
    return [
      row({
        metric: 'chart.cold',
        value: cold!,
        unit: 'ms',
        size: `${size}; first call (renderer start and Vega load)`,
      }),
      row({
        metric: 'chart.warm_p50',
        value: median(warm),
        unit: 'ms',
        size: `${size}; ${calls} calls after the first`,
        target: '< 60 ms',
        maxValue: 60,
      }),
    ];
  } finally {
    await rpc.close();
  }
}

export async function exports(ctx: BenchContext): Promise<Row[]> {
  const findings = ctx.small ? 10_000 : 100_000;
  const dir = join(ctx.tmp, 'export');
  ctx.log(`export: generating a vault of ${findings} findings`);
  const m = await generateStore(dir, { vaults: 1, entities: findings, meetings: 0, chunks: 0, vectors: false });
  const rows: Row[] = [];
  for (const format of ['xlsx', 'csv', 'pdf'] as const) {
    ctx.log(`export: ${format}`);
    const r = await runMeasured([
      BIN,
      'call',
      'export_report',
      JSON.stringify({ format }),
      '--vault',
      m.vaults[0]!.id,
      '--data-dir',
      dir,
      '--key',
      m.ownerKey,
    ]);
    if (r.status !== 0) throw new Error(`export_report ${format} failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { rows: number; sizeBytes: number };
    const size = `${out.rows.toLocaleString('en')} findings → ${(out.sizeBytes / 1e6).toFixed(1)} MB ${format}; whole \`vault-tools call\` process`;
    const xlsx = format === 'xlsx';
    rows.push(
      row({
        metric: `export.${format}.seconds`,
        value: r.seconds,
        unit: 's',
        size,
        ...(xlsx ? { target: '< 10 s (100,000 rows)', maxValue: 10 } : {}),
      }),
      row({
        metric: `export.${format}.peak_rss`,
        value: r.peakMb,
        unit: 'MB',
        size,
        ...(xlsx ? { target: '< 400 MB (100,000 rows)', maxValue: 400 } : {}),
      }),
    );
  }
  // The deck features the top items only: its time and memory must not grow with the findings (issue 40).
  ctx.log('export: deck');
  const deckCall = () =>
    runMeasured([BIN, 'call', 'export_deck', '{}', '--vault', m.vaults[0]!.id, '--data-dir', dir, '--key', m.ownerKey]);
  const deck = await deckCall();
  if (deck.status !== 0) throw new Error(`export_deck failed: ${deck.stderr}`);
  const d = JSON.parse(deck.stdout) as { slides: number; sizeBytes: number; charts: number; url: string };
  const size = `${findings.toLocaleString('en')} findings → ${d.slides} slides (${d.charts} charts), ${(d.sizeBytes / 1e6).toFixed(2)} MB pptx; whole \`vault-tools call\` process`;
  rows.push(
    row({
      metric: 'export.deck.seconds',
      value: deck.seconds,
      unit: 's',
      size,
      target: '< 10 s (100,000 findings)',
      maxValue: 10,
    }),
    row({ metric: 'export.deck.peak_rss', value: deck.peakMb, unit: 'MB', size }),
    row({
      metric: 'export.deck.package_failures',
      value: (await checkPackage(readFileSync(fileURLToPath(d.url)))).length,
      unit: 'checks',
      size: `${size}; test/ooxml-check.ts (issue 47)`,
      target: '0',
      maxValue: 0,
    }),
  );
  // The deck's reads are bounded (issue 45, item 13): 100,000 more open conflicts, tasks and plan steps change nothing.
  const busy = ctx.small ? 10_000 : 100_000;
  ctx.log(`export: deck of a vault with ${busy} open conflicts, tasks and plan steps`);
  addOpenWork(dir, m.vaults[0]!.id, busy);
  const b = await deckCall();
  if (b.status !== 0) throw new Error(`export_deck failed: ${b.stderr}`);
  const bd = JSON.parse(b.stdout) as { slides: number; sizeBytes: number; url: string };
  const busySize = `${findings.toLocaleString('en')} findings and ${busy.toLocaleString('en')} more open conflicts, tasks and plan steps → ${bd.slides} slides, ${(bd.sizeBytes / 1e6).toFixed(2)} MB`;
  rows.push(
    row({
      metric: 'export.deck_busy.seconds',
      value: b.seconds,
      unit: 's',
      size: busySize,
      target: '< 10 s',
      maxValue: 10,
    }),
    row({ metric: 'export.deck_busy.peak_rss', value: b.peakMb, unit: 'MB', size: busySize }),
    row({
      metric: 'export.deck_busy.package_failures',
      value: (await checkPackage(readFileSync(fileURLToPath(bd.url)))).length,
      unit: 'checks',
      size: busySize,
      target: '0',
      maxValue: 0,
    }),
  );
  return rows;
}

/** `n` open conflicts (two claims each), open tasks and plan steps ahead, added to a generated vault. */
function addOpenWork(dir: string, vaultId: string, n: number): void {
  const db = openDb(dir);
  try {
    const entity = db.prepare('SELECT id FROM entities WHERE vault_id = ? LIMIT 1').pluck().get(vaultId) as string;
    const at = '2026-11-01T00:00:00Z';
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const claim = (k: number) => ({
          meetingId: 'none',
          turnIndex: k,
          speaker: `Speaker ${k}`,
          quote: `Figure ${i * 2 + k}`,
          spokenAt: at,
        });
        insertConflict(db, vaultId, {
          id: `busy-conflict-${i}`,
          entityId: entity,
          title: `Busy conflict ${i}`,
          status: 'open',
          note: null,
          createdAt: at,
          updatedAt: at,
          claims: [claim(0), claim(1)],
        });
        insertTask(db, vaultId, {
          id: `busy-task-${i}`,
          number: 1_000_000 + i,
          identifier: `BUSY-${i}`,
          title: `Busy task ${i}`,
          description: null,
          status: 'todo',
          assigneeName: null,
          estimate: null,
          priority: 'none',
          labels: [],
          checklist: [],
          dueDate: null,
          milestoneId: null,
          createdAt: at,
          updatedAt: at,
        });
        insertPlanStep(db, vaultId, {
          id: `busy-step-${i}`,
          position: 1_000_000 + i,
          title: `Busy step ${i}`,
          description: null,
          status: 'planned',
          proposedBy: 'person',
          proposerName: null,
          startDate: null,
          dueDate: null,
        });
      }
    })();
    // Checkpointed here, so the deck's run does not pay for writing this insert's WAL into the database (15 s).
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
