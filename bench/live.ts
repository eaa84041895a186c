/**
 * Search while the store changes (issue 18), part `live` of `npm run bench`:
 *  - search_transcripts p95 while serve's background indexer embeds, against the same store served with
 *    `--no-index` (a store of its own: half its chunks have vectors, so both searches are hybrid and the
 *    indexer has the other half to embed with the real model);
 *  - search_transcripts and search_knowledge p95 right after a write (add_task) against warm, on the suite's store;
 *  - search_knowledge p50 at three vault sizes against get_entity p50, and the growth exponent of its p50;
 *  - embedding throughput of the default model on ~1,200-character chunks (chunks per wall second and per CPU second).
 */
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { openDb } from '../src/store/db.js';
import { createDefaultEmbedder, indexWorkers } from '../src/search/embedder/index.js';
import { embedChunkTexts, embeddingWindows } from '../src/search/embed-chunks.js';
import { INDEX_BATCH_CHUNKS } from '../src/search/background.js';
import { generateStore } from './generate.js';
import { BIN, TSX } from './lib/procs.js';
import { StdioRpc } from './lib/rpc.js';
import { median, ms, percentile, timeInterleaved } from './lib/measure.js';
import { row, type Row } from './lib/report.js';
import { readCases } from './lib/cases.js';
import { prng, TextMaker, vocabulary } from './lib/synth.js';
import { benchVault, vaultSize, type BenchContext } from './lib/context.js';
import { BENCH_SERVER } from './stdio.js';

const n = (x: number) => x.toLocaleString('en');
/** Pause before each timed search while indexing (and without, alike). */
const THINK_MS = 200;

/** Queries no call has embedded before: every timed search embeds its query (search keeps query vectors in an LRU). */
function freshQueries(count: number, seed: number): string[] {
  const rnd = prng(seed);
  const words = vocabulary().words;
  return Array.from({ length: count }, () => Array.from({ length: 4 + rnd.int(3) }, () => rnd.pick(words)).join(' '));
}

async function benchServer(dir: string, key: string, vault: string): Promise<StdioRpc> {
  const rpc = new StdioRpc(process.execPath, [...TSX, BENCH_SERVER, dir, key, vault]);
  await rpc.initialize();
  return rpc;
}

/** search_transcripts p95 while the indexer runs, against --no-index on the same store. */
export async function searchWhileIndexing(ctx: BenchContext): Promise<Row[]> {
  const chunks = ctx.small ? 2_000 : 10_000;
  const dir = join(ctx.tmp, 'live-indexing');
  const manifest = await generateStore(dir, {
    vaults: 1,
    entities: 200,
    meetings: ctx.small ? 20 : 100,
    chunks,
    vectors: true,
    seed: 18,
  });
  const db = openDb(dir);
  try {
    // Half the chunks lose their vector, and its copy in the embedding cache (or the indexer would reuse it
    // without embedding anything): the indexer embeds them with the real model while the searches run.
    db.exec(`DELETE FROM embedding_cache WHERE content_hash IN (SELECT content_hash FROM transcript_chunks WHERE id % 2 = 0)
             AND content_hash NOT IN (SELECT content_hash FROM transcript_chunks WHERE id % 2 = 1)`);
    db.exec('DELETE FROM chunk_embeddings WHERE chunk_id % 2 = 0');
  } finally {
    db.close();
  }
  const vault = manifest.vaults[0]!.id;
  const calls = ctx.small ? 100 : 300;
  const measure = async (indexing: boolean) => {
    const rpc = new StdioRpc(process.execPath, [
      BIN,
      'serve',
      '--data-dir',
      dir,
      '--key',
      manifest.ownerKey,
      ...(indexing ? [] : ['--no-index']),
    ]);
    try {
      await rpc.initialize();
      const queries = freshQueries(calls * 50, indexing ? 1 : 2);
      let next = 0;
      const search = () =>
        rpc.call('search_transcripts', { vault, query: queries[next++ % queries.length]! }) as Promise<{
          mode: string;
          vectorCoverage: { withVectors: number };
        }>;
      const first = await search(); // loads the query model
      if (indexing) {
        // Until the indexer has written its first batch, it is loading its model, not embedding.
        const deadline = Date.now() + 120_000;
        while (
          (await search()).vectorCoverage.withVectors === first.vectorCoverage.withVectors &&
          Date.now() < deadline
        )
          await new Promise((r) => setTimeout(r, 500));
      }
      for (let i = 0; i < 5; i++) await search();
      // A pause between calls, as between an agent's questions: the indexer embeds in them (back-to-back calls
      // from one client would leave a low-priority indexer no CPU at all on a busy machine).
      const before = (await search()).vectorCoverage.withVectors;
      const started = Date.now();
      const times: number[] = [];
      let last = { mode: first.mode, vectorCoverage: { withVectors: before } };
      for (let i = 0; i < calls; i++) {
        await new Promise((r) => setTimeout(r, THINK_MS));
        const t0 = process.hrtime.bigint();
        last = await search();
        times.push(ms(t0));
      }
      const minutes = (Date.now() - started) / 60_000;
      return { times, mode: last.mode, embedded: last.vectorCoverage.withVectors - before, minutes };
    } finally {
      await rpc.close();
    }
  };
  ctx.log('live: search_transcripts with --no-index');
  const quiet = await measure(false);
  ctx.log('live: search_transcripts while indexing');
  const busy = await measure(true);
  const size = `one vault of ${n(chunks)} chunks, ${n(chunks / 2)} with vectors at start (mode ${busy.mode}); ${calls} calls ${THINK_MS} ms apart, each query new`;
  return [
    row({
      metric: 'live.search_transcripts.indexing.p95',
      value: percentile(busy.times, 0.95),
      unit: 'ms',
      reference: { what: 'p95 on the same store served with --no-index', value: percentile(quiet.times, 0.95) },
      size,
      note: `the indexer embedded ${n(busy.embedded)} chunks during the timed calls (${(busy.embedded / busy.minutes).toFixed(0)}/min); p50 ${median(busy.times).toFixed(1)} ms vs ${median(quiet.times).toFixed(1)} ms`,
      target: '≤ 2× no-index p95',
      maxRatio: 2,
    }),
  ];
}

