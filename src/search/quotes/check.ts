/**
 * check_quotes' search: each quotation of a draft looked up in the vault's transcripts. Candidates come from the
 * vault's word index (a few phrase queries per stretch of a quotation, at most QUOTE_LIMITS.candidates chunks),
 * each widened to the passage around it (two turns each side); words are then aligned only within those passages, per
 * speaker (a speaker's turns in a row, others' short interjections between them skipped), so a quotation of one
 * turn or of a speaker's consecutive turns reads as one stretch.
 *
 * A quotation whose best stretch leaves three words or more of it unsaid is searched again for the rest (a
 * merge of two things said apart), at most QUOTE_LIMITS.parts stretches in all. Verdicts:
 * - verbatim: one stretch, every word as said (case, punctuation, fillers and ellipses aside);
 * - close: at least 60% of its words as said, in one stretch or several: the real words come back;
 * - not_found: less than that.
 */
import type { Db } from '../../store/db.js';
import { turnsBetween, type TurnRow } from '../../store/meetings.js';
import { tokens } from '../../store/text.js';
import { chunkRows, filteredChunks, isFiltered, type SearchFilters } from '../chunk-index.js';
import { chunksMatching } from '../word-index.js';
import { diffAgainst, localCore, wordsOf, type DiffOp, type Word } from './align.js';

/** The work one call may do, whatever the draft (the tool's description says them). */
export const QUOTE_LIMITS = {
  /** quotations checked per call; the rest are counted, not checked */
  quotations: 50,
  /** words of a quotation compared; a longer one is checked on its first words */
  words: 200,
  /** chunks the word index brings per stretch searched */
  candidates: 12,
  /** stretches one quotation may be found in (a merge of several things said) */
  parts: 3,
} as const;

/** Fewer words than this left over is a difference of wording, not another thing said. */
const MIN_PART = 3;
/** A stretch counts when its alignment score (words in common less edits) reaches this share of its words, and 4. */
const PART_SHARE = 0.5;
/** Share of a quotation's words that must be as said for `close`. */
const CLOSE_SHARE = 0.6;

/**
 * The verdict on a quotation from its parts found and its word diff against them (see the file comment): verbatim
 * when one stretch says all of it, close when at least CLOSE_SHARE of its words are as said, else not found.
 */
export function verdictOf(
  parts: readonly unknown[],
  diff: readonly { op: string; quoted: string }[],
  words: number,
): { verdict: 'verbatim' | 'close' | 'not_found'; asSaid: number } {
  const asSaid = diff.filter((d) => d.op === 'same').reduce((n, d) => n + d.quoted.split(' ').length, 0);
  if (parts.length === 1 && diff.every((d) => d.op === 'same')) return { verdict: 'verbatim', asSaid };
  return { verdict: parts.length && asSaid >= CLOSE_SHARE * words ? 'close' : 'not_found', asSaid };
}
/** Turns read on each side of a candidate chunk. */
const AROUND = 2;
/** A speaker's turns further apart than this are not "in a row". */
const MAX_TURN_GAP = 3;

interface SaidWord extends Word {
  turn: number;
}
interface Sequence {
  meetingId: string;
  meetingName: string;
  date: string;
  speaker: string;
  words: SaidWord[];
  turns: Map<number, string>;
}

export interface FoundPart {
  qFrom: number;
  qTo: number;
  seq: Sequence;
  ops: DiffOp[];
}

export interface QuoteSearch {
  db: Db;
  vaultId: string;
  filters: SearchFilters;
  /** the chunks that pass the filters (filtered searches only) */
  allowed?: Set<number>;
  /** turns read so far, by meeting and range, so parts and quotations share them */
  turnCache: Map<string, TurnRow[]>;
}

export function quoteSearch(db: Db, vaultId: string, filters: SearchFilters): QuoteSearch {
  return {
    db,
    vaultId,
    filters,
    allowed: isFiltered(filters) ? filteredChunks(db, vaultId, filters) : undefined,
    turnCache: new Map(),
  };
}

