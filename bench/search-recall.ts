/**
 * `npx tsx bench/search-recall.ts [--texts N]`: recall of the quantised vector search
 * against an exact float scan, on REAL embeddings of the default model at the scale of one large vault.
 *
 * The corpus is cut from the QMSum validation transcripts (../shared/data/qmsum-val): every turn, every
 * sentence and overlapping windows of 150 and 300 characters, about 50,000 texts, embedded once by USE lite and
 * cached in bench/.cache/recall-*.f32 (the first run takes a while: ~30 min on one core). Queries are QMSum's
 * 237 specific queries, embedded by the same model. The vectors go into a store through the production code
 * (one vault), and `nearestChunks` (binary codes + float re-score, see src/search/vectors.ts) is compared with
 * an exact cosine scan in JS: recall@10 and recall@50 of its top 50, for several candidate counts, plus its
 * latency. The same is printed for the 1,855 real chunk vectors of the bench:search store when it exists.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDb, type Db } from '../src/store/db.js';
import { contentHash } from '../src/store/embedding-text.js';
import { vaultToken } from '../src/search/word-index.js';
import { createDefaultEmbedder, USE_LITE_ID } from '../src/search/embedder/index.js';
import {
  ensureVectorTable,
  nearestChunks,
  OVERSAMPLE,
  VECTOR_LAYOUT,
  vectorIndexOwner,
} from '../src/search/vectors.js';
import { storeVectors } from '../src/search/vector-indexing.js';

const ROOT = resolve(import.meta.dirname, '..');
const QMSUM = resolve(ROOT, '..', 'shared', 'data', 'qmsum-val');
const CACHE = join(ROOT, 'bench', '.cache');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TEXTS = arg('--texts', 50_000);
const DIMS = 512;

interface Meeting {
  meeting_transcripts: { speaker: string; content: string }[];
  specific_query_list: { query: string }[];
}

function meetings(): Meeting[] {
  return readdirSync(QMSUM)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(QMSUM, f), 'utf8')) as Meeting);
}

/** Deterministic texts of varied length: turns, sentences, and sliding windows over each meeting. */
function corpusTexts(limit: number): string[] {
  const turns: string[] = [];
  const sentences: string[] = [];
  const windows: string[] = [];
  for (const m of meetings()) {
    const lines = m.meeting_transcripts.map((t) => `${t.speaker}: ${t.content}`);
    for (const l of lines) if (l.length > 40) turns.push(l.slice(0, 450));
    for (const t of m.meeting_transcripts)
      for (const s of t.content.split(/(?<=[.?!])\s+/)) if (s.length > 30) sentences.push(s);
    const all = lines.join('\n');
    for (const [size, stride] of [
      [300, 150],
      [150, 75],
    ] as const) {
      for (let at = 0; at + size <= all.length; at += stride) windows.push(all.slice(at, at + size));
    }
  }
  const seen = new Set<string>();
  const out: string[] = [];
  // Interleave the kinds so a smaller --texts still mixes them.
  for (let i = 0; out.length < limit && (i < turns.length || i < sentences.length || i < windows.length); i++) {
    for (const t of [turns[i], sentences[i], windows[i]]) {
      if (t && !seen.has(t) && out.length < limit) {
        seen.add(t);
        out.push(t);
      }
    }
  }
  return out;
}

