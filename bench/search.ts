/**
 * `npm run bench:search`: transcript search quality and speed.
 *  1. QMSum validation split (../shared/data/qmsum-val): each meeting becomes a meeting of one vault; every
 *     specific query runs through the search; a hit is a returned excerpt whose turns overlap a labelled span.
 *  2. The paraphrase set (bench/paraphrase-set.json) over the shipped fixture vaults.
 * For both: hit@1, hit@5 and MRR@10 of BM25 alone, vectors alone and the hybrid, plus a small grid of
 * fusion weights (what FUSION in src/search/transcripts.ts was chosen from). Embedding throughput and
 * per-query latency are printed too. The store is kept in bench/.cache/ so a re-run reuses the vectors.
 *   --scale N   also build a synthetic corpus of N chunks over 20 vaults and time searches in one vault
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDb, type Db } from '../src/store/db.js';
import { indexMeetingChunks } from '../src/search/chunk-index.js';
import { indexPending } from '../src/search/vectors.js';
import { FUSION, searchChunks, type SearchMode } from '../src/search/transcripts.js';
import { createDefaultEmbedder } from '../src/search/embedder/index.js';
import { readVaultDir } from '../src/vault-format/read.js';
import { loadFixture } from '../src/vault-format/load.js';

const ROOT = resolve(import.meta.dirname, '..');
const QMSUM = resolve(ROOT, '..', 'shared', 'data', 'qmsum-val');
const CACHE = join(ROOT, 'bench', '.cache', `search-${process.env.VAULT_TOOLS_CHUNK_TARGET ?? 'default'}-windowed`);
const QMSUM_VAULT = 'qmsum-val';

interface Labelled {
  vault: string;
  query: string;
  answers: { meetingId: string; turns: [number, number] }[];
  kind: string;
}

function loadQmsum(db: Db): Labelled[] {
  const files = readdirSync(QMSUM).filter((f) => f.endsWith('.json')).sort();
  const queries: Labelled[] = [];
  const have = db.prepare('SELECT count(*) FROM meetings WHERE vault_id = ?').pluck().get(QMSUM_VAULT) as number;
  db.transaction(() => {
    if (have !== files.length) {
      db.prepare('DELETE FROM vaults WHERE id = ?').run(QMSUM_VAULT);
      db.prepare("INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, 'QMSum validation', 'import', ?)").run(QMSUM_VAULT, new Date().toISOString());
    }
    for (const f of files) {
      const id = f.replace(/\.json$/, '');
      const data = JSON.parse(readFileSync(join(QMSUM, f), 'utf8')) as {
        meeting_transcripts: { speaker: string; content: string }[];
        specific_query_list: { query: string; relevant_text_span: [string, string][] }[];
      };
      if (have !== files.length) {
        db.prepare(
          "INSERT INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES (?, ?, ?, '2026-01-01T00:00:00Z', '[]', 'extracted', '2026-01-01T00:00:00Z')",
        ).run(QMSUM_VAULT, id, id);
        const turn = db.prepare('INSERT INTO transcript_turns (vault_id, meeting_id, turn_index, speaker, text, at_seconds) VALUES (?, ?, ?, ?, ?, NULL)');
        data.meeting_transcripts.forEach((t, i) => turn.run(QMSUM_VAULT, id, i, t.speaker, t.content));
        indexMeetingChunks(db, QMSUM_VAULT, id);
      }
      for (const q of data.specific_query_list) {
        queries.push({
          vault: QMSUM_VAULT,
          query: q.query,
          kind: 'qmsum',
          answers: q.relevant_text_span.map(([s, e]) => ({ meetingId: id, turns: [Number(s), Number(e)] as [number, number] })),
        });
      }
    }
  })();
  return queries;
}

function loadParaphrase(db: Db): Labelled[] {
  for (const dir of ['northwind', 'meridian']) loadFixture(db, readVaultDir(join(ROOT, 'fixtures', dir)), { origin: 'fixture' });
  const set = JSON.parse(readFileSync(join(ROOT, 'bench', 'paraphrase-set.json'), 'utf8')) as { queries: (Labelled & { id: string })[] };
  return set.queries;
}

interface Scores {
  hit1: number;
  hit5: number;
  mrr10: number;
  n: number;
  msPerQuery: number;
}

async function evaluate(db: Db, queries: Labelled[], mode: SearchMode, embedder: ReturnType<typeof createDefaultEmbedder>, weights = FUSION): Promise<Scores> {
  const rank = db.prepare('SELECT meeting_id, turn_start, turn_end FROM transcript_chunks WHERE id = ?');
  let hit1 = 0;
  let hit5 = 0;
  let mrr = 0;
  const t0 = process.hrtime.bigint();
  for (const q of queries) {
    const { hits } = await searchChunks(db, q.vault, q.query, { limit: 10, mode, embedder, weights });
    const first = hits.findIndex((h) => {
      const c = rank.get(h.chunkId) as { meeting_id: string; turn_start: number; turn_end: number };
      return q.answers.some((a) => a.meetingId === c.meeting_id && c.turn_start <= a.turns[1] && c.turn_end >= a.turns[0]);
    });
    if (first === 0) hit1++;
    if (first >= 0 && first < 5) hit5++;
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = queries.length;
  return { hit1: hit1 / n, hit5: hit5 / n, mrr10: mrr / n, n, msPerQuery: Number(process.hrtime.bigint() - t0) / 1e6 / n };
}

const fmt = (s: Scores) => `hit@1 ${s.hit1.toFixed(3)}  hit@5 ${s.hit5.toFixed(3)}  MRR@10 ${s.mrr10.toFixed(3)}  (${s.n} queries, ${s.msPerQuery.toFixed(1)} ms/query)`;

async function main() {
  mkdirSync(CACHE, { recursive: true });
  const db = openDb(CACHE);
  const embedder = createDefaultEmbedder();
  const sets: [string, Labelled[]][] = [];
  if (existsSync(QMSUM)) sets.push(['QMSum val (specific queries)', loadQmsum(db)]);
  else process.stderr.write(`no ${QMSUM}: skipping QMSum\n`);
  const para = loadParaphrase(db);
  sets.push(['paraphrase set: paraphrase', para.filter((q) => q.kind === 'paraphrase')]);
  sets.push(['paraphrase set: lexical', para.filter((q) => q.kind === 'lexical')]);

  const t0 = Date.now();
  let last = 0;
  const indexed = await indexPending(db, embedder, {
    batchSize: 32,
    onProgress: (p) => {
      if (Date.now() - last > 5000) {
        last = Date.now();
        process.stderr.write(`embedding: ${p.done}/${p.total}\n`);
      }
    },
  });
  const seconds = (Date.now() - t0) / 1000;
  const lines = [
    `embedder ${embedder.id}: ${indexed.embedded} chunks embedded, ${indexed.reused} reused from cache, in ${seconds.toFixed(1)} s` +
      (indexed.embedded ? ` (${(indexed.embedded / seconds).toFixed(1)} chunks/s)` : ''),
  ];
  for (const [name, queries] of sets) {
    lines.push(`\n${name}`);
    lines.push(`  BM25 alone     ${fmt(await evaluate(db, queries, 'words', embedder))}`);
    lines.push(`  vectors alone  ${fmt(await evaluate(db, queries, 'meaning', embedder))}`);
    lines.push(`  hybrid (shipped: words ${FUSION.words}, meaning ${FUSION.meaning}, k ${FUSION.k})  ${fmt(await evaluate(db, queries, 'hybrid', embedder))}`);
    if (process.argv.includes('--grid')) {
      for (const meaning of [0.5, 0.75, 1.5, 2]) {
        for (const k of [10, 60]) {
          const s = await evaluate(db, queries, 'hybrid', embedder, { ...FUSION, meaning, k });
          lines.push(`    grid meaning ${meaning} k ${k}: ${fmt(s)}`);
        }
      }
    }
  }
  lines.push('\n(ms/query: search keeps query vectors in an LRU, so after "vectors alone" the hybrid rows reuse them; latency is measured by bench:search-scale)');
  const size = statSync(join(CACHE, 'vault-tools.db')).size;
  lines.push(`\nstore: ${(size / 1e6).toFixed(1)} MB (${db.prepare('SELECT count(*) FROM transcript_chunks').pluck().get()} chunks)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  await embedder.close();
  db.close();
}

await main();