/**
 * The phrase queries of a stretch: its first and last four words, and up to four runs of three words between
 * them. A quotation as said is found by any of them; one with a word changed by the others (a change touches
 * one run); each half of a merge by its own end. Phrase queries read only the chunks holding all their words,
 * in order, and stop at the first few: measured at 50,000 chunks, under a load of 15 on two cores, a four-word
 * phrase takes 0.3 ms at the median and 8.5 ms at p95, where an OR query of five words (BM25 over every chunk
 * holding any of them) took 25 ms and 150 ms.
 */
const EDGE_WORDS = 4;
const RUN_WORDS = 3;
const MIDDLE_RUNS = 4;
const PER_PHRASE = 2;

/** The phrases to try first (the whole of a short stretch, else its two ends), and the runs for when none is found. */
function phrasesOf(words: string[]): { first: string[][]; fallback: string[][] } {
  if (words.length <= 2 * EDGE_WORDS) {
    const runs = [];
    for (let i = 0; i + RUN_WORDS <= words.length; i += RUN_WORDS) runs.push(words.slice(i, i + RUN_WORDS));
    if (words.length % RUN_WORDS && words.length > RUN_WORDS) runs.push(words.slice(-RUN_WORDS));
    return { first: [words], fallback: runs };
  }
  const middle = words.slice(EDGE_WORDS, -EDGE_WORDS);
  const runs: string[][] = [];
  const count = Math.min(MIDDLE_RUNS, Math.floor(middle.length / RUN_WORDS));
  for (let k = 0; k < count; k++) {
    const at = Math.floor((k * (middle.length - RUN_WORDS)) / Math.max(1, count - 1));
    runs.push(middle.slice(at, at + RUN_WORDS));
  }
  return { first: [words.slice(0, EDGE_WORDS), words.slice(-EDGE_WORDS)], fallback: runs };
}

/**
 * Candidate chunks for a stretch: the chunks holding one of its phrases (FTS5 phrases of letters and digits
 * only, in double quotes: nothing in them is query syntax), the runs only when the first phrases find nothing;
 * at most QUOTE_LIMITS.candidates.
 */
function candidateChunks(s: QuoteSearch, text: string): number[] {
  const ids = new Set<number>();
  const { first, fallback } = phrasesOf(tokens(text));
  for (const round of [first, fallback]) {
    for (const p of round) {
      if (p.length < 2) continue;
      for (const id of matching(s, `"${p.join(' ')}"`, PER_PHRASE)) {
        ids.add(id);
        if (ids.size >= QUOTE_LIMITS.candidates) return [...ids];
      }
    }
    if (ids.size) break;
  }
  return [...ids];
}

/** The first `limit` chunks matching an FTS5 query, among those that pass the filters. */
function matching(s: QuoteSearch, match: string, limit: number): number[] {
  const out: number[] = [];
  if (s.allowed && !s.allowed.size) return out;
  for (const id of chunksMatching(s.db, s.vaultId, match))
    if ((!s.allowed || s.allowed.has(id)) && out.push(id) >= limit) break;
  return out;
}

/** The passages (per speaker) around the best chunks for these words. */
function passages(s: QuoteSearch, text: string): Sequence[] {
  const ids = candidateChunks(s, text);
  if (!ids.length) return [];
  const rows = [...chunkRows(s.db, ids).values()];
  // Windows per meeting, merged where they overlap.
  const byMeeting = new Map<string, { name: string; date: string; ranges: [number, number][] }>();
  for (const r of rows) {
    const m = byMeeting.get(r.meeting_id) ?? { name: r.meeting_name, date: r.started_at, ranges: [] };
    m.ranges.push([Math.max(0, r.turn_start - AROUND), r.turn_end + AROUND]);
    byMeeting.set(r.meeting_id, m);
  }
  const out: Sequence[] = [];
  for (const [meetingId, m] of byMeeting) {
    m.ranges.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const r of m.ranges) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
      else merged.push([...r]);
    }
    for (const [from, to] of merged) {
      const key = `${meetingId}\u0000${from}\u0000${to}`;
      let turns = s.turnCache.get(key);
      if (!turns) s.turnCache.set(key, (turns = turnsBetween(s.db, s.vaultId, meetingId, from, to)));
      out.push(...speakerSequences(meetingId, m.name, m.date, turns));
    }
  }
  return out;
}

