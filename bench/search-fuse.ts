/**
 * `npx tsx bench/search-fuse.ts`: fusion experiments of issue 19 (docs/search.md, "What was tried"), on the store
 * `bench:search` builds (run that first). For each query of the five sets it reads once, as search does: the
 * words half (frame-free BM25, top 50 with scores), plain BM25 (the baseline), the meaning half (the 50 nearest
 * chunks with their cosine), the exact cosine of every words candidate (float16 re-score, as `rescore` does),
 * and the word evidence (`wordEvidence`). These are kept in bench/.cache/…/fuse-prepared.json, so a re-run scores
 * variants in memory in a second. Choose on the TUNING columns; the REPORT columns are recorded, never chosen on.
 * `--fresh` re-reads the store. `ONLY=regex` scores only the variants it matches. Some rounds run only when asked,
 * since they read or embed more: `ONLY=terms` the third round's expansion from the vault's vocabulary (section 15),
 * `ONLY=context` the fourth round's meeting and neighbour context (16), `ONLY=centred` the fifth round's centred
 * vectors (17), `ONLY=diverse` the sixth round's diversity in the head (18), `ONLY=clean` the seventh round's chunk
 * text for the embedder (19), `ONLY=prf` the eighth round's weighted word feedback (20), `ONLY=speakers` the ninth
 * round's people named in the question (21), `ONLY=titles` and `ONLY=windows` the tenth and eleventh rounds' meeting
 * titles and window cuts (22, 23), `ONLY=wordtext` the twelfth round's word index over the same text (24). After
 * `npm run bench:search` has re-imported the fixture vaults (new chunk ids), run once with `--fresh`.
 * `ONLY=adaptfb` runs the thirteenth round's feedback adapted to absent words (25), `ONLY=hubs` the fourteenth
 * round's hub scaling (26), `ONLY=coverage` the fifteenth round's coverage of the question's words (27),
 * `ONLY=pools` the eighteenth round's deeper candidate pools (28), `ONLY=misses` where the shipped misses its answer
 * (29), `ONLY=learned` the nineteenth round's fitted correction to the fusion (30), `ONLY=entities` the twentieth
 * round's links to the vault's entities (31).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../src/store/db.js';
import { nearestChunks, rescore } from '../src/search/vectors.js';
import { FEEDBACK, feedbackVector, FUSION, fuse, meanAndSpread, meaningWeight, queryWords, wordEvidence, wordTerms, type WordEvidence } from '../src/search/transcripts.js';
import { bm25Ranking, ensureWordIndex } from '../src/search/word-index.js';
import { halfTable } from '../src/search/vector-codes.js';
import { tokens } from '../src/store/text.js';
import { embeddingWindows } from '../src/search/embed-chunks.js';
import { embeddingText } from '../src/store/embedding-text.js';
import { CACHE, openBench, type Labelled } from './search.js';

export interface Prepared {
  query: string;
  relevant: number[];
  /** frame-free BM25 (the shipped words half), [id, score], best first */
  words: [number, number][];
  /** plain BM25 (stop words dropped only) */
  plain: number[];
  /** the 50 nearest chunks, [id, cosine], best first */
  vec: [number, number][];
  /** exact cosine of each words candidate */
  wordCos: [number, number][];
  evidence: WordEvidence;
  /** the query's vector */
  vector: number[];
}

/** Answers kept by key: the rounds read or compute the same thing for many variants. */
function memo<V>(): (key: string, make: () => V) => V {
  const answers = new Map<string, V>();
  return (key, make) => {
    if (!answers.has(key)) answers.set(key, make());
    return answers.get(key)!;
  };
}

const SETS = ['QMSum tune', 'QMSum report', 'para tune', 'para report', 'lexical tune'] as const;
const TUNING = new Set(['QMSum tune', 'para tune', 'lexical tune']);
const FILE = join(CACHE, 'fuse-prepared.json');

async function prepare(): Promise<Record<string, Prepared[]>> {
  const { db, model, embedder, sets } = openBench();
  const chunksOf = db.prepare('SELECT id, meeting_id, turn_start, turn_end FROM transcript_chunks WHERE vault_id = ?');
  const out: Record<string, Prepared[]> = {};
  const n = FUSION.candidates;
  for (const [name, queries] of Object.entries(sets) as [string, Labelled[]][]) {
    out[name] = [];
    for (const q of queries) {
      const chunks = chunksOf.all(q.vault) as { id: number; meeting_id: string; turn_start: number; turn_end: number }[];
      const relevant = chunks.filter((c) => q.answers.some((a) => a.meetingId === c.meeting_id && c.turn_start <= a.turns[1] && c.turn_end >= a.turns[0])).map((c) => c.id);
      const match = wordTerms(q.query);
      const words = match ? bm25Ranking(db, q.vault, match, n) : [];
      const plainMatch = wordTerms(q.query, { keepFrame: true });
      const plain = plainMatch ? bm25Ranking(db, q.vault, plainMatch, 10).map(([id]) => id) : [];
      const [vector] = await embedder.embed([q.query]);
      const vec = nearestChunks(db, q.vault, vector!, n).map((x) => [x.id, 1 - x.distance] as [number, number]);
      const wordCos = rescore(db, vector!, words.map(([id]) => id), n).map((x) => [x.id, 1 - x.distance] as [number, number]);
      out[name]!.push({ query: q.query, relevant, words, plain, vec, wordCos, evidence: wordEvidence(db, q.vault, q.query, words), vector: [...vector!] });
    }
  }
  await model.close();
  db.close();
  return out;
}

const data: Record<string, Prepared[]> = !process.argv.includes('--fresh') && existsSync(FILE) ? JSON.parse(readFileSync(FILE, 'utf8')) : await prepare();
if (!existsSync(FILE) || process.argv.includes('--fresh')) writeFileSync(FILE, JSON.stringify(data));

type Ranker = (p: Prepared) => number[];
const ids = (l: [number, number][]) => l.map(([id]) => id);

function score(ranker: Ranker, ps: Prepared[]): [number, number] {
  let mrr = 0;
  let hit5 = 0;
  for (const p of ps) {
    const rel = new Set(p.relevant);
    const i = ranker(p).slice(0, 10).findIndex((id) => rel.has(id));
    if (i >= 0) mrr += 1 / (i + 1);
    if (i >= 0 && i < 5) hit5++;
  }
  return [mrr / ps.length, hit5 / ps.length];
}

const wordsOnly: Ranker = (p) => ids(p.words);
const baseline = Object.fromEntries(SETS.map((s) => [s, score(wordsOnly, data[s]!)]));

/** One line per variant: tuning columns, report columns, and whether it ever falls below words alone. */
function report(name: string, ranker: Ranker) {
  const cells = SETS.map((s) => {
    const [m, h] = score(ranker, data[s]!);
    const below = m < baseline[s]![0] - 1e-9 || h < baseline[s]![1] - 1e-9;
    return `${m.toFixed(3)}/${h.toFixed(3)}${below ? '-' : ' '}`;
  });
  const tune = SETS.map((s, i) => (TUNING.has(s) ? cells[i] : '')).filter(Boolean);
  const rep = SETS.map((s, i) => (TUNING.has(s) ? '' : cells[i])).filter(Boolean);
  process.stdout.write(`${name.padEnd(58)} T ${tune.join(' ')} | R ${rep.join(' ')}\n`);
  // The choice rule, fixed before looking at any variant's report columns: no tuning cell below words alone, then
  // the largest sum of MRR@10 + hit@5 gains over words alone on the three tuning sets.
  let gain = 0;
  let harmless = true;
  for (const s of SETS.filter((x) => TUNING.has(x))) {
    const [m, h] = score(ranker, data[s]!);
    gain += m - baseline[s]![0] + h - baseline[s]![1];
    if (m < baseline[s]![0] - 1e-9 || h < baseline[s]![1] - 1e-9) harmless = false;
  }
  ranked.push({ name, gain, harmless, rep: rep.join(' ') });
}
const ranked: { name: string; gain: number; harmless: boolean; rep: string }[] = [];
process.on('exit', () => {
  process.stdout.write('\nby the tuning rule (harmless on every tuning cell, then the largest gain):\n');
  for (const r of ranked.filter((x) => x.harmless).sort((a, b) => b.gain - a.gain).slice(0, Number(process.env.TOP ?? 12))) process.stdout.write(`  ${r.gain.toFixed(3)}  ${r.name.padEnd(58)} R ${r.rep}\n`);
});
process.stdout.write(`${''.padEnd(58)}   QMSum tune    para tune     lexical     | R QMSum report  para report   ('-': below words alone)\n`);
report('plain BM25', (p) => p.plain);
report('words only (shipped words half)', wordsOnly);
report('vectors only', (p) => ids(p.vec));

