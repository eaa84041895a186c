/**
 * `npm run bench:search-alternatives` (issue 42): transcript search with and without the caller's rephrasings
 * (`alternatives`), on the sets of `npm run bench:search` and its store (bench/.cache/, built by that bench on
 * its first run, or here).
 *
 * The rephrasings are bench/alternatives.json: three per question, written once by a language model from the
 * question's text alone (how, in that file's header). For each question, each phrasing's own hybrid ranking is
 * computed once (phrasingRankings, as the tool runs it), then:
 *  - "without": the query's own ranking, which is exactly what search_transcripts answers without alternatives;
 *  - "with": the rankings fused as the tool fuses them (fuseRankings with PHRASING_FUSION, overlapping excerpts
 *    merged);
 *  - `--grid`: the fusion's k, query weight and depth over a grid, on the QMSum TUNING half only (the half
 *    PHRASING_FUSION was chosen on; bench/search.ts's split by meeting, fixed before issue 19).
 * A hit is a returned excerpt whose turns overlap a labelled answer. The QMSum report half and the report
 * paraphrase set were never used to choose anything.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { indexPending } from '../src/search/vector-indexing.js';
import {
  distinctPhrasings,
  fuseRankings,
  mergeOverlapping,
  PHRASING_FUSION,
  phrasingRankings,
  type PhrasingFusion,
} from '../src/search/phrasings.js';
import type { SearchHit } from '../src/search/transcripts.js';
import { openBench, type Labelled } from './search.js';

const ROOT = resolve(import.meta.dirname, '..');
const ALTERNATIVES = JSON.parse(readFileSync(join(ROOT, 'bench', 'alternatives.json'), 'utf8')) as {
  qmsum: Record<string, string[]>;
  fixtures: Record<string, string[]>;
};

/** A question with its rephrasings and each phrasing's own ranking. */
interface Prepared {
  q: Labelled;
  sources: number[][];
  rankings: SearchHit[][];
}

interface Scores {
  hit1: number;
  hit5: number;
  mrr10: number;
  /** per question: rank of the first hit (0-based), -1 for none in the top 10 */
  firsts: number[];
}