/** A passage's words per speaker: each speaker's turns in a row (others' turns between them skipped). */
function speakerSequences(meetingId: string, meetingName: string, date: string, turns: TurnRow[]): Sequence[] {
  const open = new Map<string, Sequence & { lastTurn: number }>();
  const out: Sequence[] = [];
  for (const t of turns) {
    let seq = open.get(t.speaker);
    if (seq && t.turn_index - seq.lastTurn > MAX_TURN_GAP) seq = undefined;
    if (!seq) {
      seq = { meetingId, meetingName, date, speaker: t.speaker, words: [], turns: new Map(), lastTurn: t.turn_index };
      open.set(t.speaker, seq);
      out.push(seq);
    }
    seq.lastTurn = t.turn_index;
    seq.turns.set(t.turn_index, t.text);
    for (const w of wordsOf(t.text)) seq.words.push({ ...w, turn: t.turn_index });
  }
  return out;
}

const speakerOf = (attributed: string | undefined) => (attributed ? tokens(attributed) : []);
/** Whether an attributed name ("Tom", "Becker", "Tom Becker") names this speaker. */
export const namesSpeaker = (attributed: string, speaker: string): boolean => {
  const said = new Set(tokens(speaker));
  const named = speakerOf(attributed);
  return named.length > 0 && named.every((w) => said.has(w));
};

/**
 * Where quotation words [from, to) were said: the best stretch, then the rest of the quotation on either side
 * searched again when three words or more are left over. `attributed` breaks ties of equal alignment.
 */
export function findParts(
  s: QuoteSearch,
  quote: string,
  q: Word[],
  from: number,
  to: number,
  attributed: string | undefined,
  budget = { parts: QUOTE_LIMITS.parts },
): FoundPart[] {
  if (to - from < MIN_PART || budget.parts <= 0) return [];
  const slice = q.slice(from, to);
  const text = quote.slice(slice[0]!.start, slice[slice.length - 1]!.end);
  let best: { score: number; core: ReturnType<typeof localCore>; seq: Sequence; named: boolean } | undefined;
  for (const seq of passages(s, text)) {
    const core = localCore(slice, seq.words);
    const named = !!attributed && namesSpeaker(attributed, seq.speaker);
    if (!best || core.score > best.score || (core.score === best.score && named && !best.named))
      best = { score: core.score, core, seq, named };
  }
  if (!best || best.score < Math.max(4, Math.ceil(PART_SHARE * (best.core.qTo - best.core.qFrom)))) return [];
  budget.parts--;
  // The stretch, widened to the quotation's ends where less than a part is left over there.
  let qa = from + best.core.qFrom;
  let qb = from + best.core.qTo;
  if (qa - from < MIN_PART) qa = from;
  if (to - qb < MIN_PART) qb = to;
  const pad = best.core.qFrom + (to - from - best.core.qTo) + 2;
  const tFrom = Math.max(0, best.core.tFrom - pad);
  const window = best.seq.words.slice(tFrom, best.core.tTo + pad);
  const ops = diffAgainst(q.slice(qa, qb), window).map((op) => shift(op, qa, tFrom));
  const part: FoundPart = { qFrom: qa, qTo: qb, seq: best.seq, ops };
  return [
    ...findParts(s, quote, q, from, qa, attributed, budget),
    part,
    ...findParts(s, quote, q, qb, to, attributed, budget),
  ];
}

const shift = (op: DiffOp, dq: number, dt: number): DiffOp =>
  op.op === 'added'
    ? { op: 'added', q: op.q + dq }
    : op.op === 'missing'
      ? { op: 'missing', t: op.t + dt }
      : { ...op, q: op.q + dq, t: op.t + dt };

export interface Segment {
  op: 'same' | 'changed' | 'added' | 'missing';
  /** the draft's words here ('' for missing) */
  quoted: string;
  /** the transcript's words here ('' for added) */
  said: string;
}

/**
 * The differences of a quotation as runs of one kind, in the quotation's order; words not found at all are
 * `added`. A run shows the draft's own text from its first word to its last (punctuation kept), and the
 * transcript's the same way within a turn.
 */
