/**
 * Hybrid transcript search: BM25 over the word index and nearest neighbours over the vector index, fused
 * by weighted reciprocal rank. Words alone answer when vectors are not built (yet) or the embedder is not
 * available; a chunk not yet embedded is still found by its words.
 */
import { hasVectorExtension, json, sql, type Db } from '../store/db.js';
import { tokens } from '../store/text.js';
import { vaultToken } from './chunk-index.js';
import { hasVectors, nearestChunks, vectorIndexOwner, type EmbedderLike } from './vectors.js';

/**
 * Fusion weights and the reciprocal-rank constant, chosen by measurement (`npm run bench:search`, see
 * docs/search.md): the numbers there are the ones these give.
 */
export const FUSION = { words: 1.0, meaning: 0.5, k: 10, candidates: 50 };

const STOPWORDS = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to us was we were what when where which who why will with would you your about could should can any all been being just also very'.split(' '),
);

export interface SearchFilters {
  meetingId?: string;
  speaker?: string;
  /** ISO datetimes bounding the meeting's start */
  after?: string;
  before?: string;
}

export interface SearchHit {
  chunkId: number;
  score: number;
  wordRank: number | null;
  meaningRank: number | null;
}

export type SearchMode = 'hybrid' | 'words' | 'meaning';

/** The words of a question as an FTS5 query scoped to one vault: `vault_token:v… AND ("w1" OR "w2" …)`. */
export function wordQuery(vaultId: string, query: string): string | undefined {
  const words = [...new Set(tokens(query).filter((w) => !STOPWORDS.has(w)))];
  if (!words.length) return undefined;
  return `vault_token:${vaultToken(vaultId)} AND (${words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' OR ')})`;
}

const FILTER_SQL = `(@meeting IS NULL OR c.meeting_id = @meeting)
  AND (@speaker IS NULL OR EXISTS (SELECT 1 FROM json_each(c.speakers_json) WHERE lower(value) LIKE '%' || lower(@speaker) || '%'))
  AND (@after IS NULL OR m.started_at >= @after) AND (@before IS NULL OR m.started_at < @before)`;

const filterParams = (f: SearchFilters) => ({ meeting: f.meetingId ?? null, speaker: f.speaker ?? null, after: f.after ?? null, before: f.before ?? null });

export function wordRanking(db: Db, vaultId: string, query: string, filters: SearchFilters, limit: number): number[] {
  const match = wordQuery(vaultId, query);
  if (!match) return [];
  return sql(
    db,
    `SELECT c.id FROM transcript_chunks_fts f
     JOIN transcript_chunks c ON c.id = f.rowid
     JOIN meetings m ON m.vault_id = c.vault_id AND m.id = c.meeting_id
     WHERE transcript_chunks_fts MATCH @match AND c.vault_id = @vault AND ${FILTER_SQL}
     ORDER BY bm25(transcript_chunks_fts, 1.0, 0.0) LIMIT @limit`,
  )
    .pluck()
    .all({ match, vault: vaultId, limit, ...filterParams(filters) }) as number[];
}

export function meaningRanking(db: Db, vaultId: string, vector: Float32Array, filters: SearchFilters, limit: number): number[] {
  const filtered = filters.meetingId || filters.speaker || filters.after || filters.before;
  // With filters, look further so enough neighbours survive them.
  const near = nearestChunks(db, vaultId, vector, filtered ? limit * 8 : limit);
  if (!near.length) return [];
  const keep = new Set(
    sql(
      db,
      `SELECT c.id FROM transcript_chunks c JOIN meetings m ON m.vault_id = c.vault_id AND m.id = c.meeting_id
       WHERE c.id IN (SELECT value FROM json_each(@ids)) AND c.vault_id = @vault AND ${FILTER_SQL}`,
    )
      .pluck()
      .all({ ids: JSON.stringify(near.map((n) => n.id)), vault: vaultId, ...filterParams(filters) }) as number[],
  );
  return near.filter((n) => keep.has(n.id)).slice(0, limit).map((n) => n.id);
}

/** Weighted reciprocal-rank fusion of two rankings (best first). */
export function fuse(words: number[], meaning: number[], weights = FUSION): SearchHit[] {
  const hits = new Map<number, SearchHit>();
  const add = (ids: number[], w: number, key: 'wordRank' | 'meaningRank') =>
    ids.forEach((id, i) => {
      const h = hits.get(id) ?? { chunkId: id, score: 0, wordRank: null, meaningRank: null };
      h.score += w / (weights.k + i + 1);
      h[key] = i + 1;
      hits.set(id, h);
    });
  add(words, weights.words, 'wordRank');
  add(meaning, weights.meaning, 'meaningRank');
  return [...hits.values()].sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
}

/** Can this vault be searched by meaning with this embedder right now? */
export function meaningAvailable(db: Db, vaultId: string, embedder: EmbedderLike | undefined): boolean {
  if (!embedder || !hasVectorExtension(db)) return false;
  const owner = vectorIndexOwner(db);
  if (!owner) return false;
  try {
    if (owner.embedder !== embedder.id) return false;
  } catch {
    return false; // an endpoint embedder that has not answered yet
  }
  return hasVectors(db, vaultId, owner.embedder);
}

export async function searchChunks(
  db: Db,
  vaultId: string,
  query: string,
  options: { filters?: SearchFilters; limit: number; mode?: SearchMode; embedder?: EmbedderLike; weights?: typeof FUSION },
): Promise<{ hits: SearchHit[]; mode: SearchMode }> {
  const filters = options.filters ?? {};
  const weights = options.weights ?? FUSION;
  const wanted = options.mode ?? 'hybrid';
  // The query is embedded in the embedder's worker while BM25 runs here: the two costs overlap.
  const useMeaning = wanted !== 'words' && meaningAvailable(db, vaultId, options.embedder);
  const embedding = useMeaning ? options.embedder!.embed([query]) : undefined;
  embedding?.catch(() => {}); // awaited below; this only keeps an early rejection from going unhandled
  const words = wanted === 'meaning' ? [] : wordRanking(db, vaultId, query, filters, weights.candidates);
  let meaning: number[] = [];
  let mode: SearchMode = wanted === 'meaning' ? 'meaning' : 'words';
  if (embedding) {
    const [vector] = await embedding;
    meaning = meaningRanking(db, vaultId, vector!, filters, weights.candidates);
    mode = wanted;
  }
  return { hits: fuse(words, meaning, weights).slice(0, options.limit), mode };
}

export interface ChunkRow {
  id: number;
  meeting_id: string;
  meeting_name: string;
  started_at: string;
  turn_start: number;
  turn_end: number;
  speakers_json: string;
  start_seconds: number | null;
  text: string;
}

export function chunkRows(db: Db, ids: number[]): Map<number, ChunkRow & { speakers: string[] }> {
  const rows = sql(
    db,
    `SELECT c.id, c.meeting_id, m.name AS meeting_name, m.started_at, c.turn_start, c.turn_end, c.speakers_json, c.start_seconds, c.text
     FROM transcript_chunks c JOIN meetings m ON m.vault_id = c.vault_id AND m.id = c.meeting_id
     WHERE c.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids)) as ChunkRow[];
  return new Map(rows.map((r) => [r.id, { ...r, speakers: json.read(r.speakers_json) }]));
}