async function main() {
  const bench = openBench();
  const { db, model, embedder, sets } = bench;
  await indexPending(db, embedder, { batchSize: 32 });
  const spans = db.prepare('SELECT meeting_id, turn_start, turn_end FROM transcript_chunks WHERE id = ?');

  // QMSum queries are keyed by meeting and their index in its specific_query_list (loadQmsum keeps that order).
  const keyOf = new Map<Labelled, string>();
  const perMeeting = new Map<string, Labelled[]>();
  for (const q of [...sets['QMSum tune'], ...sets['QMSum report']])
    perMeeting.set(q.id!, [...(perMeeting.get(q.id!) ?? []), q]);
  for (const [meeting, qs] of perMeeting) qs.forEach((q, i) => keyOf.set(q, `${meeting}#${i}`));
  const alternativesOf = (q: Labelled): string[] => {
    const alts = q.kind === 'qmsum' ? ALTERNATIVES.qmsum[keyOf.get(q)!] : ALTERNATIVES.fixtures[q.id!];
    if (!alts) throw new Error(`no alternatives for ${q.kind} ${keyOf.get(q) ?? q.id}: ${q.query}`);
    return alts;
  };

  const named: [keyof typeof sets, string][] = [
    ['QMSum tune', 'QMSum val, tuning half'],
    ['QMSum report', 'QMSum val, report half'],
    ['para tune', 'paraphrase set (tuning)'],
    ['para report', 'paraphrase-report set (report)'],
  ];
  const prepared = new Map<string, Prepared[]>();
  const t0 = Date.now();
  for (const [key] of named) {
    const out: Prepared[] = [];
    for (const q of sets[key]) {
      const { texts, sources } = distinctPhrasings(q.query, alternativesOf(q));
      const { rankings } = await phrasingRankings(db, q.vault, texts, { embedder });
      out.push({ q, sources, rankings });
    }
    prepared.set(key, out);
  }
  process.stderr.write(`rankings of every phrasing: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);

  const isHit = (q: Labelled, ids: number[]) =>
    ids.some((id) => {
      const c = spans.get(id) as { meeting_id: string; turn_start: number; turn_end: number };
      return q.answers.some(
        (a) => a.meetingId === c.meeting_id && c.turn_start <= a.turns[1] && c.turn_end >= a.turns[0],
      );
    });
  const score = (items: Prepared[], rank: (p: Prepared) => number[][]): Scores => {
    const firsts = items.map((p) => rank(p).findIndex((ids) => isHit(p.q, ids)));
    const n = items.length || 1;
    return {
      hit1: firsts.filter((f) => f === 0).length / n,
      hit5: firsts.filter((f) => f >= 0 && f < 5).length / n,
      mrr10: firsts.reduce((a, f) => a + (f >= 0 ? 1 / (f + 1) : 0), 0) / n,
      firsts,
    };
  };
  const without = (p: Prepared) => p.rankings[0]!.slice(0, 10).map((h) => [h.chunkId]);
  const withAlternatives = (fusion: PhrasingFusion) => (p: Prepared) =>
    mergeOverlapping(db, fuseRankings(p.rankings, p.sources, fusion), 10).map((h) => h.chunkIds);
  const alone = (i: number) => (p: Prepared) => (p.rankings[i] ?? []).slice(0, 10).map((h) => [h.chunkId]);
  const cell = (s: Scores) => `${s.mrr10.toFixed(3)} / ${s.hit5.toFixed(3)}`;

  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `fusion shipped (PHRASING_FUSION): k ${PHRASING_FUSION.k}, query weight ${PHRASING_FUSION.queryWeight}, depth ${PHRASING_FUSION.depth}; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  if (process.argv.includes('--grid')) {
    const tune = prepared.get('QMSum tune')!;
    say(
      `\ngrid on the QMSum tuning half only (${tune.length} questions), MRR@10 / hit@5; without alternatives ${cell(score(tune, without))}`,
    );
    const rows: [PhrasingFusion, Scores][] = [];
    for (const depth of [10, 20, 50]) {
      for (const k of [5, 10, 20, 30, 60]) {
        for (const queryWeight of [1, 1.25, 1.5, 2, 3]) {
          const f = { k, queryWeight, depth };
          rows.push([f, score(tune, withAlternatives(f))]);
        }
      }
    }
    rows.sort((a, b) => b[1].mrr10 - a[1].mrr10 || b[1].hit5 - a[1].hit5);
    for (const [f, s] of rows.slice(0, 15))
      say(
        `  k ${String(f.k).padStart(2)}  query weight ${String(f.queryWeight).padEnd(4)}  depth ${String(f.depth).padStart(2)}   ${cell(s)}`,
      );
    say(
      `  … worst: ${rows
        .slice(-3)
        .map(([f, s]) => `k ${f.k} w ${f.queryWeight} d ${f.depth} ${cell(s)}`)
        .join('; ')}`,
    );
  }

  say(`\n| MRR@10 / hit@5 | ${named.map(([key, name]) => `${name} (${prepared.get(key)!.length})`).join(' | ')} |`);
  say(`|---|${named.map(() => '---|').join('')}`);
  const methods: [string, (p: Prepared) => number[][]][] = [
    ['hybrid, without alternatives (as shipped)', without],
    ['**hybrid, with the 3 alternatives (fused)**', withAlternatives(PHRASING_FUSION)],
    ['first alternative alone', alone(1)],
  ];
  const results = new Map<string, Scores[]>();
  for (const [label, rank] of methods) {
    const row = named.map(([key]) => score(prepared.get(key)!, rank));
    results.set(label, row);
    say(`| ${label} | ${row.map(cell).join(' | ')} |`);
  }
  // Per question: in the top 5 with alternatives and not without, and the reverse.
  const before = results.get(methods[0]![0])!;
  const after = results.get(methods[1]![0])!;
  say(
    `\nquestions whose first hit enters / leaves the top 5 with alternatives: ${named
      .map(([, name], i) => {
        const b = before[i]!.firsts;
        const a = after[i]!.firsts;
        const top5 = (f: number) => f >= 0 && f < 5;
        return `${name}: +${a.filter((f, j) => top5(f) && !top5(b[j]!)).length} / -${a.filter((f, j) => !top5(f) && top5(b[j]!)).length}`;
      })
      .join('; ')}`,
  );
  // Paired bootstrap of the MRR@10 gain (questions resampled with replacement; a fixed seed, so runs agree).
  say(
    `MRR@10 gain with alternatives, 95% paired bootstrap interval (2,000 resamples): ${named
      .map(([, name], i) => {
        const gain = after[i]!.firsts.map((f, j) => rr(f) - rr(before[i]!.firsts[j]!));
        const [lo, hi] = bootstrap(gain);
        return `${name}: ${mean(gain) >= 0 ? '+' : ''}${mean(gain).toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}]`;
      })
      .join('; ')}`,
  );
  await model.close();
  db.close();
}

const rr = (first: number) => (first >= 0 ? 1 / (first + 1) : 0);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / (xs.length || 1);

/** 2.5th and 97.5th percentiles of the mean of `xs` over resamples (deterministic generator). */
function bootstrap(xs: number[], rounds = 2000): [number, number] {
  let seed = 12345;
  const rand = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const means = Array.from({ length: rounds }, () => mean(xs.map(() => xs[Math.floor(rand() * xs.length)]!))).sort(
    (a, b) => a - b,
  );
  return [means[Math.floor(rounds * 0.025)]!, means[Math.floor(rounds * 0.975)]!];
}

await main();
