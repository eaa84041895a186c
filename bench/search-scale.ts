/**
 * `npm run bench:search-scale -- [--chunks N] [--vaults V]` (default 1,000,000 chunks over 20 vaults):
 * builds a synthetic store of transcript chunks with words (a QMSum-derived vocabulary, so BM25 has
 * realistic postings) and random unit vectors of 512 dims (embedding a million chunks with the CPU model
 * would take hours; embedding throughput on real text is measured by bench:search), then times
 * search_transcripts-style searches within one vault: words, meaning and hybrid (query embedded by the
 * real model). Prints build time, database size and p50/p95 latency.
 */
import { readdirSync, readFileSync, rmSync, statSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDb } from '../src/store/db.js';
import { contentHash, vaultToken } from '../src/search/chunk-index.js';
import { ensureVectorTable, VECTOR_TABLE } from '../src/search/vectors.js';
import { searchChunks, type SearchMode } from '../src/search/transcripts.js';
import { createDefaultEmbedder } from '../src/search/embedder/index.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CHUNKS = arg('--chunks', 1_000_000);
const VAULTS = arg('--vaults', 20);
const DIMS = 512;
const ROOT = resolve(import.meta.dirname, '..');
const DIR = join(ROOT, 'bench', '.cache', `scale-${CHUNKS}`);
const QMSUM = resolve(ROOT, '..', 'shared', 'data', 'qmsum-val');

// A deterministic generator, so two runs build the same corpus.
let seed = 42;
const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);

function vocabulary(): string[] {
  const words = new Map<string, number>();
  for (const f of readdirSync(QMSUM).filter((x) => x.endsWith('.json'))) {
    const d = JSON.parse(readFileSync(join(QMSUM, f), 'utf8')) as { meeting_transcripts: { content: string }[] };
    for (const t of d.meeting_transcripts) for (const w of t.content.toLowerCase().match(/[a-z]{3,}/g) ?? []) words.set(w, (words.get(w) ?? 0) + 1);
  }
  // Repeat words by frequency (capped) so common words are common, as in speech.
  return [...words].flatMap(([w, n]) => Array(Math.min(n, 50)).fill(w) as string[]);
}

function randomUnitVector(): Buffer {
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    v[i] = rand() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMS; i++) v[i]! /= norm;
  return Buffer.from(v.buffer);
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function main() {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const db = openDb(DIR);
  const vocab = vocabulary();
  const embedder = createDefaultEmbedder();
  await embedder.embed(['warm-up']);
  ensureVectorTable(db, { id: embedder.id, dims: DIMS });
  const perVault = Math.ceil(CHUNKS / VAULTS);
  const CHUNKS_PER_MEETING = 100;
  const t0 = Date.now();
  const insertVault = db.prepare("INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, ?, 'import', '2026-01-01T00:00:00Z')");
  const insertMeeting = db.prepare(
    "INSERT INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES (?, ?, ?, ?, '[]', 'extracted', ?)",
  );
  const insertChunk = db.prepare(
    `INSERT INTO transcript_chunks (vault_id, meeting_id, chunk_index, turn_start, turn_end, speakers_json, start_seconds, text, content_hash, vault_token)
     VALUES (?, ?, ?, ?, ?, '["Speaker A","Speaker B"]', ?, ?, ?, ?)`,
  );
  const insertVector = db.prepare(`INSERT INTO ${VECTOR_TABLE} (rowid, vault_id, embedding) VALUES (?, ?, ?)`);
  const mark = db.prepare('INSERT INTO chunk_embeddings (chunk_id, embedder, content_hash) VALUES (?, ?, ?)');
  let made = 0;
  for (let v = 0; v < VAULTS; v++) {
    const vaultId = `scale-vault-${String(v).padStart(2, '0')}`;
    const token = vaultToken(vaultId);
    insertVault.run(vaultId, `Scale vault ${v}`);
    for (let start = 0; start < perVault && made < CHUNKS; start += 10_000) {
      db.transaction(() => {
        for (let i = start; i < Math.min(start + 10_000, perVault) && made < CHUNKS; i++, made++) {
          const meetingId = `m${Math.floor(i / CHUNKS_PER_MEETING)}`;
          const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / CHUNKS_PER_MEETING) * 3_600_000).toISOString();
          if (i % CHUNKS_PER_MEETING === 0) insertMeeting.run(vaultId, meetingId, `Meeting ${meetingId}`, at, at);
          const words = Array.from({ length: 60 + Math.floor(rand() * 30) }, () => vocab[Math.floor(rand() * vocab.length)]!);
          const text = `Speaker A: ${words.slice(0, 40).join(' ')}.\nSpeaker B: ${words.slice(40).join(' ')}.`;
          const hash = contentHash(text);
          const { lastInsertRowid } = insertChunk.run(vaultId, meetingId, i % CHUNKS_PER_MEETING, i * 3, i * 3 + 2, (i % CHUNKS_PER_MEETING) * 30, text, hash, token);
          insertVector.run(BigInt(lastInsertRowid), vaultId, randomUnitVector());
          mark.run(lastInsertRowid, embedder.id, hash);
        }
      })();
      if (made % 100_000 === 0) process.stderr.write(`built ${made}/${CHUNKS} chunks (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  }
  const buildSeconds = (Date.now() - t0) / 1000;
  db.pragma('wal_checkpoint(TRUNCATE)');
  const size = statSync(join(DIR, 'vault-tools.db')).size;

  const vault = 'scale-vault-07';
  const queries = Array.from({ length: 60 }, () => Array.from({ length: 6 }, () => vocab[Math.floor(rand() * vocab.length)]!).join(' '));
  const lines = [
    `corpus: ${made.toLocaleString('en')} chunks over ${VAULTS} vaults (${perVault.toLocaleString('en')} per vault), 512-dim vectors`,
    `build: ${buildSeconds.toFixed(0)} s (words + vectors, ${(made / buildSeconds).toFixed(0)} chunks/s); database ${(size / 1e9).toFixed(2)} GB`,
  ];
  for (const mode of ['words', 'meaning', 'hybrid'] as SearchMode[]) {
    const times: number[] = [];
    for (const [i, q] of queries.entries()) {
      const t = process.hrtime.bigint();
      await searchChunks(db, vault, q, { limit: 5, mode, embedder });
      if (i >= 10) times.push(Number(process.hrtime.bigint() - t) / 1e6); // first 10: warm-up
    }
    lines.push(`search in one vault (${mode}${mode !== 'words' ? ', query embedded by the model' : ''}): p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms (${times.length} queries)`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  await embedder.close();
  db.close();
}

await main();
