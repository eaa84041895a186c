/**
 * Hybrid transcript search: BM25 over the vault's word index and nearest neighbours over the vector index,
 * fused by their standardised scores. Words alone answer when vectors are not built (yet) or the embedder is
 * not available; a chunk not yet embedded is still found by its words.
 *
 * Latency (docs/search.md): the query is sent to the embedder first, BM25 runs while the worker embeds it,
 * then the vector search runs; query vectors are kept in a small LRU, so a repeated question is not embedded
 * again.
 */
import { hasVectorExtension, type Db } from '../store/db.js';
import { tokens } from '../store/text.js';
import { STOPWORDS } from './stopwords.js';
import { hasVectors, nearestChunks, rescore, storedVectors, vectorIndexOwner } from './vectors.js';
import type { EmbedderLike } from './embed-chunks.js';
import { bm25Ranked, bm25Ranking, matchesAny } from './word-index.js';
import { filteredChunks, isFiltered, type SearchFilters } from './chunk-index.js';

/**
 * Fusion weights and the number of candidates each half brings, chosen by measurement on the tuning sets
 * (docs/search.md, "What was tried": the experiments of issue 19). `meaning` is the weight of the meaning half's standardised
 * cosine for a question whose words are all in the vault and whose BM25 head does not stand out;
 * `meaningWeight` moves it per question.
 */
export interface FusionWeights {
  words: number;
  meaning: number;
  candidates: number;
  /** move the meaning weight per question (meaningWeight); off: `meaning` as it is */
  adaptive?: boolean;
}

export const FUSION: FusionWeights = { words: 1.0, meaning: 1.0, candidates: 50, adaptive: true };

/**
 * How the meaning weight follows what the words can say (chosen on the tuning sets, docs/search.md):
 * - `absent`: each query word the vault never uses adds this much (times its share of the query's words):
 *   BM25 cannot find what is said in other words, so meaning counts for more;
 * - `head` / `headSlope`: when BM25's best score is more than `head` times its 10th, the words have found
 *   something specific, and meaning counts for less: divided by 1 + headSlope × (ratio − head);
 * - `keywordCut` / `keywords`: a keyword string rather than a question (fewer than `keywordCut` of its words are
 *   function words: "Zebra MC3300 handhelds batteries nights") asks for those words: meaning × `keywords`.
 */
export const ADAPT = { absent: 2, head: 3, headSlope: 0.5, keywordCut: 0.15, keywords: 0.25 };

/** What the words half tells the fusion about a question. */
export interface WordEvidence {
  /** share of the query's words that no chunk of the vault holds (0 … 1) */
  absentShare: number;
  /** BM25 score of the best chunk over that of the 10th (1 when fewer than 10 chunks match; larger: a standout head) */
  headRatio: number;
  /** share of the query's words that are function words (stop words): low for a keyword string (default: a question) */
  functionShare?: number;
}

/** The meaning half's weight for one question: `base` moved by what the words can say (see ADAPT). */
export function meaningWeight(base: number, evidence: WordEvidence): number {
  const keywords = (evidence.functionShare ?? 1) < ADAPT.keywordCut ? ADAPT.keywords : 1;
  return (
    (keywords * base * (1 + ADAPT.absent * evidence.absentShare)) /
    (1 + ADAPT.headSlope * Math.max(0, evidence.headRatio - ADAPT.head))
  );
}

/**
 * The frame of a question about a meeting ("summarize the discussion of …", "what did the team think / say /
 * decide about …"): words of the asking, not of the answer. Speakers rarely say them, so BM25 gave them a high
 * weight and ranked chunks that happen to hold "discuss" or "decision" above the topic asked about. Dropped from
 * the word query unless nothing else is left. Measured on the tuning sets (docs/search.md): QMSum tuning half
 * hit@5 0.496 → 0.528, MRR@10 0.356 → 0.362; paraphrase and lexical sets unchanged in MRR.
 */
const QUESTION_FRAME = new Set(
  'summarize summarise summary discussion discussions discuss discussed discussing talk talked talking think thought thoughts say said mention mentioned opinion opinions describe description general overall please whole decide decided decision decisions conclude concluded agree agreed group team meeting meetings'.split(
    ' ',
  ),
);

export interface SearchHit {
  chunkId: number;
  score: number;
  wordRank: number | null;
  meaningRank: number | null;
}

export type SearchMode = 'hybrid' | 'words' | 'meaning';

