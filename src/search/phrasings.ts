/**
 * Search by several phrasings of one question (issue 42). The model that calls `search_transcripts` is far
 * stronger than the offline embedder, and can say the question the way the people in the meetings would have
 * said it. Given the query and its alternatives, each phrasing runs the hybrid search of transcripts.ts (their
 * vectors in one batch to the embedder, every BM25 half while it embeds), and the rankings are fused by reciprocal
 * rank: `Σ weight / (k + rank)` over the phrasings that rank a chunk in their top `depth`, the query's own list
 * weighing `queryWeight`. Excerpts that overlap (the pieces of one long turn) are merged into one.
 *
 * Measured on the QMSum tuning half and chosen there only; the gain on the report half and on the demo vaults'
 * questions is in docs/search.md (`npm run bench:search -- --alternatives`).
 */
import type { Db } from '../store/db.js';
import { chunkSpans } from './chunk-index.js';
import {
  fusePhrasing,
  planSearch,
  queryVectorsOf,
  usesMeaning,
  wordsHalf,
  type SearchHit,
  type SearchMode,
  type SearchOptions,
} from './transcripts.js';

/** How many alternatives a call may pass, and how long each may be (the tool's schema says the same). */
export const MAX_ALTERNATIVES = 5;
export const MAX_ALTERNATIVE_CHARS = 300;

/**
 * Reciprocal-rank fusion of the phrasings' rankings (chosen on the QMSum tuning half, docs/search.md):
 * `k` flattens the head, `queryWeight` is the query's own list against 1 for each alternative, and a
 * phrasing counts a chunk when it ranks it in its top `depth`.
 */
export interface PhrasingFusion {
  k: number;
  queryWeight: number;
  depth: number;
}

export const PHRASING_FUSION: PhrasingFusion = { k: 10, queryWeight: 1.25, depth: 20 };

/** A result of a search by phrasings: the best chunk of its excerpt, and the chunks merged into it. */
export interface PhrasedHit extends SearchHit {
  /** the chunks of the excerpt, the best ranked first (more than one when overlapping excerpts were merged) */
  chunkIds: number[];
  /** the phrasings whose own answer holds it (their top `limit`): 0 the query, i ≥ 1 the alternative passed at i − 1 */
  foundBy: number[];
  /** the best score a phrasing's own hybrid search gave it: the scale of a search without alternatives (`score` is the fusion's) */
  ownScore: number;
}

/**
 * The distinct phrasings to search (the query first), and for each, the positions in [query, ...alternatives]
 * that say it: an alternative that repeats the query or another one (case and spacing aside) is not run twice,
 * nor does it count twice in the fusion.
 */
export function distinctPhrasings(
  query: string,
  alternatives: readonly string[],
): { texts: string[]; sources: number[][] } {
  const key = (t: string) => t.trim().replace(/\s+/g, ' ').toLowerCase();
  const texts: string[] = [];
  const sources: number[][] = [];
  const at = new Map<string, number>();
  [query, ...alternatives].forEach((text, i) => {
    const k = key(text);
    const seen = at.get(k);
    if (seen !== undefined) return void sources[seen]!.push(i);
    at.set(k, texts.length);
    texts.push(i === 0 ? text : text.trim());
    sources.push([i]);
  });
  return { texts, sources };
}

/**
 * Each phrasing's own hybrid ranking (every candidate, best first), as searchChunks ranks it alone. The vectors
 * of all phrasings are asked for in ONE call, before any BM25 runs, so the model embeds while the words halves run.
 */
export async function phrasingRankings(
  db: Db,
  vaultId: string,
  texts: string[],
  options: Omit<SearchOptions, 'limit'>,
): Promise<{ rankings: SearchHit[][]; mode: SearchMode }> {
  const useMeaning = usesMeaning(db, vaultId, options);
  const embedding = useMeaning ? queryVectorsOf(options.embedder!, texts, options.caller) : undefined;
  embedding?.catch(() => {}); // awaited below; this only keeps an early rejection from going unhandled
  const plan = planSearch(db, vaultId, options);
  const words = texts.map((t) => wordsHalf(db, vaultId, t, plan));
  const vectors = embedding ? await embedding : undefined;
  let mode: SearchMode = plan.wanted;
  const rankings = texts.map((t, i) => {
    const fused = fusePhrasing(db, vaultId, t, words[i]!, vectors?.[i], plan);
    mode = fused.mode;
    return fused.hits;
  });
  return { rankings, mode };
}