/** search p95 right after a write (add_task) against the warm p95, on the suite's store. */
export async function searchAfterWrite(ctx: BenchContext): Promise<Row[]> {
  const vault = benchVault(ctx);
  const rpc = await benchServer(ctx.dir, ctx.manifest.ownerKey, vault.id);
  try {
    const cases = (await readCases(rpc, ctx.manifest, vault.id)).filter(
      (c) => c.tool === 'search_transcripts' || c.tool === 'search_knowledge',
    );
    const calls = ctx.small ? 60 : 200;
    const rows: Row[] = [];
    let task = 0;
    const write = () => rpc.call('add_task', { vault: vault.id, title: `bench write ${task++}` });
    for (const c of cases) {
      ctx.log(`live: ${c.id} after a write`);
      for (let i = 0; i < Math.min(calls, 100); i++) await rpc.call(c.tool, c.args(i)); // warm: every query's vector is cached too (the cases cycle through 100)
      // Interleaved: a warm call, then a write and the timed call right after it.
      const warm: number[] = [];
      const afterWrite: number[] = [];
      for (let i = 0; i < calls; i++) {
        let t0 = process.hrtime.bigint();
        await rpc.call(c.tool, c.args(i));
        warm.push(ms(t0));
        await write();
        t0 = process.hrtime.bigint();
        await rpc.call(c.tool, c.args(i));
        afterWrite.push(ms(t0));
      }
      rows.push(
        row({
          metric: `live.${c.id}.after_write.p95`,
          value: percentile(afterWrite, 0.95),
          unit: 'ms',
          reference: { what: 'warm p95 (no write before the call)', value: percentile(warm, 0.95) },
          size: `${vaultSize(vault)}; ${calls} calls, each right after an add_task`,
          target: '≤ 1.5× warm p95',
          maxRatio: 1.5,
        }),
      );
    }
    return rows;
  } finally {
    await rpc.close();
  }
}

