/**
 * `npm run bench:search-scale -- [--chunks N] [--vaults V] [--queries Q] [--rounds R] [--rebuild]`
 * (default 1,000,000 chunks over 20 vaults, 200 timed queries per mode, 2 rounds): a synthetic store of
 * transcript chunks with words (a QMSum-derived vocabulary, so BM25 has realistic postings) and random unit
 * vectors of 512 dims (embedding a million chunks with the CPU model would take hours; recall on REAL vectors
 * is measured by bench/search-recall.ts), then times searches within one vault of 50,000 chunks:
 *   - words, meaning, hybrid: `searchChunks` as the tool calls it (queries embedded by the real model);
 *   - tool: the whole `search_transcripts` run (hybrid + excerpts + vector coverage), what an agent waits for,
 *     minus the MCP transport; and the same with three alternatives (issue 42: four phrasings searched and fused);
 *   - the parts: query embedding alone, BM25 alone, vector search alone (a vector given), and what the fusion adds
 *     (the words' best chunks' vectors read, every candidate re-scored against the moved query);
 *   - filtered hybrid searches (meeting, date, speaker).
 * Prints p50 / p95 / p99 / max per mode and round, and recall of the vector search's top 50 against an exact
 * scan (random vectors: the hardest case for binary codes, see docs/search.md).
 *
 * The store is kept in bench/.cache/scale-N and reused by the next run (--rebuild builds it afresh). A store
 * built by an older vault-tools is upgraded on open (migrations, vector table conversion, word indexes): the
 * time each step took is printed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { openDb } from '../src/store/db.js';
import { contentHash } from '../src/store/embedding-text.js';
import { vaultToken } from '../src/search/word-index.js';
import {
  ensureVectorTable,
  nearestChunks,
  rescore,
  storedVectors,
  VECTOR_TABLE,
  vectorIndexOwner,
} from '../src/search/vectors.js';
import { storeVectors } from '../src/search/vector-indexing.js';
import { ensureWordIndex, vaultsWithChunks } from '../src/search/word-index.js';
import { FEEDBACK, feedbackVector, searchChunks, wordRanking, type SearchMode } from '../src/search/transcripts.js';
import { createDefaultEmbedder } from '../src/search/embedder/index.js';
import searchTranscripts from '../src/catalog/knowledge/search-transcripts.js';
import type { ToolContext } from '../src/catalog/define.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CHUNKS = arg('--chunks', 1_000_000);
const VAULTS = arg('--vaults', 20);
const QUERIES = arg('--queries', 200);
const ROUNDS = arg('--rounds', 2);
const WARMUP = 10;
const DIMS = 512;
const ROOT = resolve(import.meta.dirname, '..');
const DIR = join(ROOT, 'bench', '.cache', `scale-${CHUNKS}`);
const QMSUM = resolve(ROOT, '..', 'shared', 'data', 'qmsum-val');

/** A deterministic generator, so two runs build the same corpus and ask the same queries. */
function generator(seed: number) {
  return () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function vocabulary(): string[] {
  const words = new Map<string, number>();
  for (const f of readdirSync(QMSUM).filter((x) => x.endsWith('.json'))) {
    const d = JSON.parse(readFileSync(join(QMSUM, f), 'utf8')) as { meeting_transcripts: { content: string }[] };
    for (const t of d.meeting_transcripts)
      for (const w of t.content.toLowerCase().match(/[a-z]{3,}/g) ?? []) words.set(w, (words.get(w) ?? 0) + 1);
  }
  // Repeat words by frequency (capped) so common words are common, as in speech.
  return [...words].flatMap(([w, n]) => Array(Math.min(n, 50)).fill(w) as string[]);
}

function randomUnitVector(rand: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    v[i] = rand() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMS; i++) v[i]! /= norm;
  return v;
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const stats = (xs: number[] & { cpuMs?: number }) =>
  `p50 ${pct(xs, 0.5).toFixed(1).padStart(6)}   p95 ${pct(xs, 0.95).toFixed(1).padStart(6)}   p99 ${pct(xs, 0.99).toFixed(1).padStart(6)}   max ${Math.max(
    ...xs,
  )
    .toFixed(1)
    .padStart(6)}  ms` + (xs.cpuMs === undefined ? '' : `   cpu ${xs.cpuMs.toFixed(1)} ms/call`);

/**
 * Times `run` over `queries` after WARMUP untimed calls. Every series gets queries of its own (see `fresh` in
 * main): search keeps query vectors in an LRU, and a query seen before would skip the model.
 */
async function timed(
  queries: string[],
  run: (q: string, i: number) => unknown,
): Promise<number[] & { cpuMs?: number }> {
  const times: number[] & { cpuMs?: number } = [];
  let cpu = 0;
  for (let i = 0; i < queries.length; i++) {
    const c = process.cpuUsage();
    const t = process.hrtime.bigint();
    await run(queries[i]!, i);
    if (i >= WARMUP) {
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      const used = process.cpuUsage(c);
      cpu += (used.user + used.system) / 1000;
    }
  }
  // CPU time of the whole process (the embedder's worker included) per call: what the call costs the machine,
  // less sensitive than wall time to other processes sharing the cores.
  times.cpuMs = cpu / (queries.length - WARMUP || 1);
  return times;
}

async function main() {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const rebuild = process.argv.includes('--rebuild') || !existsSync(join(DIR, 'vault-tools.db'));
  if (rebuild) rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const vocab = vocabulary();
  const embedder = createDefaultEmbedder();
  await embedder.embed(['warm-up']);

  let t = Date.now();
  const db = openDb(DIR); // migrates a store built by an older version
  if (!rebuild) say(`reused store ${DIR}: opened (migrations) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const perVault = Math.ceil(CHUNKS / VAULTS);
  if (rebuild) {
    const rand = generator(42);
    ensureVectorTable(db, { id: embedder.id, dims: DIMS });
    const CHUNKS_PER_MEETING = 100;
    const t0 = Date.now();
    const insertVault = db.prepare(
      "INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, ?, 'import', '2026-01-01T00:00:00Z')",
    );
    const insertMeeting = db.prepare(
      "INSERT INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES (?, ?, ?, ?, '[]', 'extracted', ?)",
    );
    const insertChunk = db.prepare(
      `INSERT INTO transcript_chunks (vault_id, meeting_id, chunk_index, turn_start, turn_end, speakers_json, start_seconds, text, content_hash, vault_token)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let made = 0;
    for (let v = 0; v < VAULTS; v++) {
      const vaultId = `scale-vault-${String(v).padStart(2, '0')}`;
      const token = vaultToken(vaultId);
      insertVault.run(vaultId, `Scale vault ${v}`);
      ensureWordIndex(db, vaultId); // as an import does: the vault's word index, whose triggers index the rows below
      for (let start = 0; start < perVault && made < CHUNKS; start += 10_000) {
        db.transaction(() => {
          const vectors: Parameters<typeof storeVectors>[2] = [];
          for (let i = start; i < Math.min(start + 10_000, perVault) && made < CHUNKS; i++, made++) {
            const meetingId = `m${Math.floor(i / CHUNKS_PER_MEETING)}`;
            const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / CHUNKS_PER_MEETING) * 3_600_000).toISOString();
            if (i % CHUNKS_PER_MEETING === 0) insertMeeting.run(vaultId, meetingId, `Meeting ${meetingId}`, at, at);
            const words = Array.from(
              { length: 60 + Math.floor(rand() * 30) },
              () => vocab[Math.floor(rand() * vocab.length)]!,
            );
            const text = `Speaker A: ${words.slice(0, 40).join(' ')}.\nSpeaker ${i % 7 === 0 ? 'C' : 'B'}: ${words.slice(40).join(' ')}.`;
            const hash = contentHash(text);
            const speakers = JSON.stringify(['Speaker A', i % 7 === 0 ? 'Speaker C' : 'Speaker B']);
            const { lastInsertRowid } = insertChunk.run(
              vaultId,
              meetingId,
              i % CHUNKS_PER_MEETING,
              i * 3,
              i * 3 + 2,
              speakers,
              (i % CHUNKS_PER_MEETING) * 30,
              text,
              hash,
              token,
            );
            vectors.push({
              chunkId: Number(lastInsertRowid),
              vaultId,
              contentHash: hash,
              vector: randomUnitVector(rand),
            });
          }
          storeVectors(db, embedder.id, vectors); // bits in the vector table, floats in the embedding cache
        })();
        if (made % 100_000 === 0)
          process.stderr.write(`built ${made}/${CHUNKS} chunks (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
      }
    }
    const buildSeconds = (Date.now() - t0) / 1000;
    say(`build: ${buildSeconds.toFixed(0)} s (words + vectors, ${(made / buildSeconds).toFixed(0)} chunks/s)`);
  } else {
    t = Date.now();
    const layout = vectorIndexOwner(db)?.layout;
    ensureVectorTable(db, { id: embedder.id, dims: DIMS });
    if (layout !== vectorIndexOwner(db)?.layout)
      say(`vector table converted to sign bits in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
    let built = 0;
    for (const v of vaultsWithChunks(db)) {
      const exists = db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(`transcript_words_${vaultToken(v)}`);
      ensureWordIndex(db, v);
      if (!exists) built++;
    }
    if (built) say(`word indexes built for ${built} vaults in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const size = statSync(join(DIR, 'vault-tools.db')).size;
  const total = db.prepare('SELECT count(*) FROM transcript_chunks').pluck().get() as number;
  const vault = 'scale-vault-07';
  const inVault = db.prepare('SELECT count(*) FROM transcript_chunks WHERE vault_id = ?').pluck().get(vault) as number;
  say(
    `corpus: ${total.toLocaleString('en')} chunks over ${VAULTS} vaults; searched vault ${vault}: ${inVault.toLocaleString('en')} chunks, 512-dim vectors; database ${(size / 1e9).toFixed(2)} GB`,
  );

  const qrand = generator(7);
  /** WARMUP + n queries never asked before in this run: 6 words drawn from the vocabulary. */
  const fresh = (n = QUERIES) =>
    Array.from({ length: WARMUP + n }, () =>
      Array.from({ length: 6 }, () => vocab[Math.floor(qrand() * vocab.length)]!).join(' '),
    );
  const ctx = { db, vault: { id: vault, name: vault }, embedder } as unknown as ToolContext;
  const meeting = db
    .prepare('SELECT id FROM meetings WHERE vault_id = ? ORDER BY started_at LIMIT 1 OFFSET 200')
    .pluck()
    .get(vault) as string;

  // Query vectors for the parts measured without the model (embedded once here).
  const vectorQueries = fresh();
  const vectors: Float32Array[] = [];
  for (const q of vectorQueries) vectors.push((await embedder.embed([q]))[0]!);
  // Each query's two halves, for timing what the fusion adds on top of them.
  const halves = vectorQueries.map((q, i) => ({
    words: wordRanking(db, vault, q, {}, 50),
    near: nearestChunks(db, vault, vectors[i]!, 50).map((n) => n.id),
  }));

  say(
    `\nlatency in one vault, ${QUERIES} distinct queries per row after ${WARMUP} warm-up (ms); load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}:`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    say(`round ${round} (load average ${loadavg()[0]!.toFixed(1)})`);
    for (const mode of ['words', 'meaning', 'hybrid'] as SearchMode[]) {
      const times = await timed(fresh(), (q) => searchChunks(db, vault, q, { limit: 5, mode, embedder }));
      say(`  ${`${mode}${mode === 'words' ? '' : ' (query embedded)'}`.padEnd(42)} ${stats(times)}`);
    }
    const tool = await timed(fresh(), (q) => searchTranscripts.run({ query: q, limit: 5 }, ctx));
    say(`  ${'search_transcripts tool, end to end'.padEnd(42)} ${stats(tool)}`);
    // Issue 42: the query and three alternatives (each as new as the query), searched and fused.
    const alternatives = [fresh(), fresh(), fresh()];
    const phrased = await timed(fresh(), (q, i) =>
      searchTranscripts.run({ query: q, alternatives: alternatives.map((a) => a[i]!), limit: 5 }, ctx),
    );
    say(`  ${'  same, with 3 alternatives'.padEnd(42)} ${stats(phrased)}`);
    const embed = await timed(fresh(), (q) => embedder.embed([q]));
    say(`  ${'  part: query embedding (worker round trip)'.padEnd(42)} ${stats(embed)}`);
    const batch = [fresh(), fresh(), fresh()];
    const embed4 = await timed(fresh(), (q, i) => embedder.embed([q, ...batch.map((b) => b[i]!)]));
    say(`  ${'  part: 4 phrasings embedded in one batch'.padEnd(42)} ${stats(embed4)}`);
    const bm25 = await timed(fresh(), (q) => wordRanking(db, vault, q, {}, 50));
    say(`  ${'  part: BM25 top 50'.padEnd(42)} ${stats(bm25)}`);
    const knn = await timed(vectorQueries, (_, i) => nearestChunks(db, vault, vectors[i]!, 50));
    say(`  ${'  part: vector top 50 (bits + re-score)'.padEnd(42)} ${stats(knn)}`);
    const feedback = await timed(vectorQueries, (_, i) => {
      const { words, near } = halves[i]!;
      const moved = feedbackVector(vectors[i]!, storedVectors(db, words.slice(0, FEEDBACK.chunks), 512));
      return rescore(db, moved, [...new Set([...near, ...words])], 100);
    });
    say(`  ${'  part: feedback + union re-score (fusion)'.padEnd(42)} ${stats(feedback)}`);
  }
  say('filtered hybrid searches (tool, end to end):');
  for (const [name, args] of [
    ['meetingId', { meetingId: meeting }],
    ['after (last ~14% of meetings)', { after: '2026-01-19T00:00:00Z' }],
    ['speaker (in 1 of 7 chunks)', { speaker: 'speaker c' }],
  ] as const) {
    const times = await timed(fresh(Math.min(QUERIES, 50)), (q) =>
      searchTranscripts.run({ query: q, limit: 5, ...args }, ctx),
    );
    say(`  ${name.padEnd(42)} ${stats(times)}`);
  }

  // Recall of the vector top 50 against an exact scan of the vault's float vectors (in JS).
  const floats = db
    .prepare(
      `SELECT c.id, e.vector FROM transcript_chunks c JOIN embedding_cache e ON e.embedder = ? AND e.content_hash = c.content_hash WHERE c.vault_id = ?`,
    )
    .raw()
    .all(embedder.id, vault) as [number, Buffer][];
  const ids = floats.map(([id]) => id);
  const matrix = new Float32Array(floats.length * DIMS);
  floats.forEach(([, b], i) => matrix.set(new Float32Array(Uint8Array.from(b).buffer), i * DIMS));
  let r10 = 0;
  let r50 = 0;
  const n = Math.min(50, vectors.length);
  for (let q = 0; q < n; q++) {
    const v = vectors[q]!;
    const scores = new Float32Array(ids.length);
    for (let r = 0; r < ids.length; r++) {
      let dot = 0;
      for (let d = 0; d < DIMS; d++) dot += matrix[r * DIMS + d]! * v[d]!;
      scores[r] = dot;
    }
    const exact = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).map((r) => ids[r]!);
    const got = nearestChunks(db, vault, v, 50).map((x) => x.id);
    const e10 = new Set(exact.slice(0, 10));
    const e50 = new Set(exact.slice(0, 50));
    r10 += got.slice(0, 10).filter((x) => e10.has(x)).length / 10;
    r50 += got.filter((x) => e50.has(x)).length / 50;
  }
  say(
    `vector search vs exact scan (${n} queries, random vectors: worst case): recall@10 ${(r10 / n).toFixed(3)}, recall@50 ${(r50 / n).toFixed(3)}`,
  );
  say(`(${VECTOR_TABLE}: ${JSON.stringify(vectorIndexOwner(db))})`);
  await embedder.close();
  db.close();
}

await main();