/**
 * The rankings fused by reciprocal rank (see PhrasingFusion), best first; ties go to the query's own order. A hit's
 * `foundBy` names the phrasings that rank it in their top `foundWithin`: those whose own answer holds it.
 */
export function fuseRankings(
  rankings: SearchHit[][],
  sources: number[][],
  fusion: PhrasingFusion = PHRASING_FUSION,
  foundWithin = fusion.depth,
): PhrasedHit[] {
  const hits = new Map<number, PhrasedHit & { queryRank: number }>();
  rankings.forEach((ranking, p) => {
    const weight = p === 0 ? fusion.queryWeight : sources[p]!.length;
    ranking.slice(0, fusion.depth).forEach((h, i) => {
      let f = hits.get(h.chunkId);
      if (!f)
        hits.set(
          h.chunkId,
          (f = {
            chunkId: h.chunkId,
            chunkIds: [h.chunkId],
            score: 0,
            wordRank: null,
            meaningRank: null,
            foundBy: [],
            ownScore: -Infinity,
            queryRank: Infinity,
          }),
        );
      f.score += weight / (fusion.k + i + 1);
      f.ownScore = Math.max(f.ownScore, h.score);
      if (i < foundWithin) f.foundBy.push(...sources[p]!);
      f.wordRank = best(f.wordRank, h.wordRank);
      f.meaningRank = best(f.meaningRank, h.meaningRank);
      if (p === 0) f.queryRank = i;
    });
  });
  return [...hits.values()]
    .sort((x, y) => y.score - x.score || x.queryRank - y.queryRank || x.chunkId - y.chunkId)
    .map(({ queryRank: _, ...h }) => ({ ...h, foundBy: h.foundBy.sort((a, b) => a - b) }));
}

const best = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/**
 * The first `limit` excerpts, a hit whose turns overlap a better one's in the same meeting (the pieces of one long
 * turn, which different phrasings may each find) merged into it: its chunks, phrasings and halves join the
 * better one's, which keeps its place and fused score (its own score is the best of both).
 */
export function mergeOverlapping(db: Db, hits: PhrasedHit[], limit: number): PhrasedHit[] {
  const head = hits.slice(0, limit * 4);
  const spans = chunkSpans(
    db,
    head.map((h) => h.chunkId),
  );
  const kept: (PhrasedHit & { meeting: string; start: number; end: number })[] = [];
  for (const h of head) {
    const span = spans.get(h.chunkId);
    if (!span) continue;
    const r = { meeting: span.meetingId, start: span.turnStart, end: span.turnEnd };
    const into = kept.find((k) => k.meeting === r.meeting && k.start <= r.end && r.start <= k.end);
    if (into) {
      into.chunkIds.push(...h.chunkIds);
      into.foundBy = [...new Set([...into.foundBy, ...h.foundBy])].sort((a, b) => a - b);
      into.wordRank = best(into.wordRank, h.wordRank);
      into.meaningRank = best(into.meaningRank, h.meaningRank);
      into.ownScore = Math.max(into.ownScore, h.ownScore);
      into.start = Math.min(into.start, r.start);
      into.end = Math.max(into.end, r.end);
      continue;
    }
    if (kept.length === limit) break;
    kept.push({ ...h, chunkIds: [...h.chunkIds], meeting: r.meeting, start: r.start, end: r.end });
  }
  return kept.map(({ meeting: _m, start: _s, end: _e, ...h }) => h);
}

/**
 * The search for a query and its alternatives (see the top of this file): at most `limit` excerpts, each saying
 * which phrasings found it (would have answered it alone, in their top `limit`; none when only the fusion did). With no alternatives left once repeats are dropped, this is still a fusion of one list;
 * callers that want today's answer without alternatives call searchChunks.
 */
export async function searchPhrasings(
  db: Db,
  vaultId: string,
  query: string,
  alternatives: readonly string[],
  options: SearchOptions & { fusion?: PhrasingFusion },
): Promise<{ hits: PhrasedHit[]; mode: SearchMode }> {
  const { texts, sources } = distinctPhrasings(query, alternatives);
  const { rankings, mode } = await phrasingRankings(db, vaultId, texts, options);
  return {
    hits: mergeOverlapping(db, fuseRankings(rankings, sources, options.fusion, options.limit), options.limit),
    mode,
  };
}
