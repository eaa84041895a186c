/**
 * `npm run bench:search`: transcript search quality, on TUNING sets (what search's choices may be made on) and
 * REPORT sets (never used to choose anything; issue 19):
 *  1. QMSum validation split (../shared/data/qmsum-val): each meeting becomes a meeting of one vault; every
 *     specific query runs through the search; a hit is a returned excerpt whose turns overlap a labelled span.
 *     Its meetings are split in two halves by a hash of their id (SPLIT_SALT, fixed before any measurement):
 *     the queries of one half tune, those of the other report. All 35 meetings stay in the searched vault.
 *  2. The paraphrase set (bench/paraphrase-set.json, tuning) and the report paraphrase set
 *     (bench/paraphrase-report.json, written by another hand before any tuning) over the shipped fixture vaults.
 * For each set: hit@1, hit@5 and MRR@10 of the hybrid as shipped, the hybrid with a fixed meaning weight, the
 * shipped words half alone, plain BM25 over the same chunks (the FTS5 ranking with nothing added) and vectors alone. `--grid` adds a grid of fusion
 * weights on the tuning sets. The store is kept in bench/.cache/ so a re-run reuses the vectors.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDb, type Db } from '../src/store/db.js';
import { indexMeetingChunks } from '../src/search/chunk-index.js';
import { indexPending } from '../src/search/vector-indexing.js';
import { FUSION, searchChunks, wordTerms, type SearchMode } from '../src/search/transcripts.js';
import { ensureWordIndex } from '../src/search/word-index.js';
import type { EmbedderLike } from '../src/search/embed-chunks.js';
import { createDefaultEmbedder } from '../src/search/embedder/index.js';
import { readVaultDir } from '../src/vault-format/read.js';
import { loadFixture } from '../src/load/load.js';
import { loadSqlite } from '../src/store/db.js';

const Database = loadSqlite();

const ROOT = resolve(import.meta.dirname, '..');
export const QMSUM = resolve(ROOT, '..', 'shared', 'data', 'qmsum-val');
export const CACHE = join(
  ROOT,
  'bench',
  '.cache',
  `search-${process.env.VAULT_TOOLS_CHUNK_TARGET ?? 'default'}-windowed`,
);
const QMSUM_VAULT = 'qmsum-val';
/** Salt of the QMSum split, chosen (before any measurement) for halves of similar size: 123 / 114 queries. */
const SPLIT_SALT = 'split:';
/** Whether a QMSum meeting's queries are in the tuning half (else the report half). */
export const qmsumTuning = (meetingId: string) =>
  createHash('sha256')
    .update(SPLIT_SALT + meetingId)
    .digest()[0]! %
    2 ===
  0;

export interface Labelled {
  vault: string;
  id?: string;
  query: string;
  answers: { meetingId: string; turns: [number, number] }[];
  kind: string;
}

export function loadQmsum(db: Db): Labelled[] {
  const files = readdirSync(QMSUM)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const queries: Labelled[] = [];
  const have = db.prepare('SELECT count(*) FROM meetings WHERE vault_id = ?').pluck().get(QMSUM_VAULT) as number;
  db.transaction(() => {
    if (have !== files.length) {
      db.prepare('DELETE FROM vaults WHERE id = ?').run(QMSUM_VAULT);
      db.prepare("INSERT INTO vaults (id, name, origin, loaded_at) VALUES (?, 'QMSum validation', 'import', ?)").run(
        QMSUM_VAULT,
        new Date().toISOString(),
      );
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
        const turn = db.prepare(
          'INSERT INTO transcript_turns (vault_id, meeting_id, turn_index, speaker, text, at_seconds) VALUES (?, ?, ?, ?, ?, NULL)',
        );
        data.meeting_transcripts.forEach((t, i) => turn.run(QMSUM_VAULT, id, i, t.speaker, t.content));
        indexMeetingChunks(db, QMSUM_VAULT, id);
      }
      for (const q of data.specific_query_list) {
        queries.push({
          vault: QMSUM_VAULT,
          id,
          query: q.query,
          kind: 'qmsum',
          answers: q.relevant_text_span.map(([s, e]) => ({
            meetingId: id,
            turns: [Number(s), Number(e)] as [number, number],
          })),
        });
      }
    }
  })();
  return queries;
}