/** The content words of a question: stop words dropped, and its frame words too unless only they are left. */
export function queryWords(query: string, options: { keepFrame?: boolean } = {}): string[] {
  const words = [...new Set(tokens(query).filter((w) => !STOPWORDS.has(w)))];
  if (options.keepFrame) return words;
  const topic = words.filter((w) => !QUESTION_FRAME.has(w));
  return topic.length ? topic : words;
}

const phrase = (w: string) => `"${w.replace(/"/g, '""')}"`;

/** The words of a question as an FTS5 query: `"w1" OR "w2" …` (see queryWords), or undefined when none is left. */
export function wordTerms(query: string, options: { keepFrame?: boolean } = {}): string | undefined {
  const words = queryWords(query, options);
  return words.length ? words.map(phrase).join(' OR ') : undefined;
}

/**
 * The vault's best chunks by BM25. The FTS table answers alone (every row is a chunk of the vault); with
 * filters, its ranking is read in order until `limit` chunks that pass them are found.
 */
export function wordRanking(
  db: Db,
  vaultId: string,
  query: string,
  filters: SearchFilters,
  limit: number,
  allowed?: Set<number>,
): number[] {
  return scoredWordRanking(db, vaultId, query, filters, limit, allowed).map(([id]) => id);
}

/** wordRanking with each chunk's BM25 score (larger is better). */
function scoredWordRanking(
  db: Db,
  vaultId: string,
  query: string,
  filters: SearchFilters,
  limit: number,
  allowed?: Set<number>,
): [number, number][] {
  const match = wordTerms(query);
  if (!match) return [];
  if (!isFiltered(filters)) {
    return bm25Ranking(db, vaultId, match, limit);
  }
  const pass = allowed ?? filteredChunks(db, vaultId, filters);
  const out: [number, number][] = [];
  if (!pass.size) return out;
  for (const row of bm25Ranked(db, vaultId, match)) {
    if (pass.has(row[0]) && out.push(row) >= limit) break; // leaving the loop resets the statement
  }
  return out;
}

/**
 * What the words can say about this question in this vault: the share of its words no chunk holds (one indexed
 * FTS5 lookup per word, stemmed as the index stems), how far BM25's best score stands above its 10th, and
 * whether it reads as a keyword string (few function words) or as a question.
 */
export function wordEvidence(db: Db, vaultId: string, query: string, scored: [number, number][]): WordEvidence {
  const words = queryWords(query);
  let absent = 0;
  if (words.length) {
    const holds = matchesAny(db, vaultId);
    for (const w of words) if (!holds(phrase(w))) absent++;
  }
  const tenth = scored[9]?.[1];
  const all = tokens(query);
  return {
    absentShare: words.length ? absent / words.length : 0,
    headRatio: scored.length && tenth && tenth > 0 ? scored[0]![1] / tenth : 1,
    functionShare: all.length ? all.filter((w) => STOPWORDS.has(w)).length / all.length : 1,
  };
}

/**
 * The vault's nearest chunks to the query vector, as [chunk id, cosine]. With filters, the search runs among the
 * chunks that pass them only (exactly when they are few), so a narrow filter still gets its neighbours.
 */
export function meaningRanking(
  db: Db,
  vaultId: string,
  vector: Float32Array,
  filters: SearchFilters,
  limit: number,
  allowed?: Set<number>,
): [number, number][] {
  const within = isFiltered(filters) ? [...(allowed ?? filteredChunks(db, vaultId, filters))] : undefined;
  return nearestChunks(db, vaultId, vector, limit, within && { within }).map((n) => [n.id, 1 - n.distance]);
}

/**
 * Each half's candidates with their scores, best first: words as [chunk id, BM25] (larger is better), meaning as
 * [chunk id, cosine]; `cosines` adds the cosine of words candidates the meaning half did not return.
 */
export interface Candidates {
  words: [number, number][];
  meaning: [number, number][];
  cosines?: [number, number][];
}

/** Mean and standard deviation (1 when there is no spread), what fuse standardises each half's scores by. */
export const meanAndSpread = (xs: number[]) => {
  const mean = xs.reduce((a, x) => a + x, 0) / (xs.length || 1);
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length || 1));
  return { mean, sd: sd || 1 };
};

