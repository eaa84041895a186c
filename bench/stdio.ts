/**
 * MCP over stdio: cold start of `vault-tools serve` to its first `initialize` answer against a minimal MCP
 * SDK server spawned the same way, and the latency of read tools on the generated store against a no-op
 * tool on the same server (bench/servers/mcp-bench.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib/synth.js';
import { BIN, TSX } from './lib/procs.js';
import { INITIALIZE, StdioRpc } from './lib/rpc.js';
import { median, ms, percentile, timeInterleaved } from './lib/measure.js';
import { row, type Row } from './lib/report.js';
import { FIXED_PAGE_TOOL, NOOP_TOOL, readCases, isSearch, type Case } from './lib/cases.js';
import { benchVault, vaultSize, type BenchContext } from './lib/context.js';

/** Minimal servers on each SDK line: v2 (what vault-tools runs on, serveStdio, both eras) and v1 (the old line). */
export const REFERENCE_SERVER = join(ROOT, 'bench', 'servers', 'reference-mcp-v2.mjs');
export const REFERENCE_SERVER_V1 = join(ROOT, 'bench', 'servers', 'reference-mcp.mjs');

/** The opening request of each era: the 2025 `initialize` handshake, or the 2026-07-28 `server/discover`. */
const OPENINGS = {
  '2025': { method: 'initialize', params: INITIALIZE },
  '2026-07-28': {
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': INITIALIZE.clientInfo,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  },
} as const;
type Era = keyof typeof OPENINGS;
export const BENCH_SERVER = join(ROOT, 'bench', 'servers', 'mcp-bench.ts');

/** Milliseconds from spawn to the first byte of the answer to the era's opening request; waits for the exit after. */
function firstAnswer(args: string[], era: Era = '2025'): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    let took: number | undefined;
    child.stdout.once('data', () => {
      took = ms(t0);
      child.stdin.end();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      took === undefined ? reject(new Error(`${args.join(' ')} exited ${code} before answering`)) : resolve(took),
    );
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, ...OPENINGS[era] })}\n`);
  });
}

export async function coldStart(ctx: BenchContext, spawns = 20): Promise<Row[]> {
  const serve = [BIN, 'serve', '--data-dir', ctx.dir, '--key', ctx.manifest.ownerKey];
  const series = {
    ours2025: [] as number[],
    ref2025: [] as number[],
    ours2026: [] as number[],
    ref2026: [] as number[],
    refV1: [] as number[],
  };
  await firstAnswer(serve); // disk cache warm for all
  await firstAnswer([REFERENCE_SERVER]);
  await firstAnswer([REFERENCE_SERVER_V1]);
  for (let i = 0; i < spawns; i++) {
    // Interleaved, so a burst of load from elsewhere hits every series alike.
    series.ours2025.push(await firstAnswer(serve));
    series.ref2025.push(await firstAnswer([REFERENCE_SERVER]));
    series.ours2026.push(await firstAnswer(serve, '2026-07-28'));
    series.ref2026.push(await firstAnswer([REFERENCE_SERVER], '2026-07-28'));
    series.refV1.push(await firstAnswer([REFERENCE_SERVER_V1]));
  }
  const size = `${ctx.size}; median of ${spawns} spawns`;
  return [
    row({
      metric: 'cold_start.median',
      value: median(series.ours2025),
      unit: 'ms',
      reference: {
        what: 'minimal MCP server on the same SDK line (v2), one tool; 2025 initialize',
        value: median(series.ref2025),
      },
      size,
      target: '≤ 1.25× reference',
      maxRatio: 1.25,
    }),
    row({
      metric: 'cold_start.2026.median',
      value: median(series.ours2026),
      unit: 'ms',
      reference: { what: 'the same v2 reference; 2026-07-28 server/discover', value: median(series.ref2026) },
      size,
      target: '≤ 1.25× reference',
      maxRatio: 1.25,
    }),
    row({
      metric: 'cold_start.reference_v1.median',
      value: median(series.refV1),
      unit: 'ms',
      reference: { what: 'the v2 reference; 2025 initialize', value: median(series.ref2025) },
      size,
      note: 'the old SDK line (v1) against the new, for context: what the SDK move itself costs at start',
    }),
  ];
}

export async function toolLatencies(ctx: BenchContext): Promise<Row[]> {
  const vault = benchVault(ctx);
  const rpc = new StdioRpc(process.execPath, [...TSX, BENCH_SERVER, ctx.dir, ctx.manifest.ownerKey, vault.id]);
  try {
    await rpc.initialize();
    const size = `${vaultSize(vault)}; ${ctx.calls} calls`;
    // The floor of a large answer: a tool that does no work and returns a fixed first page of list_findings.
    const page = await rpc.call(FIXED_PAGE_TOOL, {});
    const cases: Case[] = [
      ...(await readCases(rpc, ctx.manifest, vault.id)),
      { id: 'fixed_page', tool: FIXED_PAGE_TOOL, args: () => ({}) },
    ];
    // Each tool is timed interleaved with the no-op, so the two see the same state; the no-op rows pool them all.
    const rows: Row[] = [];
    const noopAll: number[] = [];
    for (const c of cases) {
      ctx.log(`stdio: ${c.id}`);
      const [times, noop] = await timeInterleaved(
        ctx.calls,
        ctx.warmup,
        (i) => rpc.call(c.tool, c.args(i)),
        () => rpc.call(NOOP_TOOL, {}),
      );
      noopAll.push(...noop);
      const fixed = c.tool === FIXED_PAGE_TOOL;
      const note = fixed
        ? `no work, a fixed list_findings page of ${JSON.stringify(page).length.toLocaleString('en')} bytes: what an answer that size costs on the pipe`
        : undefined;
      rows.push(
        row({
          metric: `stdio.${c.id}.p50`,
          value: median(times),
          unit: 'ms',
          reference: { what: 'no-op p50, interleaved', value: median(noop) },
          size,
          ...(note ? { note } : {}),
          ...(isSearch(c) || fixed ? {} : { target: '≤ 2× no-op p50', maxRatio: 2 }),
        }),
        row({
          metric: `stdio.${c.id}.p99`,
          value: percentile(times, 0.99),
          unit: 'ms',
          reference: { what: 'no-op p99, interleaved', value: percentile(noop, 0.99) },
          size,
          ...(note ? { note } : {}),
        }),
      );
      if (c.tool === 'search_transcripts') {
        // Say what was timed: hybrid only when the vector half ran (an embedder and vectors for the vault).
        const probe = (await rpc.call(c.tool, c.args(0))) as {
          mode: string;
          vectorCoverage: { chunks: number; withVectors: number };
        };
        const mode = `mode ${probe.mode}, ${probe.vectorCoverage.withVectors.toLocaleString('en')} of ${probe.vectorCoverage.chunks.toLocaleString('en')} chunks with vectors`;
        rows.push(
          row({
            metric: 'stdio.search_transcripts.p95',
            value: percentile(times, 0.95),
            unit: 'ms',
            size: `one vault of ${vault.chunks.toLocaleString('en')} chunks (${mode}); ${ctx.calls} calls`,
            target:
              vault.chunks >= 50_000
                ? '< 50 ms (at 50,000 chunks)'
                : '< 50 ms (target is set at 50,000 chunks; this vault is smaller)',
            maxValue: 50,
          }),
        );
      }
    }
    return [
      row({
        metric: 'stdio.noop.p50',
        value: median(noopAll),
        unit: 'ms',
        size: `${vaultSize(vault)}; ${noopAll.length} calls, interleaved with the tools'`,
      }),
      row({
        metric: 'stdio.noop.p99',
        value: percentile(noopAll, 0.99),
        unit: 'ms',
        size: `${vaultSize(vault)}; ${noopAll.length} calls, interleaved with the tools'`,
      }),
      ...rows,
    ];
  } finally {
    await rpc.close();
  }
}