export function loadFixtures(db: Db): void {
  for (const dir of ['northwind', 'meridian'])
    loadFixture(db, readVaultDir(join(ROOT, 'fixtures', dir)), { origin: 'fixture' });
}

export const readSet = (file: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'bench', file), 'utf8')) as { queries: (Labelled & { id: string })[] }).queries;

/**
 * The store of the bench, its embedder (with every text it embeds remembered) and the labelled sets of issue 19,
 * by short name: QMSum's tuning and report halves (when ../shared/data/qmsum-val is there), the paraphrase set
 * (tuning), the report paraphrase set and the lexical set (tuning).
 */
export function openBench() {
  mkdirSync(CACHE, { recursive: true });
  const db = openDb(CACHE);
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  const all = existsSync(QMSUM) ? loadQmsum(db) : [];
  if (!all.length) process.stderr.write(`no ${QMSUM}: skipping QMSum\n`);
  loadFixtures(db);
  const visible = readSet('paraphrase-set.json');
  const sets = {
    'QMSum tune': all.filter((q) => qmsumTuning(q.id!)),
    'QMSum report': all.filter((q) => !qmsumTuning(q.id!)),
    'para tune': visible.filter((q) => q.kind === 'paraphrase'),
    'para report': readSet('paraphrase-report.json') as Labelled[],
    'lexical tune': visible.filter((q) => q.kind === 'lexical'),
  };
  return { db, model, embedder, sets };
}

interface Scores {
  hit1: number;
  hit5: number;
  mrr10: number;
  n: number;
  msPerQuery: number;
}

/** Plain BM25 over the same chunks: the vault's FTS5 ranking of `"w1" OR "w2" …` (stop words dropped), nothing else (the baseline). */
function plainBm25(db: Db, vaultId: string, query: string, limit: number): number[] {
  const match = wordTerms(query, { keepFrame: true });
  if (!match) return [];
  const t = ensureWordIndex(db, vaultId);
  return db
    .prepare(`SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT ?`)
    .pluck()
    .all(match, limit) as number[];
}

export type Method = SearchMode | 'bm25' | 'hybrid-fixed';