/** The meaning weight of the reciprocal-rank fusion shipped before (base 0.5, k 10), moved per question as shipped. */
const RRF = { k: 10, base: 0.5 };
const shippedWeight = (p: Prepared, base = RRF.base) => meaningWeight(base, p.evidence);
const rrfLists = (words: number[], meaning: number[], w: number) => {
  const s = new Map<number, number>();
  words.forEach((id, i) => s.set(id, 1 / (RRF.k + i + 1)));
  meaning.forEach((id, i) => s.set(id, (s.get(id) ?? 0) + w / (RRF.k + i + 1)));
  return [...s.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
};
const rrf = (p: Prepared, w: number) => rrfLists(ids(p.words), ids(p.vec), w);
report('before: rrf k 10, adaptive w (base 0.5)', (p) => rrf(p, shippedWeight(p)));
report('z-score fusion, adaptive w (base 1)', (p) =>
  fuse({ words: p.words, meaning: p.vec, cosines: p.wordCos }, { ...FUSION, meaning: meaningWeight(FUSION.meaning, p.evidence) }).map((h) => h.chunkId),
);


// ---- variants ----
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : undefined;
const variant = (name: string, ranker: Ranker) => {
  if (!only || only.test(name)) report(name, ranker);
};
const cosOf = (p: Prepared) => {
  const m = new Map<number, number>(p.wordCos);
  for (const [id, c] of p.vec) m.set(id, c);
  return m;
};
const absent = (p: Prepared) => p.evidence.absentShare;
const vgap = (p: Prepared) => (p.vec.length >= 10 ? p.vec[0]![1] - p.vec[9]![1] : 0);
const sortDesc = (m: Map<number, number>) => [...m.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);

// 1. Guarding the words' head: keep BM25's top h in place when its head is confident; the rest fused as shipped.
for (const h of [1, 2, 3]) {
  for (const t of [0, 1.5, 2, 2.5, 3]) {
    variant(`head guard: words top${h} kept when head >= ${t}`, (p) => {
      const fused = rrf(p, shippedWeight(p));
      if (p.evidence.headRatio < t || absent(p) > 0) return fused;
      const top = ids(p.words).slice(0, h);
      return [...top, ...fused.filter((id) => !top.includes(id))];
    });
  }
}
// 1b. Guard by absent words only: queries whose words are all in the vault keep BM25's top h.
for (const h of [1, 2, 3]) {
  variant(`guard: words top${h} kept when no word absent`, (p) => {
    const fused = rrf(p, shippedWeight(p));
    if (absent(p) > 0) return fused;
    const top = ids(p.words).slice(0, h);
    return [...top, ...fused.filter((id) => !top.includes(id))];
  });
}

// 2. Fusion by normalised scores over the union of both halves' candidates (every candidate has an exact cosine;
// a meaning-only candidate has BM25 0). BM25 / its best; cosine min-max between the 50th neighbour and the best.
const combSum = (p: Prepared, lambda: number, norm: 'max' | 'minmax' | 'z') => {
  const cos = cosOf(p);
  const b = new Map<number, number>(p.words);
  const s = new Map<number, number>();
  const bs = p.words.map(([, x]) => x);
  const cs = [...cos.values()];
  const bMax = Math.max(...bs, 1e-9);
  const bMin = bs.length ? Math.min(...bs) : 0;
  const cMax = p.vec[0]?.[1] ?? 1;
  const cMin = p.vec.at(-1)?.[1] ?? 0;
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
  const sd = (a: number[]) => Math.sqrt(mean(a.map((x) => (x - mean(a)) ** 2))) || 1;
  const bm = mean(bs), bsd = sd(bs), cm = mean(cs), csd = sd(cs);
  for (const id of new Set([...b.keys(), ...cos.keys()])) {
    const bv = b.get(id);
    const cv = cos.get(id) ?? cMin;
    let x: number;
    if (norm === 'max') x = (bv ?? 0) / bMax + lambda * Math.max(0, (cv - cMin) / (cMax - cMin || 1));
    else if (norm === 'minmax') x = (bv === undefined ? 0 : (bv - bMin) / (bMax - bMin || 1)) + lambda * Math.max(0, (cv - cMin) / (cMax - cMin || 1));
    else x = (bv === undefined ? -2 : (bv - bm) / bsd) + lambda * ((cv - cm) / csd);
    s.set(id, x);
  }
  return sortDesc(s);
};
for (const norm of ['max', 'minmax', 'z'] as const) {
  for (const l of [0.25, 0.5, 0.75, 1]) variant(`combsum ${norm} fixed λ${l}`, (p) => combSum(p, l, norm));
  for (const l of [0.5, 1, 1.5, 2]) variant(`combsum ${norm} adaptive λ=${l}·w/0.5`, (p) => combSum(p, (l * shippedWeight(p)) / 0.5, norm));
}

// 3. Meaning re-ranks the words' top N by cosine (no meaning-only insertions), then the rest fused as shipped.
for (const n of [5, 10, 20]) {
  for (const l of [0.25, 0.5, 1]) {
    variant(`rerank words top${n} by b/bmax + ${l}·w/0.5·ĉ`, (p) => {
      const cos = cosOf(p);
      const top = p.words.slice(0, n);
      const cs = top.map(([id]) => cos.get(id) ?? 0);
      const cMax = Math.max(...cs), cMin = Math.min(...cs);
      const bMax = top[0]?.[1] ?? 1;
      const lam = (l * shippedWeight(p)) / 0.5;
      const re = top
        .map(([id, b], i) => [id, b / bMax + lam * ((cs[i]! - cMin) / (cMax - cMin || 1))] as [number, number])
        .sort((a, c) => c[1] - a[1])
        .map(([id]) => id);
      const fused = rrf(p, shippedWeight(p));
      return [...re, ...fused.filter((id) => !re.includes(id))];
    });
  }
}

// 4. Vector confidence: top-1 − top-10 cosine, multiplying the shipped weight.
for (const v0 of [0.04, 0.06, 0.08]) for (const c of [5, 10, 20]) {
  variant(`shipped w × clamp(1 + ${c}(vgap − ${v0}))`, (p) => rrf(p, shippedWeight(p) * Math.max(0.2, Math.min(2, 1 + c * (vgap(p) - v0)))));
}

// 5. RRF with cosine-aware meaning ranks: meaning's RRF term scaled by the candidate's cosine over the best.
for (const e of [1, 4, 8]) {
  variant(`rrf, meaning term × (cos/cos1)^${e}`, (p) => {
    const w = shippedWeight(p);
    const s = new Map<number, number>();
    p.words.forEach(([id], i) => s.set(id, 1 / (RRF.k + i + 1)));
    const c1 = p.vec[0]?.[1] ?? 1;
    p.vec.forEach(([id, c], i) => s.set(id, (s.get(id) ?? 0) + (w * (c / c1) ** e) / (RRF.k + i + 1)));
    return sortDesc(s);
  });
}

// 6. Normalised-score fusion, finer: the cosine's floor (50th neighbour, or the 10th / median), and λ's own
// adaptation (the shipped meaningWeight, or absent + keywords only, since max-normalised BM25 already shows its head).
const combMax = (p: Prepared, lambda: number, floorAt: number, bPow = 1) => {
  const cos = cosOf(p);
  const b = new Map<number, number>(p.words);
  const bMax = p.words[0]?.[1] ?? 1;
  const cMax = p.vec[0]?.[1] ?? 1;
  const cMin = p.vec[Math.min(floorAt, p.vec.length) - 1]?.[1] ?? 0;
  const s = new Map<number, number>();
  for (const id of new Set([...b.keys(), ...cos.keys()])) {
    const cv = cos.get(id) ?? cMin;
    s.set(id, ((b.get(id) ?? 0) / bMax) ** bPow + lambda * Math.max(0, (cv - cMin) / (cMax - cMin || 1)));
  }
  return sortDesc(s);
};
const noHead = (p: Prepared, base: number) => meaningWeight(base, { ...p.evidence, headRatio: 1 });
for (const floorAt of [10, 25, 50]) {
  for (const base of [0.3, 0.4, 0.5, 0.6, 0.75]) {
    variant(`combmax floor${floorAt} λ=w(${base})`, (p) => combMax(p, shippedWeight(p, base), floorAt));
    variant(`combmax floor${floorAt} λ=w(${base}) no head`, (p) => combMax(p, noHead(p, base), floorAt));
  }
}

// 7. Meeting agreement: a meaning-only candidate from a meeting the words half does not point to counts less
// (and the reverse). The meetings of the chunks are read once.
const meetingOf = new Map<number, string>();
{
  const db = openDb(CACHE);
  for (const [id, m] of db.prepare('SELECT id, meeting_id FROM transcript_chunks').raw().all() as [number, string][]) meetingOf.set(id, m);
  db.close();
}
const meetingRrf = (p: Prepared, w: number, top: number, gamma: number, both: boolean) => {
  const wm = new Set(ids(p.words).slice(0, top).map((id) => meetingOf.get(id)));
  const vm = new Set(ids(p.vec).slice(0, top).map((id) => meetingOf.get(id)));
  const s = new Map<number, number>();
  p.words.forEach(([id], i) => s.set(id, (both && !vm.has(meetingOf.get(id)) ? gamma : 1) / (RRF.k + i + 1)));
  p.vec.forEach(([id], i) => s.set(id, (s.get(id) ?? 0) + (w * (wm.has(meetingOf.get(id)) ? 1 : gamma)) / (RRF.k + i + 1)));
  return sortDesc(s);
};
for (const top of [5, 10, 20]) for (const gamma of [0, 0.25, 0.5]) {
  variant(`meeting: meaning × ${gamma} outside words' top${top} meetings`, (p) => meetingRrf(p, shippedWeight(p), top, gamma, false));
  variant(`meeting: both ways × ${gamma}, top${top}`, (p) => meetingRrf(p, shippedWeight(p), top, gamma, true));
}

// 8. Feedback on the meaning side (Rocchio): the query vector moved towards the vectors of the top chunks (of the
// words half, or of the fused ranking), q' = q/|q| + β·mean(top); re-scored over the union of both halves'
// candidates only (constant work per query), or over the whole vault (a second vector search).
const chunkVec = new Map<number, Float32Array>();
const vaultOfChunk = new Map<number, string>();
{
  const db = openDb(CACHE);
  const table = halfTable();
  for (const [id, blob, vault] of db.prepare('SELECT f.chunk_id, f.vector, c.vault_id FROM chunk_vector_floats f JOIN transcript_chunks c ON c.id = f.chunk_id').raw().all() as [number, Buffer, string][]) {
    const b = Buffer.from(blob);
    const h = new Uint16Array(b.buffer, b.byteOffset, b.length / 2);
    const v = new Float32Array(h.length);
    let n = 0;
    for (let d = 0; d < h.length; d++) n += (v[d] = table[h[d]!]!) ** 2;
    n = Math.sqrt(n) || 1;
    for (let d = 0; d < h.length; d++) v[d]! /= n;
    chunkVec.set(id, v);
    vaultOfChunk.set(id, vault);
  }
  db.close();
}
const vaultOfQuery = (p: Prepared) => vaultOfChunk.get(p.relevant[0] ?? p.words[0]?.[0] ?? p.vec[0]![0])!;
/** The query moved towards these chunks' vectors, as search does (feedbackVector). */
const moved = (p: Prepared, fb: number[], beta: number) =>
  feedbackVector(Float32Array.from(p.vector), fb.map((id) => chunkVec.get(id)).filter((v): v is Float32Array => v !== undefined), beta);
const cosine = (q: Float32Array, v: Float32Array) => {
  let dot = 0, qq = 0;
  for (let d = 0; d < q.length; d++) { dot += q[d]! * v[d]!; qq += q[d]! * q[d]!; }
  return dot / (Math.sqrt(qq) || 1);
};
const rocchioCache = memo<number[]>();
const rocchio = (p: Prepared, from: 'words' | 'fused', k: number, beta: number, scope: 'union' | 'vault') => {
  const key = `${p.query}|${from}|${k}|${beta}|${scope}`;
  return rocchioCache(key, () => {
    const fb = (from === 'words' ? ids(p.words) : rrf(p, shippedWeight(p))).slice(0, k);
    const q = moved(p, fb, beta);
    const pool = scope === 'union' ? [...new Set([...ids(p.words), ...ids(p.vec)])] : [...chunkVec.keys()].filter((id) => vaultOfChunk.get(id) === vaultOfQuery(p));
    const ranked = pool.map((id) => [id, chunkVec.has(id) ? cosine(q, chunkVec.get(id)!) : -1] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, FUSION.candidates).map(([id]) => id);
    return ranked;
  });
};
for (const from of ['words', 'fused'] as const) for (const k of [3, 5]) for (const beta of [0.5, 1]) for (const scope of ['union', 'vault'] as const) {
  variant(`rocchio ${from} top${k} β${beta} ${scope}: rrf adaptive`, (p) => rrfLists(ids(p.words), rocchio(p, from, k, beta, scope), shippedWeight(p)));
}

// 9. Both: meaning's ranking from the moved query, fused by normalised scores.
const combWith = (p: Prepared, meaning: Map<number, number>, lambda: number) => {
  const b = new Map<number, number>(p.words);
  const bMax = p.words[0]?.[1] ?? 1;
  const cs = [...meaning.values()].sort((a, c) => c - a);
  const cMax = cs[0] ?? 1;
  const cMin = cs[Math.min(FUSION.candidates, cs.length) - 1] ?? 0;
  const s = new Map<number, number>();
  for (const id of new Set([...b.keys(), ...meaning.keys()])) s.set(id, (b.get(id) ?? 0) / bMax + lambda * Math.max(0, ((meaning.get(id) ?? cMin) - cMin) / (cMax - cMin || 1)));
  return sortDesc(s);
};
for (const k of [3, 5]) for (const beta of [0.25, 0.5]) for (const base of [0.4, 0.5]) {
  variant(`rocchio words top${k} β${beta} union, combmax λ=w(${base})`, (p) => {
    const q = moved(p, ids(p.words).slice(0, k), beta);
    const pool = new Set([...ids(p.words), ...ids(p.vec)]);
    const m = new Map<number, number>([...pool].filter((id) => chunkVec.has(id)).map((id) => [id, cosine(q, chunkVec.get(id)!)]));
    return combWith(p, m, shippedWeight(p, base));
  });
}
for (const k of [5, 8]) for (const beta of [0.25, 0.5, 0.75]) if (k !== 5 || beta !== 0.5) {
  variant(`rocchio words top${k} β${beta} union: rrf adaptive`, (p) => rrfLists(ids(p.words), rocchio(p, 'words', k, beta, 'union'), shippedWeight(p)));
}

// 10. z-score fusion, with the BM25 of a meaning-only candidate (not in the words' top 50) set to the 50th's score
// (its upper bound), to 0 (no word matched), or to z = −2.
const zFuse = (p: Prepared, lambda: number, absentB: 'min' | 'zero' | 'z-2') => {
  const cos = cosOf(p);
  const b = new Map<number, number>(p.words);
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
  const sd = (a: number[], m: number) => Math.sqrt(mean(a.map((x) => (x - m) ** 2))) || 1;
  const bs = p.words.map(([, x]) => x);
  const cs = [...cos.values()];
  const bm = mean(bs), bsd = sd(bs, bm), cm = mean(cs), csd = sd(cs, cm);
  const bLow = bs.length ? Math.min(...bs) : 0;
  const s = new Map<number, number>();
  for (const id of new Set([...b.keys(), ...cos.keys()])) {
    const bv = b.get(id);
    const bz = bv !== undefined ? (bv - bm) / bsd : absentB === 'z-2' ? -2 : ((absentB === 'min' ? bLow : 0) - bm) / bsd;
    s.set(id, bz + lambda * (((cos.get(id) ?? cm) - cm) / csd));
  }
  return sortDesc(s);
};
for (const imp of ['min', 'zero', 'z-2'] as const) for (const l of [0.5, 0.75, 1, 1.25, 1.5]) {
  variant(`zfuse bm25 of meaning-only = ${imp}, λ=${l}·w/0.5`, (p) => zFuse(p, (l * shippedWeight(p)) / 0.5, imp));
}

// 11. On top of the z-score fusion: the adaptation re-fitted, the vector head, and meaning-side feedback (shipped:
// "z: rocchio words top5 β0.25", = FEEDBACK in src/search/transcripts.ts; `npm run bench:search` gives the same numbers).
const zShip = (p: Prepared, w: number, meaning: [number, number][] = p.vec, cosines: [number, number][] = p.wordCos) =>
  fuse({ words: p.words, meaning, cosines }, { ...FUSION, meaning: w }).map((h) => h.chunkId);
const adapt = (p: Prepared, base: number, a: number, h0: number, g: number, kw = 0.25) => {
  const e = p.evidence;
  return ((e.functionShare ?? 1) < 0.15 ? kw : 1) * base * (1 + a * e.absentShare) / (1 + g * Math.max(0, e.headRatio - h0));
};
for (const a of [1, 2, 3]) for (const h0 of [2, 3, 4]) for (const g of [0.5, 1]) {
  variant(`z: adapt absent ${a} head ${h0} slope ${g}`, (p) => zShip(p, adapt(p, 1, a, h0, g)));
}
for (const kw of [0.5, 1]) variant(`z: keywords × ${kw}`, (p) => zShip(p, adapt(p, 1, 2, 3, 0.5, kw)));
for (const v0 of [0.06, 0.08]) for (const c of [5, 10]) {
  variant(`z: w × clamp(1 + ${c}(vgap − ${v0}))`, (p) => zShip(p, meaningWeight(1, p.evidence) * Math.max(0.2, Math.min(2, 1 + c * (vgap(p) - v0)))));
}
for (const k of [3, 5, 8]) for (const beta of [0.15, 0.25, 0.35, 0.5]) {
  variant(`z: rocchio words top${k} β${beta} (union re-scored)`, (p) => {
    const q = moved(p, ids(p.words).slice(0, k), beta);
    const pool = [...new Set([...ids(p.words), ...ids(p.vec)])].filter((id) => chunkVec.has(id));
    const all = pool.map((id) => [id, cosine(q, chunkVec.get(id)!)] as [number, number]).sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    return zShip(p, meaningWeight(1, p.evidence), all.slice(0, FUSION.candidates), all.slice(FUSION.candidates));
  });
}

// 12. Proximity of the query's words in the words candidates: the share of the query's word pairs that occur within
// `span` tokens of each other in the chunk (prefix match of 5 letters standing in for stems), added to z(BM25).
const textOf = new Map<number, string[]>();
{
  const db = openDb(CACHE);
  for (const [id, t] of db.prepare('SELECT id, text FROM transcript_chunks').raw().all() as [number, string][]) textOf.set(id, tokens(t));
  db.close();
}
const stemish = (w: string) => w.slice(0, 5);
const proximity = (p: Prepared, id: number, span: number) => {
  const q = [...new Set(queryWords(p.query).map(stemish))];
  if (q.length < 2) return 0;
  const pos = new Map<string, number[]>();
  (textOf.get(id) ?? []).forEach((w, i) => {
    const st = stemish(w);
    if (q.includes(st)) pos.set(st, [...(pos.get(st) ?? []), i]);
  });
  let near = 0;
  for (let a = 0; a < q.length; a++) for (let b = a + 1; b < q.length; b++) {
    const pa = pos.get(q[a]!), pb = pos.get(q[b]!);
    if (pa && pb && pa.some((x) => pb.some((y) => Math.abs(x - y) <= span))) near++;
  }
  return near / ((q.length * (q.length - 1)) / 2);
};
for (const span of [5, 10]) for (const pi of [0.5, 1]) {
  variant(`z + rocchio: words z + ${pi}·proximity(${span})`, (p) => {
    const words = p.words.map(([id, b]) => [id, b] as [number, number]);
    const bs = meanAndSpread(words.map(([, b]) => b));
    const boosted = words.map(([id, b]) => [id, b + pi * bs.sd * proximity(p, id, span)] as [number, number]).sort((x, y) => y[1] - x[1]);
    const q = moved(p, ids(p.words).slice(0, 5), 0.25);
    const pool = [...new Set([...ids(p.words), ...ids(p.vec)])].filter((id) => chunkVec.has(id));
    const all = pool.map((id) => [id, cosine(q, chunkVec.get(id)!)] as [number, number]);
    return fuse({ words: boosted, meaning: all }, { ...FUSION, meaning: meaningWeight(1, p.evidence) }).map((h) => h.chunkId);
  });
}

// 13. Long questions, query side: each clause of a compound question (split at , ; ? and "and", clauses of 3+
// words) embedded too; a candidate's cosine is the best over the (moved) question and its clauses, or their mean.
if (!only || only.test('clauses')) {
  const { createDefaultEmbedder } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  const clauseVecs = new Map<string, Float32Array[]>();
  for (const s of SETS) for (const p of data[s]!) {
    const clauses = p.query.split(/,|;|\?| and /).map((c) => c.trim()).filter((c) => c.split(/\s+/).length >= 3);
    clauseVecs.set(p.query, clauses.length > 1 ? await embedder.embed(clauses) : []);
  }
  await model.close();
  for (const how of ['max', 'mean'] as const) for (const beta of [0, 0.25]) {
    variant(`clauses: ${how} over question and clauses, rocchio β${beta}`, (p) => {
      const q = moved(p, ids(p.words).slice(0, 5), beta);
      const cs = clauseVecs.get(p.query)!.map((c) => moved({ ...p, vector: [...c] }, ids(p.words).slice(0, 5), beta));
      const pool = [...new Set([...ids(p.words), ...ids(p.vec)])].filter((id) => chunkVec.has(id));
      const all = pool.map((id) => {
        const v = chunkVec.get(id)!;
        const xs = [cosine(q, v), ...cs.map((c) => cosine(c, v))];
        return [id, how === 'max' ? Math.max(...xs) : xs.reduce((a, x) => a + x, 0) / xs.length] as [number, number];
      });
      return fuse({ words: p.words, meaning: all }, { ...FUSION, meaning: meaningWeight(1, p.evidence) }).map((h) => h.chunkId);
    });
  }
}

// 14. Finer vectors, for re-scoring only (`--units N`): each candidate chunk's "Speaker: words" lines packed into
// units of about N characters (chunkUnits), embedded once (cached with the bench's other vectors). A candidate's
// meaning score is mix × (the mean of its best `top` units' cosines) + (1 − mix) × its chunk cosine, against the
// (moved, as shipped) query vector. Only the candidates of both halves are re-scored: a few hundred unit vectors a
// query, what search could afford from a table of unit vectors; the candidates still come from the chunk vectors.
const unitsAt = process.argv.indexOf('--units');
if (unitsAt >= 0) {
  const chars = Number(process.argv[unitsAt + 1]);
  const { createDefaultEmbedder, indexWorkers } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const { chunkUnits } = await import('./lib/units.js');
  const db = openDb(CACHE);
  const textOfChunk = new Map(db.prepare('SELECT id, text FROM transcript_chunks').raw().all() as [number, string][]);
  db.close();
  const needed = new Set<number>();
  for (const s of SETS) for (const p of data[s]!) for (const id of [...ids(p.words), ...ids(p.vec)]) needed.add(id);
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  const unitVecs = new Map<number, Float32Array[]>();
  const list = [...needed].filter((id) => textOfChunk.has(id));
  const t0 = Date.now();
  let unitCount = 0;
  for (let i = 0; i < list.length; i += 16) {
    const batch = list.slice(i, i + 16);
    const texts = batch.map((id) => chunkUnits(textOfChunk.get(id)!, chars));
    const flat = await embedder.embed(texts.flat(), { background: true });
    let k = 0;
    batch.forEach((id, j) => unitVecs.set(id, texts[j]!.map(() => flat[k++]!)));
    unitCount += flat.length;
    if (i % 320 === 0) process.stderr.write(`units: ${i}/${list.length} chunks\n`);
  }
  process.stderr.write(`units: ${list.length} chunks -> ${unitCount} units of <= ${chars} chars in ${((Date.now() - t0) / 1000).toFixed(0)} s (${indexWorkers()} workers; cached vectors are not re-embedded)\n`);
  await model.close();
  const unitScored = (p: Prepared, mix: number, top: number) => {
    const q = moved(p, ids(p.words).slice(0, 5), 0.25);
    const pool = [...new Set([...ids(p.words), ...ids(p.vec)])].filter((id) => chunkVec.has(id));
    const all = pool.map((id) => {
      const sims = (unitVecs.get(id) ?? []).map((u) => cosine(q, u)).sort((a, b) => b - a);
      const k = Math.min(top, sims.length);
      const best = k ? sims.slice(0, k).reduce((a, x) => a + x, 0) / k : 0;
      const whole = cosine(q, chunkVec.get(id)!);
      return [id, k ? mix * best + (1 - mix) * whole : whole] as [number, number];
    });
    return fuse({ words: p.words, meaning: all }, { ...FUSION, meaning: meaningWeight(1, p.evidence) }).map((h) => h.chunkId);
  };
  for (const top of [1, 2]) for (const mix of [0.25, 0.5, 0.75]) variant(`z + rocchio + units${chars} top${top} mix${mix}`, (p) => unitScored(p, mix, top));
}

// 15. Expansion from the vault's own vocabulary, by meaning (third round; only with `ONLY=terms`, ~7 minutes of
// scoring for its 2,214 variants; docs/search.md): each
// vault's terms (the distinct words of its chunks grouped by stem, no stop words or numbers, 3+ letters:
// bench/lib/vault-terms.ts) and each query word are embedded alone (cached in bench/.cache/i19-terms/). A query
// word the vault never uses (`absent`), or every content word (`all`), brings its k nearest vault terms (held by
// at least `df` chunks, not a stem of the question) with similarity ≥ floor. They enter the words half at weight
// α (× their similarity: `·cos`): FTS5's BM25 sums over a query's phrases, so a chunk's score is Σ BM25 of the
// original words + α Σ BM25 of the expansion terms, each term's scores read alone; the new top 50 is the words
// half. The meaning side (`γ`): the query vector moved towards the expansion terms' vectors (γ × their mean)
// before the shipped feedback. Fused as shipped (z-scores, feedback from the words' top 5, adaptive w).
// Similarity, three ways (`TERMS_MODES`): `raw` cosine of the single-word vectors; `centred`: the vault
// vocabulary's mean vector taken out of terms and query words alike (single words share a large common
// direction: unrelated words sit at 0.6-0.8); `context`: centred + 0.5 × the term's raw cosine to the whole
// question (of the words near "lorries", those that fit what is asked). `TERMS_GRID` picks the families
// (words, fused, meaning, both); `TERMS_SHOW=1` prints the nearest terms of the paraphrase set's absent words.
if (only?.test('terms')) {
  const { mkdirSync } = await import('node:fs');
  const { createDefaultEmbedder } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const { stemmer, vaultVocabulary } = await import('./lib/vault-terms.js');
  type VaultTerm = import('./lib/vault-terms.js').VaultTerm;
  const dir = join(CACHE, '..', 'i19-terms');
  mkdirSync(dir, { recursive: true });
  const model = createDefaultEmbedder();
  const embedder = memoised(model, join(dir, 'term-vectors.db'));
  const db = openDb(CACHE);
  const stem = stemmer(db);
  const unit = (v: Float32Array) => {
    const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
    return v.map((x) => x / n);
  };
  const dot = (a: Float32Array, b: Float32Array) => {
    let d = 0;
    for (let k = 0; k < a.length; k++) d += a[k]! * b[k]!;
    return d;
  };
  const embedAll = async (words: string[]) => {
    const out: Float32Array[] = [];
    for (let i = 0; i < words.length; i += 512) out.push(...(await embedder.embed(words.slice(i, i + 512), { background: true })));
    return out.map(unit);
  };
  const all = SETS.flatMap((s) => data[s]!);
  const vaultOf = new Map(all.map((p) => [p.query, vaultOfQuery(p)]));
  const vocab = new Map<string, { terms: VaultTerm[]; raw: Float32Array[]; centred: Float32Array[]; mean: Float32Array }>();
  const t0 = Date.now();
  for (const vault of new Set(vaultOf.values())) {
    const terms = vaultVocabulary(db, vault, 1);
    const raw = await embedAll(terms.map((t) => t.word));
    const mean = new Float32Array(raw[0]!.length);
    for (const v of raw) for (let d = 0; d < v.length; d++) mean[d]! += v[d]! / raw.length;
    vocab.set(vault, { terms, raw, centred: raw.map((v) => unit(v.map((x, d) => x - mean[d]!))), mean });
    process.stderr.write(`terms: ${vault}: ${terms.length} stems (${terms.filter((t) => t.df >= 2).length} in 2+ chunks), ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  // Each query's content words (as the words half has them), their stems, whether the vault holds them, their vectors.
  const allWords = [...new Set(all.flatMap((p) => queryWords(p.query)))];
  const wordVecs = new Map((await embedAll(allWords)).map((v, i) => [allWords[i]!, v]));
  await model.close();
  const stemDf = new Map<string, (stem: string) => number>();
  for (const vault of vocab.keys()) {
    const t = ensureWordIndex(db, vault);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${t}_rows USING fts5vocab(main, ${t}, row)`);
    const get = db.prepare(`SELECT doc FROM temp.${t}_rows WHERE term = ?`).pluck();
    stemDf.set(vault, (s) => (get.get(s) as number | undefined) ?? 0);
  }
  interface QueryWord { word: string; stem: string; absent: boolean; raw: Float32Array; centred: Float32Array }
  const qWords = new Map<string, QueryWord[]>();
  for (const p of all) {
    const vault = vaultOf.get(p.query)!;
    const { mean } = vocab.get(vault)!;
    const ws = queryWords(p.query);
    const ss = stem(ws);
    qWords.set(p.query, ws.map((word, i) => {
      const raw = wordVecs.get(word)!;
      return { word, stem: ss[i]!, absent: stemDf.get(vault)!(ss[i]!) === 0, raw, centred: unit(raw.map((x, d) => x - mean[d]!)) };
    }));
  }
  // A term's BM25 over the vault, alone (FTS5 sums its bm25 over the phrases of a query, so these add up).
  const termScores = memo<Map<number, number>>();
  const scoresOf = (vault: string, word: string) => {
    const key = `${vault}|${word}`;
    return termScores(key, () => {
      const t = ensureWordIndex(db, vault);
      const m = new Map(db.prepare(`SELECT rowid, -bm25(${t}) FROM ${t} WHERE ${t} MATCH ?`).raw().all(`"${word}"`) as [number, number][]);
      return m;
    });
  };
  type Mode = 'raw' | 'centred' | 'context';
  // The 10 nearest vault terms of a query word (not a stem of the question), best first, [term index, similarity].
  const nearCache = memo<[number, number][]>();
  const nearest = (p: Prepared, w: QueryWord, mode: Mode) => {
    const vault = vaultOf.get(p.query)!;
    const key = `${mode}|${vault}|${w.word}|${mode === 'context' ? p.query : ''}`;
    return nearCache(key, () => {
      const own = new Set(qWords.get(p.query)!.map((x) => x.stem));
      const { terms, raw, centred } = vocab.get(vault)!;
      const q = unit(Float32Array.from(p.vector));
      const sims: [number, number][] = [];
      terms.forEach((t, i) => {
        if (own.has(t.stem)) return;
        sims.push([i, mode === 'raw' ? dot(raw[i]!, w.raw) : dot(centred[i]!, w.centred) + (mode === 'context' ? 0.5 * dot(raw[i]!, q) : 0)]);
      });
      const hit = sims.sort((a, b) => b[1] - a[1]).slice(0, 10);
      return hit;
    });
  };
  interface TermOptions { mode: Mode; scope: 'absent' | 'all'; k: number; floor: number; minDf: number }
  const expansions = (p: Prepared, o: TermOptions) => {
    const vault = vaultOf.get(p.query)!;
    const { terms, raw } = vocab.get(vault)!;
    const out = new Map<number, number>(); // term index -> similarity (the best over the query words that brought it)
    for (const w of qWords.get(p.query)!) {
      if (o.scope === 'absent' && !w.absent) continue;
      for (const [i, c] of nearest(p, w, o.mode).filter(([i, c]) => c >= o.floor && terms[i]!.df >= o.minDf).slice(0, o.k)) out.set(i, Math.max(out.get(i) ?? 0, c));
    }
    return [...out.entries()].map(([i, c]) => ({ word: terms[i]!.word, cos: c, vec: raw[i]! }));
  };
  const sanity = { checked: 0, off: 0 };
  const expandedWords = (p: Prepared, o: TermOptions, alpha: number, bySim: boolean): [number, number][] => {
    const vault = vaultOf.get(p.query)!;
    const s = new Map<number, number>();
    for (const w of qWords.get(p.query)!) for (const [id, x] of scoresOf(vault, w.word)) s.set(id, (s.get(id) ?? 0) + x);
    if (sanity.checked < 40 && p.words.length) {
      sanity.checked++; // the sum over words equals FTS5's own bm25 of the OR query
      if (Math.abs((s.get(p.words[0]![0]) ?? 0) - p.words[0]![1]) > 1e-6 * Math.abs(p.words[0]![1])) sanity.off++;
    }
    if (alpha) for (const e of expansions(p, o)) for (const [id, x] of scoresOf(vault, e.word)) s.set(id, (s.get(id) ?? 0) + alpha * (bySim ? e.cos : 1) * x);
    return [...s.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, FUSION.candidates);
  };
  const headOf = (w: [number, number][]) => (w.length && w[9] && w[9][1] > 0 ? w[0]![1] / w[9][1] : 1);
  const fusedWith = (p: Prepared, words: [number, number][], opts: { head?: 'expanded'; gamma?: number; exp?: { vec: Float32Array }[] } = {}) => {
    let base = Float32Array.from(p.vector);
    if (opts.gamma && opts.exp?.length) {
      base = unit(base);
      for (const e of opts.exp) for (let d = 0; d < base.length; d++) base[d]! += (opts.gamma * e.vec[d]!) / opts.exp.length;
    }
    const q = moved({ ...p, vector: [...base] }, ids(words).slice(0, 5), 0.25);
    const pool = [...new Set([...ids(words), ...ids(p.vec)])].filter((id) => chunkVec.has(id));
    const scored = pool.map((id) => [id, cosine(q, chunkVec.get(id)!)] as [number, number]);
    const near = new Set(ids(p.vec));
    const evidence = opts.head === 'expanded' ? { ...p.evidence, headRatio: headOf(words) } : p.evidence;
    return fuse({ words, meaning: scored.filter(([id]) => near.has(id)), cosines: scored.filter(([id]) => !near.has(id)) }, { ...FUSION, meaning: meaningWeight(FUSION.meaning, evidence) }).map((h) => h.chunkId);
  };
  const none: TermOptions = { mode: 'raw', scope: 'absent', k: 0, floor: 1, minDf: 1 };
  variant('terms: shipped, re-computed here', (p) => fusedWith(p, expandedWords(p, none, 0, false)));
  process.stderr.write(`terms: the words' BM25 as a sum of single-word BM25: ${sanity.checked - sanity.off}/${sanity.checked} equal to FTS5's own\n`);
  const modes = (process.env.TERMS_MODES ?? 'raw,centred,context').split(',') as Mode[];
  if (process.env.TERMS_SHOW) {
    for (const p of data['para tune']!.slice(0, 12)) for (const w of qWords.get(p.query)!.filter((x) => x.absent)) {
      const { terms } = vocab.get(vaultOf.get(p.query)!)!;
      for (const mode of modes) process.stderr.write(`  ${w.word.padEnd(12)} ${mode.padEnd(7)} -> ${nearest(p, w, mode).slice(0, 5).map(([i, c]) => `${terms[i]!.word} ${c.toFixed(2)}`).join(', ')}\n`);
    }
  }
  const grid = process.env.TERMS_GRID ?? 'words,fused,meaning,both';
  const FLOORS: Record<Mode, number[]> = { raw: [0.6, 0.65, 0.7], centred: [0.3, 0.4, 0.5], context: [0.4, 0.5, 0.6] };
  for (const mode of modes) {
    const floors = FLOORS[mode];
    for (const scope of ['absent', 'all'] as const) for (const k of [1, 2, 3]) for (const floor of floors) {
      for (const minDf of [1, 2]) for (const alpha of [0.15, 0.3, 0.5, 1]) for (const bySim of [false, true]) {
        const o = { mode, scope, k, floor, minDf };
        const name = `terms ${mode} ${scope} k${k} floor${floor} df${minDf} α${alpha}${bySim ? '·cos' : ''}`;
        if (grid.includes('words')) variant(`${name}: words only`, (p) => ids(expandedWords(p, o, alpha, bySim)));
        if (grid.includes('fused')) variant(`${name}: fused`, (p) => fusedWith(p, expandedWords(p, o, alpha, bySim)));
      }
      const o = { mode, scope, k, floor, minDf: 1 };
      if (grid.includes('meaning')) for (const gamma of [0.1, 0.25, 0.5]) {
        variant(`terms ${mode} ${scope} k${k} floor${floor} γ${gamma}: meaning side only`, (p) => fusedWith(p, p.words, { gamma, exp: expansions(p, o) }));
      }
      if (grid.includes('both')) for (const alpha of [0.3, 0.5, 1]) for (const gamma of [0.1, 0.25]) {
        variant(`terms ${mode} ${scope} k${k} floor${floor} df1 α${alpha}·cos γ${gamma}: both`, (p) => fusedWith(p, expandedWords(p, o, alpha, true), { gamma, exp: expansions(p, o) }));
      }
      if (grid.includes('head')) variant(`terms ${mode} ${scope} k${k} floor${floor} df1 α0.5·cos: fused, head of expanded`, (p) => fusedWith(p, expandedWords(p, o, 0.5, true), { head: 'expanded' }));
    }
  }
  db.close();
}

// 16. Context beyond the chunk (fourth round; only with `ONLY=context`; docs/search.md). The shipped fusion
// (z-scores, feedback from the words' top 5 at β 0.25, adaptive w) re-computed per candidate as its two terms,
// `words` = z(BM25) and `meaning` = w × z(cosine), then one of them (or their sum) smoothed by its context:
// - `meeting`: + μ × the meeting's score, the max (or the mean of the top 2 / 3) of that term over the candidates of
//   the candidate's own meeting (itself included): a question is about one meeting, and a meeting whose chunks
//   score well as a whole is more likely the one asked about (document-score interpolation of passage retrieval);
// - `neighbours`: + λ × the max (or the mean) of that term over the chunks just before and after it in its meeting
//   (chunk_index ± 1): an answer often spans two chunks. A neighbour that is not a candidate counts as BM25 0 (no
//   word of the question ranks it in the top 50: 0 is what fuse gives a meaning-only candidate) and its cosine is
//   read from its stored vector (search could read those few vectors as it reads the candidates').
// Only the union of both halves' candidates is re-ranked (no neighbour joins it). `words alone` lines smooth the
// words half's own ranking (for the table; not a hybrid).
if (only?.test('context')) {
  const db = openDb(CACHE);
  const place = new Map<number, { meeting: string; index: number }>();
  const atPlace = new Map<string, number>();
  for (const [id, meeting, index] of db.prepare('SELECT id, meeting_id, chunk_index FROM transcript_chunks').raw().all() as [number, string, number][]) {
    place.set(id, { meeting, index });
    atPlace.set(`${meeting}|${index}`, id);
  }
  db.close();
  const neighboursOf = (id: number) => {
    const at = place.get(id)!;
    return [atPlace.get(`${at.meeting}|${at.index - 1}`), atPlace.get(`${at.meeting}|${at.index + 1}`)].filter((x): x is number => x !== undefined);
  };
  interface Terms { words: Map<number, number>; meaning: Map<number, number>; union: number[] }
  const termsCache = memo<Terms>();
  /** The shipped fusion's two terms for every candidate, and for the candidates' neighbours. */
  const shippedTerms = (p: Prepared): Terms => {
    return termsCache(p.query, () => {
      const q = moved(p, ids(p.words).slice(0, FEEDBACK_CHUNKS), FEEDBACK_BETA);
      const union = [...new Set([...ids(p.vec), ...ids(p.words)])];
      const cos = new Map(union.filter((id) => chunkVec.has(id)).map((id) => [id, cosine(q, chunkVec.get(id)!)]));
      const bm = meanAndSpread(p.words.map(([, x]) => x));
      const cm = meanAndSpread([...cos.values()]);
      const w = meaningWeight(FUSION.meaning, p.evidence);
      const b = new Map(p.words);
      const words = new Map<number, number>();
      const meaning = new Map<number, number>();
      const termOf = (id: number) => {
        words.set(id, p.words.length ? ((b.get(id) ?? 0) - bm.mean) / bm.sd : 0);
        const c = cos.get(id) ?? (chunkVec.has(id) ? cosine(q, chunkVec.get(id)!) : cm.mean);
        meaning.set(id, cos.size ? (w * (c - cm.mean)) / cm.sd : 0);
      };
      for (const id of union) termOf(id);
      for (const id of union) for (const n of neighboursOf(id)) if (!words.has(n)) termOf(n);
      const t = { words, meaning, union };
      return t;
    });
  };
  type Part = 'words' | 'meaning' | 'fused';
  type Agg = 'max' | 'top2' | 'top3' | 'mean';
  const partOf = (t: Terms, part: Part) => (id: number) => (part === 'words' ? t.words.get(id)! : part === 'meaning' ? t.meaning.get(id)! : t.words.get(id)! + t.meaning.get(id)!);
  const aggregate = (xs: number[], agg: Agg) => {
    if (!xs.length) return 0;
    if (agg === 'max') return Math.max(...xs);
    const k = agg === 'top2' ? 2 : agg === 'top3' ? 3 : xs.length;
    const top = [...xs].sort((a, b) => b - a).slice(0, k);
    return top.reduce((a, x) => a + x, 0) / top.length;
  };
  /** Context of `part` for each of `pool`: its meeting's score among `pool`, or its neighbours'. */
  const contextOf = (t: Terms, pool: number[], part: Part, how: How, agg: Agg) => {
    const x = partOf(t, part);
    const out = new Map<number, number>();
    if (how === 'meeting') {
      const byMeeting = new Map<string, number[]>();
      for (const id of pool) {
        const m = place.get(id)!.meeting;
        byMeeting.set(m, [...(byMeeting.get(m) ?? []), x(id)]);
      }
      const score = new Map([...byMeeting].map(([m, xs]) => [m, aggregate(xs, agg)]));
      for (const id of pool) out.set(id, score.get(place.get(id)!.meeting)!);
    } else {
      const among = new Set(pool);
      for (const id of pool) out.set(id, aggregate(neighboursOf(id).filter((n) => how === 'neighbours' || among.has(n)).map(x), agg));
    }
    return out;
  };
  /** `neighbours among candidates`: a neighbour that is not a candidate is left out (no context from it) */
  type How = 'meeting' | 'neighbours' | 'neighbours among candidates';
  interface Smooth { part: Part; how: How; agg: Agg; mu: number }
  const smoothed = (p: Prepared, smooths: Smooth[], wordsAlone = false) => {
    const t = shippedTerms(p);
    const pool = wordsAlone ? ids(p.words) : t.union;
    const s = new Map(pool.map((id) => [id, wordsAlone ? t.words.get(id)! : t.words.get(id)! + t.meaning.get(id)!]));
    for (const sm of smooths) for (const [id, c] of contextOf(t, pool, sm.part, sm.how, sm.agg)) s.set(id, s.get(id)! + sm.mu * c);
    return sortDesc(s);
  };
  const FEEDBACK_CHUNKS = 5;
  const FEEDBACK_BETA = 0.25;
  variant('context: shipped, re-computed here', (p) => smoothed(p, []));
  const label = (sm: Smooth) => `${sm.how} ${sm.agg} of ${sm.part} ×${sm.mu}`;
  const MEETING: Agg[] = ['max', 'top2', 'top3'];
  const NEIGHBOURS: Agg[] = ['max', 'mean'];
  const MU = [0.1, 0.25, 0.5];
  for (const how of ['meeting', 'neighbours', 'neighbours among candidates'] as const) for (const agg of how === 'meeting' ? MEETING : NEIGHBOURS) for (const mu of MU) {
    variant(`context words alone: ${label({ part: 'words', how, agg, mu })}`, (p) => smoothed(p, [{ part: 'words', how, agg, mu }], true));
    for (const part of ['words', 'meaning', 'fused'] as const) variant(`context: ${label({ part, how, agg, mu })}`, (p) => smoothed(p, [{ part, how, agg, mu }]));
  }
  // Both together, from CONTEXT_BOTH="meeting,top2,fused,0.25;neighbours,max,fused,0.25" (only once each helped alone).
  for (const pair of (process.env.CONTEXT_BOTH ?? '').split('|').filter(Boolean)) {
    const smooths = pair.split(';').map((s) => {
      const [how, agg, part, mu] = s.split(',');
      return { how, agg, part, mu: Number(mu) } as Smooth;
    });
    variant(`context both: ${smooths.map(label).join(' + ')}`, (p) => smoothed(p, smooths));
  }
}

// 17. Centred vectors (fifth round; only with `ONLY=centred`; docs/search.md). USE-lite's vectors share a large
// common direction (any two transcript chunks sit at cosine ~0.3-0.6), so the cosine partly measures how
// "transcript-like" a chunk is rather than what it is about. Taking each vault's mean chunk vector out of the
// query and the chunks (and, as "all-but-the-top" post-processing does, its D strongest principal directions)
// before the cosine leaves what distinguishes them. The shipped fusion otherwise (z-scores, feedback from the
// words' top 5 at β 0.25, adaptive w). `pool union`: only the candidates both halves already have are re-scored
// (no other chunk can enter); `pool vault`: the meaning half's 50 are the vault's nearest by the centred cosine
// (search would re-score its 400 Hamming-nearest the same way).
if (only?.test('centred')) {
  const dims = chunkVec.values().next().value!.length;
  const dot = (a: Float32Array, b: Float32Array) => {
    let s = 0;
    for (let d = 0; d < a.length; d++) s += a[d]! * b[d]!;
    return s;
  };
  /** The vault's mean chunk vector and its `count` strongest principal directions (power iteration with deflation). */
  const basisCache = memo<{ mean: Float32Array; pcs: Float32Array[] }>();
  const basis = (vault: string, count: number) => {
    const key = `${vault}|${count}`;
    return basisCache(key, () => {
      const vs = chunksInVault.get(vault)!.map((id) => chunkVec.get(id)!);
      const mean = new Float32Array(dims);
      for (const v of vs) for (let d = 0; d < dims; d++) mean[d]! += v[d]! / vs.length;
      const centred = vs.map((v) => v.map((x, d) => x - mean[d]!));
      const pcs: Float32Array[] = [];
      for (let k = 0; k < count; k++) {
        let u = new Float32Array(dims).map((_, d) => Math.sin(d + 1 + k));
        for (let it = 0; it < 60; it++) {
          const next = new Float32Array(dims);
          for (const x of centred) {
            let s = dot(x, u);
            for (const pc of pcs) s -= dot(x, pc) * dot(pc, u);
            for (let d = 0; d < dims; d++) next[d]! += s * x[d]!;
          }
          for (const pc of pcs) {
            const s = dot(next, pc);
            for (let d = 0; d < dims; d++) next[d]! -= s * pc[d]!;
          }
          const n = Math.sqrt(dot(next, next)) || 1;
          u = next.map((x) => x / n);
        }
        pcs.push(u);
      }
      const b = { mean, pcs };
      return b;
    });
  };
  const project = (v: Float32Array, b: { mean: Float32Array; pcs: Float32Array[] }) => {
    const x = v.map((y, d) => y - b.mean[d]!);
    for (const pc of b.pcs) {
      const s = dot(x, pc);
      for (let d = 0; d < dims; d++) x[d]! -= s * pc[d]!;
    }
    return x;
  };
  const centredCos = (q: Float32Array, v: Float32Array) => dot(q, v) / ((Math.sqrt(dot(q, q)) || 1) * (Math.sqrt(dot(v, v)) || 1));
  const projected = memo<Map<number, Float32Array>>();
  const projectedOf = (vault: string, count: number) => {
    const key = `${vault}|${count}`;
    return projected(key, () => {
      const b = basis(vault, count);
      const m = new Map(chunksInVault.get(vault)!.map((id) => [id, project(chunkVec.get(id)!, b)]));
      return m;
    });
  };
  const vaultOf = (p: Prepared) => vaultOfChunk.get([...p.relevant, ...ids(p.words), ...ids(p.vec)].find((id) => vaultOfChunk.has(id))!)!;
  const centredRanker = (count: number, pool: 'union' | 'vault', feedback: boolean) => (p: Prepared) => {
    const vault = vaultOf(p);
    const b = basis(vault, count);
    const vecs = projectedOf(vault, count);
    const q = project(feedback ? moved(p, ids(p.words).slice(0, 5), 0.25) : Float32Array.from(p.vector), b);
    const union = new Set([...ids(p.words), ...ids(p.vec)]);
    if (pool === 'vault') {
      const q0 = project(Float32Array.from(p.vector), b); // the candidates come from the question's own vector, as shipped
      const nearest = [...vecs.entries()].map(([id, v]) => [id, centredCos(q0, v)] as [number, number]).sort((x, y) => y[1] - x[1] || x[0] - y[0]);
      for (const [id] of nearest.slice(0, FUSION.candidates)) union.add(id);
    }
    const all = [...union].filter((id) => vecs.has(id)).map((id) => [id, centredCos(q, vecs.get(id)!)] as [number, number]).sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    return zShip(p, meaningWeight(1, p.evidence), all.slice(0, FUSION.candidates), all.slice(FUSION.candidates));
  };
  for (const count of [0, 1, 2, 4]) for (const pool of ['union', 'vault'] as const) {
    variant(`centred: mean${count ? ` + ${count} principal` : ''} out, pool ${pool}`, centredRanker(count, pool, true));
  }
  variant('centred: mean out, pool vault, no feedback', centredRanker(0, 'vault', false));
}

// 18. Diversity in the head (sixth round; only with `ONLY=diverse`; docs/search.md). Most questions have one
// answer region; when the fused top 5 holds several near-copies of one wrong region, they crowd out the rest.
// Maximal marginal relevance over the shipped ranking's top 20: each next pick maximises
// z(fused score) − λ × its largest cosine to the chunks already picked (chunk vectors), and the rest follow as shipped.
if (only?.test('diverse')) {
  const dot = (a: Float32Array, b: Float32Array) => {
    let s = 0;
    for (let d = 0; d < a.length; d++) s += a[d]! * b[d]!;
    return s;
  };
  const shippedScored = (p: Prepared) => {
    const q = moved(p, ids(p.words).slice(0, 5), 0.25);
    const pool = [...new Set([...ids(p.words), ...ids(p.vec)])].filter((id) => chunkVec.has(id));
    const all = pool.map((id) => [id, cosine(q, chunkVec.get(id)!)] as [number, number]).sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    return fuse({ words: p.words, meaning: all.slice(0, FUSION.candidates), cosines: all.slice(FUSION.candidates) }, { ...FUSION, meaning: meaningWeight(1, p.evidence) });
  };
  const mmr = (p: Prepared, lambda: number, head: number) => {
    const hits = shippedScored(p);
    const top = hits.slice(0, head);
    const { mean: m, sd } = meanAndSpread(top.map((h) => h.score));
    const picked: number[] = [];
    const left = top.map((h) => ({ id: h.chunkId, z: (h.score - m) / sd }));
    while (left.length) {
      let best = 0;
      let bestValue = -Infinity;
      left.forEach((c, i) => {
        const v = chunkVec.get(c.id);
        const overlap = v && picked.length ? Math.max(...picked.map((id) => dot(v, chunkVec.get(id)!))) : 0;
        const value = c.z - lambda * overlap;
        if (value > bestValue) (bestValue = value), (best = i);
      });
      picked.push(left.splice(best, 1)[0]!.id);
    }
    return [...picked, ...hits.slice(head).map((h) => h.chunkId)];
  };
  variant('diverse: shipped, re-computed here', (p) => shippedScored(p).map((h) => h.chunkId));
  for (const head of [10, 20]) for (const lambda of [0.25, 0.5, 1]) variant(`diverse: mmr over top ${head}, λ ${lambda}`, (p) => mmr(p, lambda, head));
}

// Shared by the rounds that make chunk vectors anew (19, 22, 23): the vault's chunks, vectors averaged over a chunk's
// windows (as embedChunkTexts does), and the shipped fusion with its meaning half taken from given chunk vectors.
const chunksInVault = new Map<string, number[]>();
for (const [id, vault] of vaultOfChunk) chunksInVault.set(vault, [...(chunksInVault.get(vault) ?? []), id]);
/** Every chunk of the bench store: [id, vault, text]. */
function chunkTexts(): [number, string, string][] {
  const db = openDb(CACHE);
  try {
    return db.prepare('SELECT id, vault_id, text FROM transcript_chunks ORDER BY id').raw().all() as [number, string, string][];
  } finally {
    db.close();
  }
}
/** One vector a chunk: the normalised mean of the vectors of its windows (`parts`, one list of texts a chunk). */
async function meanOfWindows(embedder: { dims: number; embed(texts: string[], options?: { background?: boolean }): Promise<Float32Array[]> }, parts: string[][]) {
  const flat = await embedder.embed(parts.flat(), { background: true });
  let next = 0;
  return parts.map((p) => {
    const mean = new Float32Array(embedder.dims);
    for (let i = 0; i < p.length; i++) flat[next++]!.forEach((x, d) => (mean[d]! += x));
    const n = Math.hypot(...mean) || 1;
    return mean.map((x) => x / n);
  });
}
/** The vault's k chunks nearest to the question by exact cosine over `vecs` (brute force), less a chunk's `penalty`. */
const nearestBy = (vecs: Map<number, Float32Array>, p: Prepared, k: number, penalty?: Map<number, number>) => {
  const q0 = Float32Array.from(p.vector);
  return chunksInVault.get(vaultOfQuery(p))!.map((id) => [id, cosine(q0, vecs.get(id)!) - (penalty?.get(id) ?? 0)] as [number, number]).sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, k);
};
/**
 * The shipped fusion, its parts replaceable: the words half, the chunk vectors every cosine is read from, the
 * meaning half's candidates (the shipped's 50 nearest by default), and whether the query moves towards the words'
 * top 5 (FEEDBACK).
 */