/**
 * Fusion by standardised scores (z-scores, CombSUM): `score = words × z(BM25) + meaning × z(cosine)` over the
 * union of both halves' candidates. Unlike reciprocal ranks, a score keeps how far apart the candidates are: a
 * BM25 head that stands out stays on top unless meaning's case for another chunk is as strong, and where BM25 is
 * flat the cosine decides. BM25 is standardised over the words candidates, a meaning-only candidate counting as
 * BM25 0 (no word matched that ranks it); cosine over every candidate's, one without a vector (not embedded yet)
 * counting as the mean. Measured against reciprocal-rank fusion on the tuning sets (docs/search.md).
 */
export function fuse(c: Candidates, weights: FusionWeights = FUSION): SearchHit[] {
  const cosine = new Map<number, number>(c.cosines ?? []);
  for (const [id, x] of c.meaning) cosine.set(id, x);
  const b = meanAndSpread(c.words.map(([, x]) => x));
  const m = meanAndSpread([...cosine.values()]);
  const hits = new Map<number, SearchHit>();
  const hit = (id: number) => {
    let h = hits.get(id);
    if (!h) hits.set(id, (h = { chunkId: id, score: 0, wordRank: null, meaningRank: null }));
    return h;
  };
  c.words.forEach(([id], i) => (hit(id).wordRank = i + 1));
  c.meaning.forEach(([id], i) => (hit(id).meaningRank = i + 1));
  const bm25 = new Map(c.words);
  for (const h of hits.values()) {
    const words = c.words.length ? weights.words * (((bm25.get(h.chunkId) ?? 0) - b.mean) / b.sd) : 0;
    const meaning = cosine.size ? weights.meaning * (((cosine.get(h.chunkId) ?? m.mean) - m.mean) / m.sd) : 0;
    h.score = words + meaning;
  }
  return [...hits.values()].sort((x, y) => y.score - x.score || x.chunkId - y.chunkId);
}

/**
 * Feedback on the meaning side (Rocchio): before fusing, the query vector is moved towards the words half's best
 * chunks, `q/|q| + weight × mean(their unit vectors)`, and both halves' candidates are scored by cosine to it. The
 * words' best chunks carry the vault's own wording of the topic, which a short question lacks; the candidates
 * themselves still come from the question's own vector. Chosen on the tuning sets (docs/search.md).
 */
export const FEEDBACK = { chunks: 5, weight: 0.25 };