async function evaluate(
  db: Db,
  queries: Labelled[],
  mode: Method,
  embedder: EmbedderLike,
  weights = FUSION,
): Promise<Scores> {
  const rank = db.prepare('SELECT meeting_id, turn_start, turn_end FROM transcript_chunks WHERE id = ?');
  let hit1 = 0;
  let hit5 = 0;
  let mrr = 0;
  const t0 = process.hrtime.bigint();
  for (const q of queries) {
    const ids =
      mode === 'bm25'
        ? plainBm25(db, q.vault, q.query, 10)
        : (
            await searchChunks(db, q.vault, q.query, {
              limit: 10,
              mode: mode === 'hybrid-fixed' ? 'hybrid' : mode,
              embedder,
              weights: mode === 'hybrid-fixed' ? { ...weights, adaptive: false } : weights,
            })
          ).hits.map((h) => h.chunkId);
    const first = ids.findIndex((id) => {
      const c = rank.get(id) as { meeting_id: string; turn_start: number; turn_end: number };
      return q.answers.some(
        (a) => a.meetingId === c.meeting_id && c.turn_start <= a.turns[1] && c.turn_end >= a.turns[0],
      );
    });
    if (first === 0) hit1++;
    if (first >= 0 && first < 5) hit5++;
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = queries.length;
  return {
    hit1: hit1 / n,
    hit5: hit5 / n,
    mrr10: mrr / n,
    n,
    msPerQuery: Number(process.hrtime.bigint() - t0) / 1e6 / n,
  };
}

const fmt = (s: Scores) =>
  `hit@1 ${s.hit1.toFixed(3)}  hit@5 ${s.hit5.toFixed(3)}  MRR@10 ${s.mrr10.toFixed(3)}  (${s.n} queries, ${s.msPerQuery.toFixed(1)} ms/query)`;

/**
 * The embedder with every text it embeds remembered on disk (`file`, CACHE/text-vectors.db unless given; by SHA-256 of the text):
 * query vectors for the whole run (search's own LRU holds 256, fewer than the sets), and the windows a chunk is
 * embedded as, so experiments on finer-grained vectors reuse them instead of running the model again.
 */
export function memoised(
  embedder: ReturnType<typeof createDefaultEmbedder>,
  file = join(CACHE, 'text-vectors.db'),
): EmbedderLike {
  const store = new Database(file);
  store.pragma('journal_mode = WAL');
  store.exec(
    'CREATE TABLE IF NOT EXISTS text_vectors (embedder TEXT, hash TEXT, vector BLOB, PRIMARY KEY (embedder, hash))',
  );
  const get = store.prepare('SELECT vector FROM text_vectors WHERE embedder = ? AND hash = ?').pluck();
  const put = store.prepare('INSERT OR IGNORE INTO text_vectors (embedder, hash, vector) VALUES (?, ?, ?)');
  const hash = (t: string) => createHash('sha256').update(t).digest('hex');
  return {
    get id() {
      return embedder.id;
    },
    get dims() {
      return embedder.dims;
    },
    get windowChars() {
      return embedder.windowChars;
    },
    async embed(texts, options) {
      const known = texts.map((t) => get.get(embedder.id, hash(t)) as Buffer | undefined);
      const missing = texts.filter((_, i) => !known[i]);
      const fresh = missing.length ? await embedder.embed(missing, options) : [];
      store.transaction(() =>
        fresh.forEach((v, i) =>
          put.run(embedder.id, hash(missing[i]!), Buffer.from(v.buffer, v.byteOffset, v.byteLength)),
        ),
      )();
      let next = 0;
      return known.map((b) => (b ? new Float32Array(Uint8Array.from(b).buffer) : fresh[next++]!));
    },
  };
}

const METHODS: [Method, string][] = [
  ['hybrid', 'hybrid (shipped)'],
  ['hybrid-fixed', 'hybrid, fixed meaning weight'],
  ['words', 'words only (shipped words half)'],
  ['bm25', 'plain BM25, same chunks'],
  ['meaning', 'vectors only'],
];

async function main() {
  const bench = openBench();
  const { db, model, embedder } = bench;
  const named: [keyof typeof bench.sets, string, 'tuning' | 'report'][] = [
    ['QMSum tune', 'QMSum val, tuning half', 'tuning'],
    ['QMSum report', 'QMSum val, report half', 'report'],
    ['para tune', 'paraphrase set (tuning)', 'tuning'],
    ['para report', 'paraphrase-report set (report)', 'report'],
    ['lexical tune', 'lexical set (tuning)', 'tuning'],
  ];
  const sets = named
    .filter(([key]) => bench.sets[key].length)
    .map(([key, name, role]) => ({ name, role, queries: bench.sets[key] }));

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
    `embedder ${model.id}: ${indexed.embedded} chunks embedded, ${indexed.reused} reused from cache, in ${seconds.toFixed(1)} s` +
      (indexed.embedded ? ` (${(indexed.embedded / seconds).toFixed(1)} chunks/s)` : ''),
  ];
  const table: string[] = [
    '',
    `| MRR@10 / hit@5 | ${sets.map((s) => `${s.name} (${s.queries.length})`).join(' | ')} |`,
    `|---|${sets.map(() => '---|').join('')}`,
  ];
  for (const [method, label] of METHODS) {
    const cells: string[] = [];
    for (const set of sets) {
      const s = await evaluate(db, set.queries, method, embedder);
      lines.push(`${set.name.padEnd(32)} ${label.padEnd(32)} ${fmt(s)}`);
      cells.push(`${s.mrr10.toFixed(3)} / ${s.hit5.toFixed(3)}`);
    }
    table.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  if (process.argv.includes('--grid')) {
    lines.push('\nfusion grid, tuning sets only (MRR@10 / hit@5):');
    for (const meaning of [0.5, 0.75, 1, 1.5, 2]) {
      const cells: string[] = [];
      for (const set of sets.filter((s) => s.role === 'tuning')) {
        const s = await evaluate(db, set.queries, 'hybrid', embedder, { ...FUSION, meaning });
        cells.push(`${set.name}: ${s.mrr10.toFixed(3)} / ${s.hit5.toFixed(3)}`);
      }
      lines.push(`  meaning ${meaning} (moved per question): ${cells.join('  ')}`);
    }
  }
  lines.push(...table);
  const size = statSync(join(CACHE, 'vault-tools.db')).size;
  lines.push(
    `\nstore: ${(size / 1e6).toFixed(1)} MB (${db.prepare('SELECT count(*) FROM transcript_chunks').pluck().get()} chunks)`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  await model.close();
  db.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