function fusedHits(
  p: Prepared,
  o: { words?: [number, number][]; vecs?: Map<number, Float32Array>; near?: number[]; feedback?: boolean; feedbackFrom?: number[]; beta?: number; penalty?: Map<number, number> } = {},
) {
  const { words = p.words, vecs = chunkVec, feedback = true, beta = FEEDBACK.weight } = o;
  const near = new Set(o.near ?? ids(p.vec));
  const q0 = Float32Array.from(p.vector);
  const from = o.feedbackFrom ?? ids(words).slice(0, FEEDBACK.chunks);
  const q = feedback ? feedbackVector(q0, from.map((id) => vecs.get(id)!).filter(Boolean), beta) : q0;
  const scored = [...new Set([...near, ...ids(words)])].filter((id) => vecs.has(id)).map((id) => [id, cosine(q, vecs.get(id)!) - (o.penalty?.get(id) ?? 0)] as [number, number]);
  return fuse({ words, meaning: scored.filter(([id]) => near.has(id)), cosines: scored.filter(([id]) => !near.has(id)) }, { ...FUSION, meaning: meaningWeight(FUSION.meaning, p.evidence) });
}
/** The shipped fusion with the meaning half and every cosine from `vecs` (its candidates: the vault's 50 nearest). */
const fusedOver = (vecs: Map<number, Float32Array>, feedback = true) => (p: Prepared) =>
  fusedHits(p, { vecs, feedback, near: ids(nearestBy(vecs, p, FUSION.candidates)) }).map((h) => h.chunkId);