export function segments(quote: string, q: Word[], parts: FoundPart[]): Segment[] {
  type Step = { op: Segment['op']; q?: number; t?: { seq: Sequence; i: number } };
  const steps: Step[] = [];
  let next = 0;
  for (const part of [...parts].sort((a, b) => a.qFrom - b.qFrom)) {
    for (; next < part.qFrom; next++) steps.push({ op: 'added', q: next });
    for (const op of part.ops) {
      if (op.op === 'added') steps.push({ op: 'added', q: op.q });
      else if (op.op === 'missing') steps.push({ op: 'missing', t: { seq: part.seq, i: op.t } });
      else steps.push({ op: op.op, q: op.q, t: { seq: part.seq, i: op.t } });
    }
    next = part.qTo;
  }
  for (; next < q.length; next++) steps.push({ op: 'added', q: next });
  const out: Segment[] = [];
  for (let a = 0; a < steps.length; ) {
    let b = a;
    while (b + 1 < steps.length && steps[b + 1]!.op === steps[a]!.op) b++;
    const run = steps.slice(a, b + 1);
    const qs = run.filter((r) => r.q !== undefined).map((r) => r.q!);
    const ts = run.filter((r) => r.t).map((r) => r.t!);
    out.push({
      op: steps[a]!.op,
      quoted: qs.length ? quote.slice(q[qs[0]!]!.start, q[qs[qs.length - 1]!]!.end) : '',
      said: saidText(ts),
    });
    a = b + 1;
  }
  return out;
}

/** The transcript's text of a run of its words: one slice per turn, turns joined by a space. */
function saidText(ts: { seq: Sequence; i: number }[]): string {
  const pieces: string[] = [];
  for (let a = 0; a < ts.length; ) {
    const first = ts[a]!.seq.words[ts[a]!.i]!;
    let b = a;
    while (
      b + 1 < ts.length &&
      ts[b + 1]!.seq === ts[a]!.seq &&
      ts[b + 1]!.seq.words[ts[b + 1]!.i]!.turn === first.turn
    )
      b++;
    const last = ts[b]!.seq.words[ts[b]!.i]!;
    pieces.push(ts[a]!.seq.turns.get(first.turn)!.slice(first.start, last.end));
    a = b + 1;
  }
  return pieces.join(' ');
}

export interface SourceSpan {
  speaker: string;
  meetingId: string;
  meetingName: string;
  date: string;
  turnStart: number;
  turnEnd: number;
  /** the transcript's own words for the stretch, turn slices joined by " … " where others spoke between */
  said: string;
}

/** The transcript's exact words of a found stretch: from its first word in common to its last. */
export function sourceOf(part: FoundPart): SourceSpan {
  const used = part.ops.filter((o): o is Extract<DiffOp, { t: number }> => o.op !== 'added');
  const first = part.seq.words[used[0]!.t]!;
  const last = part.seq.words[used[used.length - 1]!.t]!;
  const pieces: string[] = [];
  let prevTurn = -1;
  for (const [turn, text] of part.seq.turns) {
    if (turn < first.turn || turn > last.turn) continue;
    const a = turn === first.turn ? first.start : 0;
    let b = turn === last.turn ? last.end : text.length;
    if (turn === last.turn && /^[.!?]/.test(text.slice(b))) b++; // the sentence's own full stop
    const piece = text.slice(a, b).trim();
    if (!piece) continue;
    pieces.push(prevTurn >= 0 && turn > prevTurn + 1 ? `… ${piece}` : piece);
    prevTurn = turn;
  }
  const s = part.seq;
  return {
    speaker: s.speaker,
    meetingId: s.meetingId,
    meetingName: s.meetingName,
    date: s.date,
    turnStart: first.turn,
    turnEnd: last.turn,
    said: pieces.join(' '),
  };
}

/** The turns on either side of a stretch, cut to `chars`: a little context. */
export function contextOf(
  s: QuoteSearch,
  src: SourceSpan,
  chars = 200,
): { before: { speaker: string; text: string } | null; after: { speaker: string; text: string } | null } {
  const cut = (t: TurnRow | undefined) =>
    t
      ? { speaker: t.speaker, text: t.text.length > chars ? `${t.text.slice(0, chars - 1).trimEnd()}…` : t.text }
      : null;
  return {
    before:
      src.turnStart > 0
        ? cut(turnsBetween(s.db, s.vaultId, src.meetingId, src.turnStart - 1, src.turnStart - 1)[0])
        : null,
    after: cut(turnsBetween(s.db, s.vaultId, src.meetingId, src.turnEnd + 1, src.turnEnd + 1)[0]),
  };
}