/** search_knowledge p50 at three vault sizes against get_entity p50, and how it grows. */
export async function nameSearchScale(ctx: BenchContext): Promise<Row[]> {
  const sizes = ctx.small ? [2_000, 20_000] : [10_000, 50_000, 100_000];
  const calls = ctx.small ? 100 : 300;
  const p50s: { entities: number; search: number; get: number }[] = [];
  for (const entities of sizes) {
    const dir = join(ctx.tmp, `live-names-${entities}`);
    ctx.log(`live: search_knowledge at ${n(entities)} entities`);
    const manifest = await generateStore(dir, {
      vaults: 1,
      entities,
      meetings: 10,
      chunks: 100,
      vectors: false,
      seed: 18,
    });
    const vault = manifest.vaults[0]!.id;
    const rpc = await benchServer(dir, manifest.ownerKey, vault);
    try {
      const cases = await readCases(rpc, manifest, vault);
      const search = cases.find((c) => c.id === 'search_knowledge')!;
      const get = cases.find((c) => c.id === 'get_entity')!;
      const [s, g] = await timeInterleaved(
        calls,
        20,
        (i) => rpc.call(search.tool, search.args(i)),
        (i) => rpc.call(get.tool, get.args(i)),
      );
      p50s.push({ entities, search: median(s), get: median(g) });
    } finally {
      await rpc.close();
    }
  }
  const first = p50s[0]!;
  const last = p50s.at(-1)!;
  const exponent = Math.log(last.search / first.search) / Math.log(last.entities / first.entities);
  return [
    ...p50s.map((p) =>
      row({
        metric: `live.search_knowledge.${p.entities / 1000}k.p50`,
        value: p.search,
        unit: 'ms',
        reference: { what: 'get_entity p50, interleaved', value: p.get },
        size: `one vault of ${n(p.entities)} entities; ${calls} calls (exact, prefix and one-typo names)`,
        ...(p.entities === 50_000 ? { target: '≤ 10× get_entity p50 (at 50,000 entities)', maxRatio: 10 } : {}),
      }),
    ),
    row({
      metric: 'live.search_knowledge.growth_exponent',
      value: exponent,
      unit: '',
      size: `p50 from ${n(first.entities)} to ${n(last.entities)} entities (${first.search.toFixed(2)} → ${last.search.toFixed(2)} ms)`,
      target: '< 1 (sublinear)',
      maxValue: 0.999,
    }),
  ];
}

/** Chunks of ~1,200 characters (speaker lines, as stored) embedded by the default model as the indexer does. */
export async function embeddingThroughput(ctx: BenchContext): Promise<Row[]> {
  const count = ctx.small ? 16 : 64;
  const rnd = prng(18);
  const text = new TextMaker(rnd, vocabulary().words);
  const chunks = Array.from({ length: count }, () => {
    let chunk = '';
    while (chunk.length < 1_100) chunk += `${chunk ? '\n' : ''}${text.title(1)}: ${text.prose(120 + rnd.int(300))}`;
    return chunk;
  });
  const windows = chunks.reduce((sum, c) => sum + embeddingWindows(c, 450).length, 0);
  const embedder = createDefaultEmbedder();
  try {
    // Every background worker loaded (one warm-up text each) before the clock starts.
    await embedder.embed(
      Array.from({ length: indexWorkers() }, () => 'warm-up'),
      { background: true },
    );
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < count; i += INDEX_BATCH_CHUNKS)
      await embedChunkTexts(embedder, chunks.slice(i, i + INDEX_BATCH_CHUNKS), undefined, true); // as the indexer does
    const wall = ms(t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const avg = chunks.reduce((sum, c) => sum + c.length, 0) / count;
    return [
      row({
        metric: 'live.embedding.chunks_per_s',
        value: count / wall,
        unit: 'chunks/s',
        size: `${count} chunks of ~${avg.toFixed(0)} characters, ${(windows / count).toFixed(1)} windows each, ${INDEX_BATCH_CHUNKS} chunks per call as the indexer embeds them (default model, ${indexWorkers()} background workers on ${availableParallelism()} cores)`,
        note: `${(count / cpuSeconds).toFixed(1)} chunks per CPU second (the process's CPU time: on a shared machine the wall-clock rate is what the model got of a core)`,
        target: '≥ 30 chunks/s',
      }),
    ];
  } finally {
    await embedder.close();
  }
}

export async function liveRows(ctx: BenchContext): Promise<Row[]> {
  return [
    ...(await searchAfterWrite(ctx)),
    ...(await nameSearchScale(ctx)),
    ...(await searchWhileIndexing(ctx)),
    ...(await embeddingThroughput(ctx)),
  ];
}