async function embedAll(texts: string[], file: string): Promise<Float32Array> {
  const all = new Float32Array(texts.length * DIMS);
  let done = 0;
  if (existsSync(file)) {
    const have = new Float32Array(readFileSync(file).buffer.slice(0));
    all.set(have.subarray(0, Math.min(have.length, all.length)));
    done = Math.min(have.length, all.length) / DIMS;
  }
  if (done === texts.length) return all;
  const embedder = createDefaultEmbedder();
  const t0 = Date.now();
  for (let i = done; i < texts.length; i += 256) {
    const batch = texts.slice(i, i + 256);
    const vs = await embedder.embed(batch);
    vs.forEach((v, j) => all.set(v, (i + j) * DIMS));
    writeFileSync(file, Buffer.from(all.buffer, 0, (i + batch.length) * DIMS * 4));
    process.stderr.write(`embedded ${i + batch.length}/${texts.length} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  await embedder.close();
  return all;
}

/** Exact top-n ids by cosine (vectors are unit length: dot product), by brute force in JS. */
function exactTop(matrix: Float32Array, ids: number[], q: Float32Array, n: number): number[] {
  const scores = new Float32Array(ids.length);
  for (let r = 0; r < ids.length; r++) {
    let dot = 0;
    for (let d = 0; d < DIMS; d++) dot += matrix[r * DIMS + d]! * q[d]!;
    scores[r] = dot;
  }
  return [...scores.keys()]
    .sort((a, b) => scores[b]! - scores[a]!)
    .slice(0, n)
    .map((r) => ids[r]!);
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** Recall@10 / @50 of nearestChunks' top 50 for several candidate counts, and its latency. */
function measure(
  db: Db,
  vault: string,
  matrix: Float32Array,
  ids: number[],
  queries: Float32Array[],
  say: (s: string) => void,
) {
  const exact = queries.map((q) => exactTop(matrix, ids, q, 50));
  for (const candidates of [50, 100, 200, 300, 400, 600]) {
    let r10 = 0;
    let r50 = 0;
    const times: number[] = [];
    queries.forEach((q, i) => {
      const t = process.hrtime.bigint();
      const got = nearestChunks(db, vault, q, 50, { candidates }).map((n) => n.id);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      const e10 = new Set(exact[i]!.slice(0, 10));
      const e50 = new Set(exact[i]);
      r10 += got.slice(0, 10).filter((x) => e10.has(x)).length / 10;
      r50 += got.filter((x) => e50.has(x)).length / 50;
    });
    const n = queries.length;
    const shipped = candidates === 50 * OVERSAMPLE ? '  <- shipped' : '';
    say(
      `  ${String(candidates).padStart(3)} candidates: recall@10 ${(r10 / n).toFixed(3)}  recall@50 ${(r50 / n).toFixed(3)}   latency p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms${shipped}`,
    );
  }
}

async function main() {
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  mkdirSync(CACHE, { recursive: true });
  const texts = corpusTexts(TEXTS);
  const corpus = await embedAll(texts, join(CACHE, `recall-${texts.length}.f32`));
  const queryTexts = meetings().flatMap((m) => m.specific_query_list.map((q) => q.query));
  const qflat = await embedAll(queryTexts, join(CACHE, `recall-queries-${queryTexts.length}.f32`));
  const queries = queryTexts.map((_, i) => qflat.slice(i * DIMS, (i + 1) * DIMS));

  // One vault holding the corpus, written through the production code (bits in the table, floats in the cache).
  const dir = join(CACHE, `recall-store-${texts.length}`);
  rmSync(dir, { recursive: true, force: true });
  const db = openDb(dir);
  const vault = 'recall';
  db.prepare(
    "INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, 'recall', 'import', '2026-01-01T00:00:00Z')",
  ).run(vault);
  db.prepare(
    "INSERT INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES (?, 'm', 'm', '2026-01-01T00:00:00Z', '[]', 'extracted', '2026-01-01T00:00:00Z')",
  ).run(vault);
  ensureVectorTable(db, { id: USE_LITE_ID, dims: DIMS });
  const insert = db.prepare(
    `INSERT INTO transcript_chunks (vault_id, meeting_id, chunk_index, turn_start, turn_end, speakers_json, start_seconds, text, content_hash, vault_token)
     VALUES (?, 'm', ?, ?, ?, '[]', NULL, ?, ?, ?)`,
  );
  const ids: number[] = [];
  db.transaction(() => {
    const items: Parameters<typeof storeVectors>[2] = [];
    texts.forEach((text, i) => {
      const hash = contentHash(text);
      const id = Number(insert.run(vault, i, i, i, text, hash, vaultToken(vault)).lastInsertRowid);
      ids.push(id);
      items.push({ chunkId: id, vaultId: vault, contentHash: hash, vector: corpus.slice(i * DIMS, (i + 1) * DIMS) });
    });
    storeVectors(db, USE_LITE_ID, items);
  })();
  say(
    `real USE-lite vectors: ${texts.length.toLocaleString('en')} texts of QMSum val (turns, sentences, 150/300-char windows) in one vault; ${queries.length} QMSum queries`,
  );
  measure(db, vault, corpus, ids, queries, say);
  db.close();

  // The real chunk vectors of the bench:search store (1,200-character chunks, window-averaged), when built.
  const qstore = join(CACHE, 'search-default-windowed');
  if (existsSync(join(qstore, 'vault-tools.db'))) {
    const qdb = openDb(qstore);
    const rows = qdb
      .prepare(
        `SELECT c.id, e.vector FROM transcript_chunks c JOIN embedding_cache e ON e.embedder = ? AND e.content_hash = c.content_hash WHERE c.vault_id = 'qmsum-val' ORDER BY c.id`,
      )
      .raw()
      .all(USE_LITE_ID) as [number, Buffer][];
    if (vectorIndexOwner(qdb)?.layout === VECTOR_LAYOUT && rows.length) {
      const m = new Float32Array(rows.length * DIMS);
      rows.forEach(([, b], i) => m.set(new Float32Array(Uint8Array.from(b).buffer), i * DIMS));
      say(
        `\nbench:search store, vault qmsum-val: ${rows.length.toLocaleString('en')} real chunk vectors; the same queries`,
      );
      measure(
        qdb,
        'qmsum-val',
        m,
        rows.map(([id]) => id),
        queries,
        say,
      );
    }
    qdb.close();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