/** The query vector moved towards these chunk vectors (see FEEDBACK); the query itself (as a unit vector) when there are none. */
export function feedbackVector(
  query: Float32Array,
  chunks: Float32Array[],
  weight: number = FEEDBACK.weight,
): Float32Array {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  const qn = norm(query);
  const out = query.map((x) => x / qn);
  for (const v of chunks) {
    const vn = norm(v);
    for (let d = 0; d < out.length; d++) out[d]! += (weight * v[d]!) / vn / chunks.length;
  }
  return out;
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

/**
 * Query vectors per embedder (instance) and text, most recent last: a repeated question (another page, other
 * filters) skips the model.
 */
const QUERY_CACHE_SIZE = 256;
const queryVectors = new WeakMap<EmbedderLike, Map<string, Float32Array>>();

/**
 * The vectors of these texts, in order: those in the LRU from it, the others from the model in ONE call (a batch
 * costs the worker one round trip). Called before BM25 runs: the embedder posts the texts to its worker
 * synchronously, so both run at once.
 */
export function queryVectorsOf(embedder: EmbedderLike, texts: string[], caller?: string): Promise<Float32Array[]> {
  let cache = queryVectors.get(embedder);
  if (!cache) queryVectors.set(embedder, (cache = new Map()));
  const known = texts.map((t) => {
    const hit = cache.get(t);
    if (hit) {
      cache.delete(t);
      cache.set(t, hit);
    }
    return hit;
  });
  const missing = [...new Set(texts.filter((_, i) => !known[i]))];
  if (!missing.length) return Promise.resolve(known as Float32Array[]);
  return embedder.embed(missing, { caller }).then((vectors) => {
    const fresh = new Map(missing.map((t, i) => [t, vectors[i]!]));
    for (const [t, v] of fresh) {
      cache.set(t, v);
      if (cache.size > QUERY_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    return texts.map((t, i) => known[i] ?? fresh.get(t)!);
  });
}

/** How a search is run, for every half and phrasing: what the caller asked for, with the filters resolved once. */
export interface SearchPlan {
  filters: SearchFilters;
  weights: FusionWeights;
  wanted: SearchMode;
  /** the chunks that pass the filters (filtered searches only) */
  allowed?: Set<number>;
}

export interface SearchOptions {
  filters?: SearchFilters;
  limit: number;
  mode?: SearchMode;
  embedder?: EmbedderLike;
  weights?: FusionWeights;
  /** who searches (a key or grant id), so the query embedder is shared fairly among callers */
  caller?: string;
}

/**
 * Whether this search runs a meaning half: asked for, and possible in this vault with this embedder. Decided
 * before planSearch, so the query is posted to the embedder before anything else runs.
 */
export const usesMeaning = (db: Db, vaultId: string, options: Omit<SearchOptions, 'limit'>) =>
  (options.mode ?? 'hybrid') !== 'words' && meaningAvailable(db, vaultId, options.embedder);

/** What a search will do in this vault (see SearchPlan). */
export function planSearch(db: Db, vaultId: string, options: Omit<SearchOptions, 'limit'>): SearchPlan {
  const filters = options.filters ?? {};
  return {
    filters,
    weights: options.weights ?? FUSION,
    wanted: options.mode ?? 'hybrid',
    allowed: isFiltered(filters) ? filteredChunks(db, vaultId, filters) : undefined,
  };
}

/** The words half of one phrasing: its BM25 candidates with their scores (none in meaning mode). */
export function wordsHalf(db: Db, vaultId: string, query: string, plan: SearchPlan): [number, number][] {
  return plan.wanted === 'meaning'
    ? []
    : scoredWordRanking(db, vaultId, query, plan.filters, plan.weights.candidates, plan.allowed);
}

/**
 * One phrasing's fused ranking, every candidate of both halves, best first: its words half (already run) and, with
 * its vector, its meaning half, re-scored against the query moved towards the words' best chunks.
 */
export function fusePhrasing(
  db: Db,
  vaultId: string,
  query: string,
  words: [number, number][],
  vector: Float32Array | undefined,
  plan: SearchPlan,
): { hits: SearchHit[]; mode: SearchMode } {
  const { wanted, weights, filters, allowed } = plan;
  let meaning: [number, number][] = [];
  let cosines: [number, number][] = [];
  let mode: SearchMode = wanted === 'meaning' ? 'meaning' : 'words';
  let fusion = weights;
  if (vector) {
    meaning = meaningRanking(db, vaultId, vector, filters, weights.candidates, allowed);
    mode = wanted;
    if (wanted === 'hybrid') {
      // Every candidate of both halves scored by cosine to the query moved towards the words' best chunks
      // (float16 re-score of at most 2 × `candidates` rows: constant work per query).
      const top = storedVectors(
        db,
        words.slice(0, FEEDBACK.chunks).map(([id]) => id),
        vector.length,
      );
      const union = [...new Set([...meaning.map(([id]) => id), ...words.map(([id]) => id)])];
      const scored = rescore(db, feedbackVector(vector, top), union, union.length).map((n): [number, number] => [
        n.id,
        1 - n.distance,
      ]);
      const near = new Set(meaning.map(([id]) => id)); // the meaning half's own candidates stay its matches
      meaning = scored.filter(([id]) => near.has(id));
      cosines = scored.filter(([id]) => !near.has(id));
      if (weights.adaptive)
        fusion = { ...weights, meaning: meaningWeight(weights.meaning, wordEvidence(db, vaultId, query, words)) };
    }
  }
  return { hits: fuse({ words, meaning, cosines }, fusion), mode };
}

export async function searchChunks(
  db: Db,
  vaultId: string,
  query: string,
  options: SearchOptions,
): Promise<{ hits: SearchHit[]; mode: SearchMode }> {
  // The query is embedded in the embedder's worker while BM25 runs here: the two costs overlap.
  const useMeaning = usesMeaning(db, vaultId, options);
  const embedding = useMeaning ? queryVectorsOf(options.embedder!, [query], options.caller) : undefined;
  embedding?.catch(() => {}); // awaited below; this only keeps an early rejection from going unhandled
  const plan = planSearch(db, vaultId, options);
  const words = wordsHalf(db, vaultId, query, plan);
  const vector = embedding ? (await embedding)[0] : undefined;
  const { hits, mode } = fusePhrasing(db, vaultId, query, words, vector, plan);
  return { hits: hits.slice(0, options.limit), mode };
}