/**
 * The word index's own view of text, for the rounds that read it (20, 21, 27): stems as FTS5's tokenizer makes them
 * (a temporary table of one row), and per vault the stems of a chunk, of several chunks, and document frequencies
 * (fts5vocab over the vault's word index).
 */
function wordIndexView(db: ReturnType<typeof openDb>) {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.view_stems USING fts5(w, tokenize='porter unicode61 remove_diacritics 2')`);
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.view_stems_v USING fts5vocab(temp, view_stems, instance)');
  const stemsOf = (text: string) => {
    db.exec('DELETE FROM temp.view_stems');
    db.prepare('INSERT INTO temp.view_stems (rowid, w) VALUES (1, ?)').run(text);
    return new Set(db.prepare('SELECT term FROM temp.view_stems_v').pluck().all() as string[]);
  };
  /** The stems that say what a text is about: no stop words, none of one letter. */
  const contentStemsOf = (text: string) => new Set([...stemsOf(text)].filter((t) => t.length > 1 && !CONTENT_STOPS.has(t)));
  type Vocabulary = { instances: (docs: number[]) => [number, string][]; termsOf: (doc: number) => Set<string>; df: (t: string) => number; n: number };
  const vocab = memo<Vocabulary>();
  const vocabOf = (vault: string): Vocabulary => {
    return vocab(vault, () => {
      const t = ensureWordIndex(db, vault);
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${t}_iv USING fts5vocab(main, ${t}, instance)`);
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${t}_rv USING fts5vocab(main, ${t}, row)`);
      const terms = db.prepare(`SELECT DISTINCT term FROM temp.${t}_iv WHERE doc = ?`).pluck();
      const df = db.prepare(`SELECT doc FROM temp.${t}_rv WHERE term = ?`).pluck();
      const cache = new Map<number, Set<string>>();
      const v: Vocabulary = {
        instances: (docs) => db.prepare(`SELECT doc, term FROM temp.${t}_iv WHERE doc IN (${docs.map(Number).join(',')})`).raw().all() as [number, string][],
        termsOf: (doc) => cache.get(doc) ?? (cache.set(doc, new Set(terms.all(doc) as string[])), cache.get(doc)!),
        df: (term) => (df.get(term) as number | undefined) ?? 0,
        n: chunksInVault.get(vault)!.length,
      };
      return v;
    });
  };
  return { stemsOf, contentStemsOf, vocabOf };
}
const CONTENT_STOPS = new Set('a an and are as at be but by did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to us was we were what when where which who why will with would you your about'.split(' '));

// 19. What the model reads (seventh, sixteenth and seventeenth rounds; only with `ONLY=clean`; docs/search.md).
// USE-lite reads 128 tokens of plain sentences; a transcript window spends many of them on what is not the topic:
// annotations ("{disfmarker}", "[laughter]"), tokeniser spacing ("we 're", "it ,"), spoken repeats and fillers
// ("um", "uh"), which the product now leaves out (embeddingText), but also speaker labels ("Professor E:", "Lewis
// Harper:") and short replies ("Yeah.", "Okay."). Each variant embeds every chunk's text as it says (vectors cached by
// text) with the words half untouched. The meaning half is the vault's 50 nearest by exact cosine to the question
// (brute force; the shipped takes the 400 Hamming-nearest and re-scores them), then the shipped feedback, z-score
// fusion and adaptive weight.
if (only?.test('clean')) {
  const { createDefaultEmbedder, indexWorkers } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const rows = chunkTexts();
  const BACKCHANNEL = new Set(['yeah', 'yes', 'yep', 'ok', 'okay', 'right', 'so', 'oh', 'well', 'sure', 'alright', 'mm', 'hmm', 'no', 'huh', 'uh', 'um', 'and', 'but', 'true', 'exactly', 'cool', 'great', 'good', 'wow', 'ah', 'hm']);
  const speakerOf = /^[^:\n]{1,60}:\s*/;
  const isBackchannel = (s: string) => {
    const w = s.toLowerCase().match(/[a-z']+/g) ?? [];
    return w.length <= 3 && w.every((x) => BACKCHANNEL.has(x));
  };
  /** On top of the product's embeddingText: speaker labels and/or short replies ("Yeah.", "Okay, right.") out. */
  const cleaning = (opts: { speakers: boolean; replies: boolean }) => (text: string) => {
    const lines = embeddingText(text).split('\n').map((line) => {
      const m = speakerOf.exec(line);
      const body = m ? line.slice(m[0].length) : line;
      if (!body || (opts.replies && isBackchannel(body))) return '';
      return opts.speakers || !m ? body : `${m[0].trim()} ${body}`;
    });
    return lines.filter(Boolean).join('\n') || text;
  };
  const cleanings: [string, (t: string) => string][] = [
    ['as stored (before the seventh round)', (t) => t],
    // the seventh round shipped marks out; the sixteenth added spoken repeats, the seventeenth fillers ("um", "uh")
    ['embeddingText (shipped)', embeddingText],
    ['+ short replies out', cleaning({ speakers: false, replies: true })],
    ['+ speakers out', cleaning({ speakers: true, replies: false })],
    ['+ speakers + short replies out', cleaning({ speakers: true, replies: true })],
  ];
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  const vecsOf = new Map<string, Map<number, Float32Array>>();
  for (const [name, clean] of cleanings) {
    const t0 = Date.now();
    const texts = rows.map(([, , t]) => clean(t));
    const chars = texts.reduce((a, t) => a + t.length, 0) / texts.length;
    const m = new Map<number, Float32Array>();
    for (let i = 0; i < rows.length; i += 64) (await meanOfWindows(embedder, texts.slice(i, i + 64).map((t) => embeddingWindows(t, embedder.windowChars!)))).forEach((v, j) => m.set(rows[i + j]![0], v));
    vecsOf.set(name, m);
    process.stderr.write(`clean: ${name}: ${rows.length} chunks, ${chars.toFixed(0)} chars each on average, in ${((Date.now() - t0) / 1000).toFixed(0)} s (${indexWorkers()} workers; cached)\n`);
  }
  await model.close();
  for (const [name] of cleanings) {
    const vecs = vecsOf.get(name)!;
    variant(`clean: ${name}, vectors only`, (p) => ids(nearestBy(vecs, p, 10)));
    variant(`clean: ${name}, shipped fusion`, fusedOver(vecs, true));
    variant(`clean: ${name}, shipped fusion without feedback`, fusedOver(vecs, false));
  }
}

// 20. Weighted pseudo-relevance feedback on the words half (eighth round; only with `ONLY=prf`; docs/search.md).
// The first round's feedback put 5-10 expansion words into the same OR query as the question's 3-4 (FTS5 cannot
// weight terms), so the expansion outvoted the question. BM25 is a sum over terms, so a weighted query is two:
// words(id) = BM25(question) + λ × BM25(expansion). The expansion: the `m` stems with the largest
// Σ tf/length × idf over the feedback chunks (the words' or the shipped ranking's top k), not the question's own,
// not speakers' names, in at least 2 chunks. `absent`: only for questions with a word the vault lacks (where the
// words need help), else as shipped. Then the shipped fusion, its feedback vector from the new words' top 5.
if (only?.test('prf')) {
  const db = openDb(CACHE);
  const { stemsOf, vocabOf } = wordIndexView(db);
  const speakerStems = new Map<number, Set<string>>();
  for (const [id, speakers] of db.prepare('SELECT id, speakers_json FROM transcript_chunks').raw().all() as [number, string][]) speakerStems.set(id, stemsOf((JSON.parse(speakers) as string[]).join(' ')));
  const expansionCache = memo<string[]>();
  const expansion = (p: Prepared, fb: number[], m: number) => {
    const key = `${p.query}|${fb.join(',')}|${m}`;
    return expansionCache(key, () => {
      const v = vocabOf(vaultOfQuery(p));
      const own = stemsOf(p.query);
      const tf = new Map<number, Map<string, number>>();
      for (const [doc, term] of v.instances(fb)) {
        const m1 = tf.get(doc) ?? new Map<string, number>();
        m1.set(term, (m1.get(term) ?? 0) + 1);
        tf.set(doc, m1);
      }
      const weight = new Map<string, number>();
      for (const [doc, terms] of tf) {
        const length = [...terms.values()].reduce((a, x) => a + x, 0);
        for (const [term, count] of terms) {
          if (own.has(term) || speakerStems.get(doc)?.has(term) || term.length < 3 || /^\d+$/.test(term)) continue;
          const d = v.df(term);
          if (d < 2) continue;
          weight.set(term, (weight.get(term) ?? 0) + (count / length) * Math.log((v.n - d + 0.5) / (d + 0.5) + 1));
        }
      }
      const out = [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, m).map(([t]) => t);
      return out;
    });
  };
  const expandedCache = memo<[number, number][]>();
  const expandedWords = (p: Prepared, terms: string[], lambda: number) => {
    const key = `${p.query}|${terms.join(',')}|${lambda}`;
    return expandedCache(key, () => {
      const extra = terms.length ? bm25Ranking(db, vaultOfQuery(p), terms.map((t) => `"${t}"`).join(' OR '), FUSION.candidates) : [];
      const score = new Map(p.words);
      for (const [id, s] of extra) score.set(id, (score.get(id) ?? 0) + lambda * s);
      const out = [...score.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, FUSION.candidates);
      return out;
    });
  };
  const fusedWith = (p: Prepared, words: [number, number][]) => fusedHits(p, { words }).map((h) => h.chunkId);
  variant('prf: shipped, re-computed here', (p) => fusedWith(p, p.words));
  for (const from of ['words', 'fused'] as const) for (const k of [3, 5]) for (const m of [5, 10, 20]) for (const lambda of [0.1, 0.25, 0.5]) for (const gate of ['always', 'absent'] as const) {
    variant(`prf: ${from} top${k}, ${m} stems, λ ${lambda}, ${gate}`, (p) => {
      if (gate === 'absent' && !(p.evidence.absentShare > 0)) return fusedWith(p, p.words);
      const fb = (from === 'words' ? ids(p.words) : fusedWith(p, p.words)).slice(0, k);
      return fusedWith(p, expandedWords(p, expansion(p, fb, m), lambda));
    });
  }
  variant('prf: words only, words top3, 10 stems, λ 0.25', (p) => ids(expandedWords(p, expansion(p, ids(p.words).slice(0, 3), 10), 0.25)));
  variant('prf: words only, words top5, 10 stems, λ 0.5', (p) => ids(expandedWords(p, expansion(p, ids(p.words).slice(0, 5), 10), 0.5)));
}


// 21. The people a question names (ninth round; only with `ONLY=speakers`; docs/search.md). "What did the finance
// controller think of …", "what did Gavin say …", "what did the professor think …": the answer is where that person
// speaks. A question's people: a speaker whose whole label is in it ("PhD A", "Project Manager"); else speakers with
// a name word in it ("Gavin", "professor"); and, `titles`, people of the vault's registry whose job title shares the
// rarest words with it (Σ idf over the vault's titles ≥ `t`). A chunk's share of their speech (characters of
// their lines over the chunk's) is added to its fused score × β (the fused score is in standard deviations).
if (only?.test('speakers')) {
  const db = openDb(CACHE);
  const stemsOf = wordIndexView(db).contentStemsOf;
  const lineLabel = /^([^:\n]{1,60}):\s/;
  const shareOf = new Map<number, Map<string, number>>();
  const speakersOfVault = new Map<string, Set<string>>();
  for (const [id, vault, text] of db.prepare('SELECT id, vault_id, text FROM transcript_chunks').raw().all() as [number, string, string][]) {
    const chars = new Map<string, number>();
    for (const line of text.split('\n')) {
      const label = lineLabel.exec(line)?.[1];
      if (label) chars.set(label, (chars.get(label) ?? 0) + line.length);
    }
    const total = [...chars.values()].reduce((a, x) => a + x, 0) || 1;
    shareOf.set(id, new Map([...chars].map(([k, v]) => [k, v / total])));
    const set = speakersOfVault.get(vault) ?? new Set<string>();
    for (const k of chars.keys()) set.add(k);
    speakersOfVault.set(vault, set);
  }
  const labelStems = new Map<string, Set<string>>();
  for (const set of speakersOfVault.values()) for (const label of set) if (!labelStems.has(label)) labelStems.set(label, stemsOf(label));
  const titles = new Map<string, { name: string; stems: Set<string> }[]>();
  for (const [vault, name, title] of db.prepare('SELECT vault_id, name, title FROM people').raw().all() as [string, string, string][]) {
    titles.set(vault, [...(titles.get(vault) ?? []), { name, stems: stemsOf(title) }]);
  }
  const peopleCache = memo<string[]>();
  const mentioned = (p: Prepared, useTitles: boolean, t: number, useLabels = true) => {
    const key = `${p.query}|${useTitles}|${t}|${useLabels}`;
    return peopleCache(key, () => {
      const vault = vaultOfQuery(p);
      const labels = [...(speakersOfVault.get(vault) ?? [])];
      const lower = ` ${p.query.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
      let out = useLabels ? labels.filter((l) => lower.includes(` ${l.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `)) : [];
      const q = stemsOf(p.query);
      if (!out.length && useLabels) out = labels.filter((l) => [...labelStems.get(l)!].some((s) => q.has(s)));
      if (!out.length && useTitles) {
        const people = titles.get(vault) ?? [];
        const df = new Map<string, number>();
        for (const person of people) for (const s of person.stems) df.set(s, (df.get(s) ?? 0) + 1);
        const scored = people.map((person) => ({ name: person.name, score: [...person.stems].filter((s) => q.has(s)).reduce((a, s) => a + Math.log(people.length / df.get(s)!), 0) }));
        const best = Math.max(0, ...scored.map((x) => x.score));
        if (best >= t) out = scored.filter((x) => x.score === best).map((x) => x.name).filter((n) => labels.includes(n));
      }
      return out;
    });
  };
  const shippedHits = (p: Prepared) => fusedHits(p);
  const counted = new Set<string>();
  const boosted = (useTitles: boolean, t: number, beta: number, useLabels = true) => (p: Prepared) => {
    const people = mentioned(p, useTitles, t, useLabels);
    counted.add(`${useTitles}|${t}|${p.query}`);
    const hits = shippedHits(p);
    if (!people.length) return hits.map((h) => h.chunkId);
    return hits
      .map((h) => ({ id: h.chunkId, score: h.score + beta * people.reduce((a, name) => a + (shareOf.get(h.chunkId)?.get(name) ?? 0), 0) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map((h) => h.id);
  };
  variant('speakers: shipped, re-computed here', (p) => shippedHits(p).map((h) => h.chunkId));
  for (const beta of [0.25, 0.5, 1, 2]) variant(`speakers: labels, β ${beta}`, boosted(false, 0, beta));
  for (const t of [1, 2]) for (const beta of [0.25, 0.5, 1, 2]) variant(`speakers: labels + titles (idf ≥ ${t}), β ${beta}`, boosted(true, t, beta));
  for (const t of [1, 2]) for (const beta of [0.5, 1, 2]) variant(`speakers: titles only (idf ≥ ${t}), β ${beta}`, boosted(true, t, beta, false));
  for (const s of SETS) {
    const ps = data[s]!;
    process.stderr.write(`${s}: a person named in ${ps.filter((p) => mentioned(p, false, 0).length).length} of ${ps.length} by label, ${ps.filter((p) => mentioned(p, true, 1).length).length} with titles (idf ≥ 1)\n`);
  }
  for (const p of data['para tune']!.slice(0, 75)) { const m = mentioned(p, true, 1); if (m.length) process.stderr.write(`  ${m.join(', ')} <- ${p.query}\n`); }
}

// 22. The meeting's title in the chunk's vector (tenth round; only with `ONLY=titles`; docs/search.md). A chunk's
// windows say what is said, not what the meeting was about; its title often does ("Returns deep dive", "IT and
// systems landscape"). Titles with no word (QMSum's "Bed002", "ES2006a") are left out. `mix α`: the chunk vector
// plus α × the title's vector, normalised (one embedding per meeting); `prefix`: each window embedded after a
// "title:" line (the chunks embedded again). The meaning half: the vault's 50 nearest, then the shipped fusion.
if (only?.test('titles')) {
  const { createDefaultEmbedder } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const db = openDb(CACHE);
  const rows = db.prepare('SELECT c.id, c.vault_id, c.text, m.name FROM transcript_chunks c JOIN meetings m ON m.vault_id = c.vault_id AND m.id = c.meeting_id ORDER BY c.id').raw().all() as [number, string, string, string][];
  db.close();
  const worded = (title: string) => /\b\p{L}{3,}\b/u.test(title.replace(/[_-]/g, ' ')) && !/^\w*\d\w*$/.test(title);
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  const titleList = [...new Set(rows.map((r) => r[3]).filter(worded))];
  const titleVec = new Map(titleList.map((t, i) => [t, i] as const));
  const tv = await embedder.embed(titleList, { background: true });
  process.stderr.write(`titles: ${titleList.length} worded meeting titles (of ${new Set(rows.map((r) => r[3])).size})\n`);
  const prefixed = new Map<number, Float32Array>(rows.filter((r) => !worded(r[3])).map((r) => [r[0], chunkVec.get(r[0])!]));
  const todo = rows.filter((r) => worded(r[3]));
  for (let i = 0; i < todo.length; i += 32) {
    const batch = todo.slice(i, i + 32);
    const parts = batch.map(([, , text, title]) => embeddingWindows(embeddingText(text), embedder.windowChars! - title.length - 2).map((w) => `${title}:\n${w}`));
    (await meanOfWindows(embedder, parts)).forEach((v, j) => prefixed.set(batch[j]![0], v));
  }
  await model.close();
  const mixed = (alpha: number) =>
    new Map(
      rows.map(([id, , , title]) => {
        const v = chunkVec.get(id)!;
        const t = titleVec.has(title) ? tv[titleVec.get(title)!]! : undefined;
        if (!t) return [id, v] as const;
        const out = v.map((x, d) => x + alpha * t[d]!);
        const n = Math.hypot(...out) || 1;
        return [id, out.map((x) => x / n)] as const;
      }),
    );
  variant('titles: shipped, re-computed here', fusedOver(chunkVec));
  for (const alpha of [0.1, 0.2, 0.35, 0.5]) variant(`titles: mix α ${alpha}`, fusedOver(mixed(alpha)));
  variant('titles: prefix each window', fusedOver(prefixed));
  variant('titles: prefix, vectors only', (p) => ids(nearestBy(prefixed, p, 10)));
}

// 23. How a chunk is cut for the model (eleventh round; only with `ONLY=windows`; docs/search.md). The shipped cuts
// the chunk's text (embeddingText) into windows of whole lines up to 450 characters (about the model's 128 tokens)
// and averages their vectors. Here: shorter windows (more of them, each further from the token limit), and
// windows that overlap by half (each line seen in two contexts). The meaning half: the vault's 50 nearest, then
// the shipped fusion.
if (only?.test('windows')) {
  const { createDefaultEmbedder } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const rows = chunkTexts();
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  /** Windows of `size` characters starting every `size × (1 − overlap)` characters, cut at line or word ends. */
  const overlapping = (text: string, size: number) => {
    const whole = embeddingWindows(text, size);
    const halves = embeddingWindows(text, size / 2);
    const out = [...whole];
    for (let i = 1; i + 1 < halves.length; i += 2) out.push(`${halves[i]}\n${halves[i + 1]}`);
    return out;
  };
  const cuts: [string, (t: string) => string[]][] = [
    ['450 (shipped)', (t) => embeddingWindows(t, 450)],
    ['300', (t) => embeddingWindows(t, 300)],
    ['350', (t) => embeddingWindows(t, 350)],
    ['450, overlapping by half', (t) => overlapping(t, 450)],
    ['600', (t) => embeddingWindows(t, 600)],
  ];
  const vecsOf = new Map<string, Map<number, Float32Array>>();
  for (const [name, cut] of cuts) {
    const t0 = Date.now();
    const m = new Map<number, Float32Array>();
    let windows = 0;
    for (let i = 0; i < rows.length; i += 64) {
      const batch = rows.slice(i, i + 64);
      const parts = batch.map(([, , text]) => cut(embeddingText(text)));
      windows += parts.reduce((a, p) => a + p.length, 0);
      (await meanOfWindows(embedder, parts)).forEach((v, j) => m.set(batch[j]![0], v));
    }
    vecsOf.set(name, m);
    process.stderr.write(`windows ${name}: ${(windows / rows.length).toFixed(1)} a chunk, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  await model.close();
  for (const [name] of cuts) {
    variant(`windows ${name}`, fusedOver(vecsOf.get(name)!));
    variant(`windows ${name}, vectors only`, (p) => ids(nearestBy(vecsOf.get(name)!, p, 10)));
  }
}

// 24. The words half over the text the embedder reads (twelfth round; only with `ONLY=wordtext`; docs/search.md).
// Transcript marks also lengthen a chunk for BM25 (its length normalisation) without adding a word of speech, and
// unevenly: a chunk of halting speech reads as long. A word index over embeddingText, in a temporary table, then the
// shipped fusion over that words half.
if (only?.test('wordtext')) {
  const db = openDb(CACHE);
  const rows = chunkTexts();
  const tables = new Map<string, string>();
  for (const vault of chunksInVault.keys()) {
    const t = `temp.clean_words_${tables.size}`;
    tables.set(vault, t);
    db.exec(`CREATE VIRTUAL TABLE ${t} USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')`);
    const put = db.prepare(`INSERT INTO ${t} (rowid, text) VALUES (?, ?)`);
    db.transaction(() => rows.filter(([, v]) => v === vault).forEach(([id, , text]) => put.run(id, embeddingText(text))))();
  }
  const cleanWords = memo<[number, number][]>();
  const wordsOf = (p: Prepared) => {
    return cleanWords(p.query, () => {
      const match = wordTerms(p.query);
      const t = tables.get(vaultOfQuery(p))!;
      const name = t.slice('temp.'.length);
      const w = match ? (db.prepare(`SELECT rowid, -bm25(${name}) FROM ${t} WHERE ${name} MATCH ? ORDER BY bm25(${name}) LIMIT ${FUSION.candidates}`).raw().all(match) as [number, number][]) : [];
      return w;
    });
  };
  variant('wordtext: shipped, re-computed here', (p) => fusedHits(p).map((h) => h.chunkId));
  variant('wordtext: words only over clean text', (p) => ids(wordsOf(p)));
  variant('wordtext: shipped fusion over clean-text words', (p) => fusedHits(p, { words: wordsOf(p) }).map((h) => h.chunkId));
}

// 25. Feedback that knows when the words are wrong (thirteenth round; only with `ONLY=adaptfb`; docs/search.md).
// The meaning-side feedback moves the query towards the words' top 5; when the question's words are missing from
// the vault (paraphrases), those 5 are often wrong. Here β shrinks with the share of absent words, or the feedback
// comes from the meaning half's own top k (vector pseudo-relevance feedback) or the fused top k instead.
if (only?.test('adaptfb')) {
  const withFeedback = (p: Prepared, from: number[], beta: number) => fusedHits(p, { feedbackFrom: from, beta }).map((h) => h.chunkId);
  const words5 = (p: Prepared) => ids(p.words).slice(0, FEEDBACK.chunks);
  variant('adaptfb: shipped, re-computed here', (p) => withFeedback(p, words5(p), FEEDBACK.weight));
  for (const beta of [0.25, 0.5]) {
    variant(`adaptfb: β ${beta} × (1 − absent)`, (p) => withFeedback(p, words5(p), beta * (1 - p.evidence.absentShare)));
    variant(`adaptfb: β ${beta} × (1 − 2 absent)+`, (p) => withFeedback(p, words5(p), beta * Math.max(0, 1 - 2 * p.evidence.absentShare)));
    variant(`adaptfb: β ${beta}, none when a word is absent`, (p) => withFeedback(p, words5(p), p.evidence.absentShare > 0 ? 0 : beta));
    for (const k of [3, 5]) {
      variant(`adaptfb: β ${beta}, from the meaning top ${k} when a word is absent`, (p) => withFeedback(p, p.evidence.absentShare > 0 ? ids(p.vec).slice(0, k) : words5(p), beta));
      variant(`adaptfb: β ${beta}, from the fused top ${k} when a word is absent`, (p) => withFeedback(p, p.evidence.absentShare > 0 ? fusedHits(p).slice(0, k).map((h) => h.chunkId) : words5(p), beta));
    }
  }
}

// 26. Hubs (fourteenth round; only with `ONLY=hubs`; docs/search.md). In a space like USE-lite's some chunks sit near
// everything: the same few come first in the meaning half for unrelated questions. CSLS-style scaling takes each
// chunk's own neighbourhood out of its cosine: cos(q, c) − γ × r(c), where r(c) is the mean cosine of c to its k
// nearest chunks of the vault. The meaning half: the vault's 50 best by the scaled cosine; all cosines the fusion
// reads are scaled; then the shipped fusion (feedback and adaptive weight).
if (only?.test('hubs')) {
  const hubness = (k: number) => {
    const r = new Map<number, number>();
    for (const list of chunksInVault.values()) {
      for (const a of list) {
        const va = chunkVec.get(a)!;
        const sims = list.filter((b) => b !== a).map((b) => cosine(va, chunkVec.get(b)!)).sort((x, y) => y - x);
        r.set(a, sims.slice(0, k).reduce((s, x) => s + x, 0) / Math.min(k, sims.length || 1));
      }
    }
    return r;
  };
  const scaledRanker = (r: Map<number, number>, gamma: number) => {
    const penalty = new Map([...r].map(([id, x]) => [id, gamma * x]));
    return (p: Prepared) => fusedHits(p, { penalty, near: ids(nearestBy(chunkVec, p, FUSION.candidates, penalty)) }).map((h) => h.chunkId);
  };
  const t0 = Date.now();
  const byK = new Map([10, 50].map((k) => [k, hubness(k)] as const));
  process.stderr.write(`hubs: neighbourhoods of ${chunkVec.size} chunks in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  variant('hubs: shipped, brute-force candidates', fusedOver(chunkVec));
  for (const [k, r] of byK) for (const gamma of [0.25, 0.5, 1]) {
    variant(`hubs: k ${k}, γ ${gamma}`, scaledRanker(r, gamma));
    variant(`hubs: k ${k}, γ ${gamma}, vectors only`, (p) => ids(nearestBy(chunkVec, p, 10, new Map([...r].map(([id, x]) => [id, gamma * x])))));
  }
}

// 27. Coverage of the question's words (fifteenth round; only with `ONLY=coverage`; docs/search.md). BM25 over an OR
// query lets one rare word, repeated, outrank a chunk that holds all of the question's topic words once. A chunk's
// coverage: the idf-weighted share of the question's distinct stems (frame words out, as the words half) it holds,
// read from the word index itself (fts5vocab). Added × γ to the fused score (in standard deviations), or to BM25
// before the fusion as γ × coverage × the words half's best score.
if (only?.test('coverage')) {
  const db = openDb(CACHE);
  const { stemsOf, vocabOf } = wordIndexView(db);
  const coverageCache = memo<Map<number, number>>();
  const coverage = (p: Prepared) => {
    return coverageCache(p.query, () => {
      const v = vocabOf(vaultOfQuery(p));
      const stems = [...stemsOf(queryWords(p.query).join(' '))].filter((s) => v.df(s) > 0);
      const idf = new Map(stems.map((s) => [s, Math.log((v.n - v.df(s) + 0.5) / (v.df(s) + 0.5) + 1)]));
      const total = [...idf.values()].reduce((a, x) => a + x, 0);
      const c = new Map();
      for (const id of new Set([...ids(p.words), ...ids(p.vec)])) {
        const has = v.termsOf(id);
        c.set(id, total ? stems.filter((s) => has.has(s)).reduce((a, s) => a + idf.get(s)!, 0) / total : 0);
      }
      return c;
    });
  };
  variant('coverage: shipped, re-computed here', (p) => fusedHits(p).map((h) => h.chunkId));
  for (const gamma of [0.25, 0.5, 1]) {
    variant(`coverage: + γ ${gamma} × coverage, fused`, (p) => {
      const c = coverage(p);
      return fusedHits(p).map((h) => ({ id: h.chunkId, s: h.score + gamma * (c.get(h.chunkId) ?? 0) })).sort((a, b) => b.s - a.s || a.id - b.id).map((h) => h.id);
    });
    variant(`coverage: BM25 + γ ${gamma} × coverage × best`, (p) => {
      const c = coverage(p);
      const best = p.words[0]?.[1] ?? 0;
      const words = p.words.map(([id, s]) => [id, s + gamma * (c.get(id) ?? 0) * best] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      return fusedHits(p, { words }).map((h) => h.chunkId);
    });
  }
  variant('coverage: words only, BM25 + 0.5 × coverage × best', (p) => {
    const c = coverage(p);
    const best = p.words[0]?.[1] ?? 0;
    return p.words.map(([id, s]) => [id, s + 0.5 * (c.get(id) ?? 0) * best] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
  });
}

// 28. Deeper pools (eighteenth round; only with `ONLY=pools`; docs/search.md). Each half gives the fusion its top 50;
// a chunk outside the words' 50 counts as BM25 0, outside the meaning's 50 its cosine is still read. With OR queries
// many more chunks hold a question word: deeper words (and meaning) pools give more candidates a real score.
if (only?.test('pools')) {
  const db = openDb(CACHE);
  const deepWords = memo<[number, number][]>();
  const wordsTo = (p: Prepared, n: number) => {
    const key = `${p.query}|${n}`;
    return deepWords(key, () => {
      const match = wordTerms(p.query);
      const w = match ? bm25Ranking(db, vaultOfQuery(p), match, n) : [];
      return w;
    });
  };
  for (const nw of [50, 100, 200]) for (const nm of [50, 100]) {
    variant(`pools: words ${nw}, meaning ${nm}`, (p) => fusedHits(p, { words: wordsTo(p, nw), near: ids(nearestBy(chunkVec, p, nm)) }).map((h) => h.chunkId));
  }
}

// 29. Where the shipped misses its answer (a diagnostic, no variant; only with `ONLY=misses`; docs/search.md). For each
// question whose answer is not in the shipped top 5: the answer's best rank in the shipped ranking, in the words
// half (its top 50), and among all the vault's chunks by the cosine of the question's own vector. A miss the
// vectors rank outside their top 10 and the words outside their top 10 is one no fusion of the two can repair.
if (only?.test('misses')) {
  const rankIn = (list: number[], rel: Set<number>) => {
    const i = list.findIndex((id) => rel.has(id));
    return i < 0 ? Infinity : i + 1;
  };
  const bucket = (r: number) => (r <= 5 ? '1-5' : r <= 10 ? '6-10' : r <= 20 ? '11-20' : r <= 50 ? '21-50' : '>50');
  const names = ['1-5', '6-10', '11-20', '21-50', '>50'];
  for (const s of SETS) {
    const ps = data[s]!;
    const misses = ps.filter((p) => rankIn(fusedHits(p).map((h) => h.chunkId), new Set(p.relevant)) > 5);
    const count = (f: (p: Prepared) => number) => {
      const c = new Map<string, number>();
      for (const p of misses) {
        const b = bucket(f(p));
        c.set(b, (c.get(b) ?? 0) + 1);
      }
      return names.map((n) => `${n}: ${c.get(n) ?? 0}`).join(', ');
    };
    const rel = (p: Prepared) => new Set(p.relevant);
    const shippedRank = (p: Prepared) => rankIn(fusedHits(p).map((h) => h.chunkId), rel(p));
    const wordsRank = (p: Prepared) => rankIn(ids(p.words), rel(p));
    const vectorRank = (p: Prepared) => rankIn(ids(nearestBy(chunkVec, p, Infinity)), rel(p));
    const neither = misses.filter((p) => wordsRank(p) > 10 && vectorRank(p) > 10).length;
    process.stdout.write(`\nmisses ${s}: ${misses.length} of ${ps.length} questions not in the shipped top 5; ${neither} of them in neither half's top 10\n`);
    process.stdout.write(`  shipped rank  ${count(shippedRank)}\n  words rank    ${count(wordsRank)}\n  vectors rank  ${count(vectorRank)}\n`);
    const sizes = [...new Set(ps.map(vaultOfQuery))].map((v) => chunksInVault.get(v)!.length);
    process.stdout.write(`  (chunks in the vaults this set asks: ${sizes.join(' and ')})\n`);
  }
}

// 30. A learned correction to the fusion (nineteenth round; only with `ONLY=learned`; docs/search.md). Every rule so far
// was set by hand, a few numbers at a time. Here a linear score over each candidate's features is fitted by pairwise
// logistic loss (answer chunk above each other candidate), starting at the shipped score (its weight 1, the others 0)
// and held near it by an L2 pull of strength λ: the fit can only learn corrections. Features, all per candidate:
// the shipped score; z(BM25) and z(cosine) as the fusion computes them; z(cosine) × the share of absent words, × a
// keyword string, × the head's excess over ADAPT.head; z of the question's own cosine (before feedback); and whether
// each half returned it. λ is chosen by two-fold cross-validation on the tuning sets (QMSum folds by meeting); the
// model fitted on all tuning questions with that λ is the one whose report columns are printed.
if (only?.test('learned')) {
  const features = (p: Prepared) => {
    const near = new Set(ids(p.vec));
    const inWords = new Set(ids(p.words));
    const q0 = Float32Array.from(p.vector);
    const q = feedbackVector(q0, ids(p.words).slice(0, FEEDBACK.chunks).map((id) => chunkVec.get(id)!).filter(Boolean));
    const pool = [...new Set([...near, ...inWords])].filter((id) => chunkVec.has(id));
    const cos = pool.map((id) => cosine(q, chunkVec.get(id)!));
    const cos0 = pool.map((id) => cosine(q0, chunkVec.get(id)!));
    const b = meanAndSpread(p.words.map(([, x]) => x));
    const c = meanAndSpread(cos);
    const c0 = meanAndSpread(cos0);
    const bm = new Map(p.words);
    const w = meaningWeight(FUSION.meaning, p.evidence);
    const e = p.evidence;
    const kw = (e.functionShare ?? 1) < 0.15 ? 1 : 0;
    const head = Math.max(0, e.headRatio - 3);
    return pool.map((id, i) => {
      const zb = p.words.length ? ((bm.get(id) ?? 0) - b.mean) / b.sd : 0;
      const zc = (cos[i]! - c.mean) / c.sd;
      return { id, f: [zb + w * zc, zb, zc, zc * e.absentShare, zc * kw, zc * Math.min(head, 5), (cos0[i]! - c0.mean) / c0.sd, inWords.has(id) ? 1 : 0, near.has(id) ? 1 : 0] };
    });
  };
  const featureCache = memo<{ id: number; f: number[] }[]>();
  const featuresOf = (p: Prepared) => featureCache(p.query, () => features(p));
  const W0 = [1, 0, 0, 0, 0, 0, 0, 0, 0];
  // `perSet`: each tuning set weighs the same (else each question does, and QMSum's 123 outweigh the lexical 31)
  const fit = (train: Prepared[], lambda: number, perSet: boolean) => {
    const w = [...W0];
    const setSize = new Map(SETS.map((s) => [s, train.filter((p) => data[s]!.includes(p)).length]));
    const weightOf = (p: Prepared) => (perSet ? train.length / 3 / setSize.get(SETS.find((s) => data[s]!.includes(p))!)! : 1);
    const queries = train.map((p) => {
      const rel = new Set(p.relevant);
      const fs = featuresOf(p);
      return { weight: weightOf(p), pos: fs.filter((x) => rel.has(x.id)).map((x) => x.f), neg: fs.filter((x) => !rel.has(x.id)).map((x) => x.f) };
    }).filter((x) => x.pos.length && x.neg.length);
    const dot = (a: number[]) => a.reduce((s, x, i) => s + x * w[i]!, 0);
    for (let it = 0; it < 300; it++) {
      const g = w.map((x, i) => 2 * lambda * (x - W0[i]!));
      for (const { weight, pos, neg } of queries) {
        // each question weighs the same: its loss is the mean over its pairs, the best-scored answer chunk against each other candidate
        const best = pos.reduce((a, x) => (dot(x) > dot(a) ? x : a));
        const sb = dot(best);
        for (const n of neg) {
          const s = 1 / (1 + Math.exp(sb - dot(n)));
          for (let i = 0; i < w.length; i++) g[i]! += (weight * s * (n[i]! - best[i]!)) / neg.length / queries.length;
        }
      }
      for (let i = 0; i < w.length; i++) w[i]! -= 0.5 * g[i]!;
    }
    return w;
  };
  const rankWith = (w: number[]) => (p: Prepared) =>
    featuresOf(p).map((x) => [x.id, x.f.reduce((s, v, i) => s + v * w[i]!, 0)] as [number, number]).sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
  const tuning = SETS.filter((s) => TUNING.has(s));
  const fold = (s: string, p: Prepared, i: number) =>
    s.startsWith('QMSum') ? (meetingOf.get(p.relevant[0] ?? -1) ?? '').split('').reduce((a, ch) => a + ch.charCodeAt(0), 0) % 2 : i % 2;
  for (const perSet of [false, true]) for (const lambda of [0.001, 0.01, 0.1, 1]) {
    const how = `λ ${lambda}${perSet ? ', sets weighed alike' : ''}`;
    // two-fold cross-validation on the tuning sets: each half scored by the model fitted on the other
    const cv: string[] = [];
    for (const s of tuning) {
      const ps = data[s]!;
      const got: [number, number] = [0, 0];
      for (const k of [0, 1]) {
        const train = tuning.flatMap((t) => data[t]!.filter((p, i) => fold(t, p, i) !== k));
        const test = ps.filter((p, i) => fold(s, p, i) === k);
        const [m, h] = score(rankWith(fit(train, lambda, perSet)), test);
        got[0] += m * test.length;
        got[1] += h * test.length;
      }
      cv.push(`${(got[0] / ps.length).toFixed(3)}/${(got[1] / ps.length).toFixed(3)}`);
    }
    const w = fit(tuning.flatMap((t) => data[t]!), lambda, perSet);
    process.stdout.write(`learned ${how}: cross-validated tuning ${cv.join(' ')}; weights ${w.map((x) => x.toFixed(2)).join(' ')}\n`);
    variant(`learned: ${how}, fitted on all tuning`, rankWith(w));
  }
  variant('learned: shipped, re-computed from the features', rankWith(W0));
}

// 31. The vault's own entities (twentieth round; only with `ONLY=entities`; docs/search.md). A paraphrase names a
// thing the way its asker would ("the finance director", "the warehouse software", "the homeware customer"); the
// transcripts name it as the vault does ("Nicola", "LogiTrack", "Harlow and Finch"). The vault's knowledge graph
// holds that link: each entity's name, aliases and description. A question is linked to the entities that fit it
// best, by its words (Σ idf of the question's stems in the entity's name, aliases and description, idf over the
// vault's entities) or by meaning (cosine of the question to the entity's "name: description"), and the linked
// entities' names and aliases expand the words half: words(chunk) = BM25(question) + λ × BM25(their stems, less the
// question's own). Then the shipped fusion, its meaning feedback from the new words' top 5; `+ meaning β` moves
// the query vector towards the linked entities' vectors as well. QMSum's vault has no entities: its cells cannot move.
if (only?.test('entities')) {
  const db = openDb(CACHE);
  const view = wordIndexView(db);
  const stemsOf = memo<Set<string>>();
  const stems = (text: string) => stemsOf(text, () => view.contentStemsOf(text));
  type Entity = { name: string; names: string[]; doc: Set<string>; text: string; vector?: Float32Array };
  const entitiesOf = new Map<string, Entity[]>();
  for (const [vault, name, aliases, description] of db.prepare('SELECT vault_id, name, aliases_json, description FROM entities').raw().all() as [string, string, string, string][]) {
    const names = [name, ...(JSON.parse(aliases) as string[])];
    const text = `${name}${names.length > 1 ? ` (${names.slice(1).join(', ')})` : ''}: ${description}`;
    entitiesOf.set(vault, [...(entitiesOf.get(vault) ?? []), { name, names, doc: stems(text), text }]);
  }
  const { createDefaultEmbedder } = await import('../src/search/embedder/index.js');
  const { memoised } = await import('./search.js');
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  const all = [...entitiesOf.values()].flat();
  const vectors = await meanOfWindows(embedder, all.map((e) => embeddingWindows(e.text, 450)));
  all.forEach((e, i) => (e.vector = vectors[i]));
  await model.close();
  const idfOf = memo<Map<string, number>>();
  const idf = (vault: string) => idfOf(vault, () => {
    const es = entitiesOf.get(vault) ?? [];
    const df = new Map<string, number>();
    for (const e of es) for (const s of e.doc) df.set(s, (df.get(s) ?? 0) + 1);
    return new Map([...df].map(([s, d]) => [s, Math.log(1 + es.length / d)]));
  });
  /** The question's entities, best first, with their link scores. */
  const linked = (p: Prepared, by: 'words' | 'meaning') => {
    const vault = vaultOfQuery(p);
    const es = entitiesOf.get(vault) ?? [];
    if (by === 'words') {
      const q = stems(p.query);
      const w = idf(vault);
      return es.map((e) => ({ e, score: [...q].filter((s) => e.doc.has(s)).reduce((a, s) => a + w.get(s)!, 0) })).sort((a, b) => b.score - a.score);
    }
    const q = Float32Array.from(p.vector);
    return es.map((e) => ({ e, score: cosine(q, e.vector!) })).sort((a, b) => b.score - a.score);
  };
  const linkCache = memo<Entity[]>();
  const link = (p: Prepared, by: 'words' | 'meaning', k: number) => linkCache(`${p.query}|${by}|${k}`, () => linked(p, by).slice(0, k).filter((x) => x.score > 0).map((x) => x.e));
  const expandedCache = memo<[number, number][]>();
  const expandedWords = (p: Prepared, es: Entity[], lambda: number) =>
    expandedCache(`${p.query}|${es.map((e) => e.name).join('|')}|${lambda}`, () => {
      const own = stems(p.query);
      const terms = [...new Set(es.flatMap((e) => [...stems(e.names.join(' '))]))].filter((t) => !own.has(t));
      const extra = terms.length ? bm25Ranking(db, vaultOfQuery(p), terms.map((t) => `"${t}"`).join(' OR '), FUSION.candidates) : [];
      const score = new Map(p.words);
      for (const [id, s] of extra) score.set(id, (score.get(id) ?? 0) + lambda * s);
      return [...score.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, FUSION.candidates);
    });
  const withEntities = (by: 'words' | 'meaning', k: number, lambda: number, beta: number) => (p: Prepared) => {
    const es = link(p, by, k);
    if (!es.length) return fusedHits(p).map((h) => h.chunkId);
    const words = lambda ? expandedWords(p, es, lambda) : p.words;
    if (!beta) return fusedHits(p, { words }).map((h) => h.chunkId);
    // the query moved towards the words' top 5 (as shipped) and, by β, towards the linked entities' vectors
    const fb = ids(words).slice(0, FEEDBACK.chunks).map((id) => chunkVec.get(id)!).filter(Boolean);
    const q = feedbackVector(feedbackVector(Float32Array.from(p.vector), fb), es.map((e) => e.vector!), beta);
    return fusedHits({ ...p, vector: [...q] }, { words, feedback: false }).map((h) => h.chunkId);
  };
  variant('entities: shipped, re-computed here', (p) => fusedHits(p).map((h) => h.chunkId));
  for (const by of ['words', 'meaning'] as const) for (const k of [1, 2, 3]) {
    for (const lambda of [0.25, 0.5, 1]) variant(`entities: by ${by}, top ${k}, λ ${lambda}`, withEntities(by, k, lambda, 0));
    for (const beta of [0.25, 0.5]) variant(`entities: by ${by}, top ${k}, meaning β ${beta} only`, withEntities(by, k, 0, beta));
    variant(`entities: by ${by}, top ${k}, λ 0.5 + meaning β 0.25`, withEntities(by, k, 0.5, 0.25));
  }
  for (const s of ['para tune', 'lexical tune']) for (const p of data[s]!.slice(0, 8)) {
    process.stderr.write(`  ${s}: ${p.query}\n    words → ${link(p, 'words', 3).map((e) => e.name).join(', ')}\n    meaning → ${link(p, 'meaning', 3).map((e) => e.name).join(', ')}\n`);
  }
}
