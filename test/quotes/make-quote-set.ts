/**
 * Writes test/quotes/quote-set.json: the labelled quotations check_quotes is measured on (issue 49), built from
 * the demo vaults' transcripts as they are in fixtures/ (never from the tool's answers), with a seeded PRNG so
 * a rerun writes the same file:
 *
 *   npx tsx test/quotes/make-quote-set.ts
 *
 * Kinds (each label says what a right answer is):
 * - verbatim-turn: a sentence (or two) of one turn, as said, attributed to its speaker (or to nobody);
 * - verbatim-turns: the end of a speaker's turn and the start of their next one, another person's short turn between;
 * - one-word: a sentence of 8+ words with one word in the middle replaced by a word of another turn;
 * - merged: two sentences of different turns joined as one quotation;
 * - paraphrase: a sentence of the meeting's notes (the same facts in the note-taker's words), or a said
 *   sentence reworded (words dropped, halves swapped);
 * - invented: a sentence made of the vault's own words that no turn holds;
 * - wrong-speaker: a sentence as said, attributed to another attendee of that meeting;
 * - hostile: FTS5 syntax, markup and bidi controls, alone (nobody said them) or around words said (punctuation: still verbatim).
 * Every "said" label is checked against all turns of the vault here: a sentence said word for word by two
 * speakers, or in two places, is not used.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(import.meta.dirname, 'quote-set.json');

interface Turn {
  speaker: string;
  text: string;
}
interface Meeting {
  id: string;
  name: string;
  notes: string;
  transcript: Turn[];
}
export interface Label {
  id: string;
  vault: string;
  kind:
    | 'verbatim-turn'
    | 'verbatim-turns'
    | 'one-word'
    | 'merged'
    | 'paraphrase'
    | 'invented'
    | 'wrong-speaker'
    | 'hostile';
  /** the quotation's words as the draft has them, and the paragraph of the draft that holds them */
  quote: string;
  paragraph: string;
  /** the name the draft gives, null when it names nobody */
  attributedTo: string | null;
  expect: {
    verdict: 'verbatim' | 'close' | 'not_verbatim';
    /** where it was said (verbatim kinds): meeting, first and last turn, speaker */
    meetingId?: string;
    turns?: [number, number];
    speaker?: string;
    /** the real sentences (one-word, merged) */
    said?: string[];
    misattributed: boolean;
  };
}

function prng(seed: number) {
  let s = seed >>> 0;
  const next = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}

/** Words as a reader compares them: letters and digits, lower case, apostrophes dropped, fillers out. */
const norm = (s: string) =>
  (
    s
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/['’]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .filter((w) => !['um', 'uh', 'er', 'erm', 'hmm'].includes(w))
    .join(' ');
const sentences = (text: string) => (text.match(/[^.!?]+[.!?]+/g) ?? []).map((s) => s.trim());
const wordCount = (s: string) => norm(s).split(' ').filter(Boolean).length;

function vault(dir: string, id: string, seed: number): Label[] {
  const rnd = prng(seed);
  const meetings = readdirSync(join(ROOT, 'fixtures', dir, 'meetings'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(ROOT, 'fixtures', dir, 'meetings', f), 'utf8')) as Meeting);
  const all = meetings.flatMap((m) => m.transcript.map((t, i) => ({ m, i, t, n: ` ${norm(t.text)} ` })));
  /** turns that hold these words in a row */
  const where = (s: string) => all.filter((x) => x.n.includes(` ${norm(s)} `));
  const saidOnce = (s: string) => where(s).length === 1;
  const saidNowhere = (s: string) => where(s).length === 0;
  const speakers = [...new Set(all.map((x) => x.t.speaker))];
  const firstNames = speakers.map((s) => s.split(' ')[0]!);
  const uniqueFirst = (s: string) => firstNames.filter((f) => f === s.split(' ')[0]).length === 1;
  const labels: Label[] = [];
  let n = 0;
  const add = (kind: Label['kind'], quote: string, attributedTo: string | null, expect: Label['expect'], style = n) => {
    labels.push({
      id: `${id}-${kind}-${++n}`,
      vault: id,
      kind,
      quote,
      paragraph: paragraph(quote, attributedTo, style, rnd),
      attributedTo,
      expect,
    });
  };
  const candidates = all.flatMap((x) =>
    sentences(x.t.text)
      .map((s) => ({ ...x, s }))
      .filter((c) => wordCount(c.s) >= 6 && wordCount(c.s) <= 40 && saidOnce(c.s)),
  );
  const take = (k: number, pred: (c: (typeof candidates)[number]) => boolean = () => true) => {
    const pool = candidates.filter(pred);
    const out: typeof pool = [];
    const used = new Set<string>();
    for (let tries = 0; out.length < k && tries < 10_000; tries++) {
      const c = rnd.pick(pool);
      if (used.has(c.s)) continue;
      used.add(c.s);
      out.push(c);
    }
    return out;
  };

  for (const c of take(18)) {
    const named = rnd.next() < 0.8 ? nameFor(c.t.speaker, uniqueFirst, rnd) : null;
    add('verbatim-turn', c.s, named, {
      verdict: 'verbatim',
      meetingId: c.m.id,
      turns: [c.i, c.i],
      speaker: c.t.speaker,
      misattributed: false,
    });
  }
  // A speaker's two turns with someone else's short turn between.
  const pairs = meetings.flatMap((m) =>
    m.transcript.flatMap((t, i) => {
      const mid = m.transcript[i + 1];
      const next = m.transcript[i + 2];
      if (!mid || !next || next.speaker !== t.speaker || mid.speaker === t.speaker || wordCount(mid.text) > 12)
        return [];
      const a = sentences(t.text).at(-1);
      const b = sentences(next.text)[0];
      if (!a || !b || wordCount(a) < 3 || wordCount(b) < 3 || wordCount(a) + wordCount(b) > 45) return [];
      if (!saidOnce(a) || !saidOnce(b)) return [];
      return [{ m, i, speaker: t.speaker, quote: `${a} ${b}` }];
    }),
  );
  for (const p of pickSome(pairs, 12, rnd)) {
    add('verbatim-turns', p.quote, nameFor(p.speaker, uniqueFirst, rnd), {
      verdict: 'verbatim',
      meetingId: p.m.id,
      turns: [p.i, p.i + 2],
      speaker: p.speaker,
      misattributed: false,
    });
  }
  // One word changed: a word of four letters or more in the middle, swapped for one from elsewhere in the vault.
  const vocabulary = [
    ...new Set(all.flatMap((x) => norm(x.t.text).split(' ')).filter((w) => w.length >= 5 && /^[a-z]+$/.test(w))),
  ];
  for (const c of take(16, (c) => wordCount(c.s) >= 8)) {
    const tokens = c.s.split(' ');
    const spots = tokens
      .map((w, i) => ({ w, i }))
      .filter(({ w, i }) => i > 0 && i < tokens.length - 1 && /^[A-Za-z]{4,}[,;]?$/.test(w));
    if (!spots.length) continue;
    const spot = rnd.pick(spots);
    let other = rnd.pick(vocabulary);
    while (norm(c.s).split(' ').includes(other)) other = rnd.pick(vocabulary);
    tokens[spot.i] = spot.w.replace(/^[A-Za-z]+/, other);
    const changed = tokens.join(' ');
    if (!saidNowhere(changed)) continue;
    add('one-word', changed, nameFor(c.t.speaker, uniqueFirst, rnd), {
      verdict: 'close',
      said: [c.s],
      speaker: c.t.speaker,
      misattributed: false,
    });
  }
  // Two sentences of different turns (often of different people and meetings) as one quotation.
  const merges = take(32, (c) => wordCount(c.s) >= 6 && wordCount(c.s) <= 22);
  for (let k = 0; k + 1 < merges.length; k += 2) {
    const [a, b] = [merges[k]!, merges[k + 1]!];
    if (a.m === b.m && Math.abs(a.i - b.i) < 4) continue;
    const merged = `${a.s} ${b.s}`;
    if (!saidNowhere(merged)) continue;
    add('merged', merged, a.t.speaker === b.t.speaker ? nameFor(a.t.speaker, uniqueFirst, rnd) : null, {
      verdict: 'close',
      said: [a.s, b.s],
      misattributed: false,
    });
  }
  // Paraphrases: the notes' sentences (the same facts in the note-taker's words), and reworded sentences.
  const noteLines = meetings.flatMap((m) =>
    m.notes
      .split('\n')
      .map((l) =>
        l
          .replace(/^[-*#\s]+/, '')
          .replace(/\*\*/g, '')
          .trim(),
      )
      .flatMap(sentences)
      .filter((s) => wordCount(s) >= 8 && wordCount(s) <= 35 && !/["“”]/.test(s) && saidNowhere(s)),
  );
  for (const s of pickSome(noteLines, 12, rnd))
    add('paraphrase', s, null, { verdict: 'not_verbatim', misattributed: false });
  for (const c of take(10, (c) => wordCount(c.s) >= 10)) {
    const w = c.s.replace(/[.!?]+$/, '').split(' ');
    const half = Math.floor(w.length / 2);
    // The second half first, every third word dropped: the gist in other words and order.
    const reworded = [...w.slice(half), ...w.slice(0, half)].filter((_, i) => i % 3 !== 2).join(' ') + '.';
    if (!saidNowhere(reworded)) continue;
    add('paraphrase', reworded, nameFor(c.t.speaker, uniqueFirst, rnd), {
      verdict: 'not_verbatim',
      misattributed: false,
    });
  }
  // Invented: the vault's words in sentences nobody said.
  const nouns = vocabulary.filter((w) => w.length >= 6);
  const frames = [
    (a: string, b: string) =>
      `We will replace the ${a} before the ${b} review and the board has already signed it off.`,
    (a: string, b: string) => `Honestly the ${a} has never been a problem for us, it is the ${b} that keeps me awake.`,
    (a: string, b: string) => `I can promise you the ${a} numbers will double once the ${b} is fixed next quarter.`,
    (a: string, b: string) => `Nobody on my team has ever complained about the ${a} or the ${b}, not once.`,
  ];
  for (let k = 0; k < 16; k++) {
    const s = frames[k % frames.length]!(rnd.pick(nouns), rnd.pick(nouns));
    if (!saidNowhere(s)) continue;
    add('invented', s, rnd.next() < 0.7 ? rnd.pick(speakers) : null, { verdict: 'not_verbatim', misattributed: false });
  }
  // The right words, the wrong person: another attendee of that meeting.
  for (const c of take(16)) {
    const others = [...new Set(c.m.transcript.map((t) => t.speaker))].filter(
      (s) => s.split(' ')[0] !== c.t.speaker.split(' ')[0] && s.split(' ').at(-1) !== c.t.speaker.split(' ').at(-1),
    );
    if (!others.length) continue;
    add('wrong-speaker', c.s, nameFor(rnd.pick(others), uniqueFirst, rnd), {
      verdict: 'verbatim',
      meetingId: c.m.id,
      turns: [c.i, c.i],
      speaker: c.t.speaker,
      misattributed: true,
    });
  }
  // Hostile: query syntax, markup and bidi controls; alone, or around words said (punctuation to the comparison).
  const hostile = [
    'NEAR(dock congestion, 5) AND "trailers" OR pallets* ^first',
    '<img src=x onerror="alert(1)"> delete from transcript_chunks; --',
    'dock congestion" OR 1=1 OR "x NEAR/3 ( ) * ^ : -',
    '\u202Eevil.exe\u202C is what the \u2066board\u2069 wants NOT AND OR',
    '}]) {"$where": "sleep(1000)"} ${process.exit()} {{7*7}}',
    'AND OR NOT NEAR AND OR NOT NEAR AND OR NOT NEAR',
  ];
  for (const s of hostile)
    add('hostile', s, rnd.next() < 0.5 ? rnd.pick(speakers) : null, { verdict: 'not_verbatim', misattributed: false });
  for (const c of take(6, (c) => wordCount(c.s) >= 6)) {
    const w = c.s.split(' ');
    const wrapped = [`^${w[0]}*`, ...w.slice(1, -1), `(${w.at(-1)})`].join(' ').replace(/ (\S+) /, ' $1 — '); // marks, a dash: punctuation
    add('hostile', wrapped, nameFor(c.t.speaker, uniqueFirst, rnd), {
      verdict: 'verbatim',
      meetingId: c.m.id,
      turns: [c.i, c.i],
      speaker: c.t.speaker,
      misattributed: false,
    });
  }
  return labels;
}

function pickSome<T>(xs: T[], k: number, rnd: ReturnType<typeof prng>): T[] {
  const pool = [...xs];
  const out: T[] = [];
  while (out.length < k && pool.length) out.push(pool.splice(rnd.int(pool.length), 1)[0]!);
  return out;
}

/** The speaker as a draft names them: full name, or the first or last name when it names one person. */
function nameFor(speaker: string, uniqueFirst: (s: string) => boolean, rnd: ReturnType<typeof prng>): string {
  const r = rnd.next();
  if (r < 0.2 && uniqueFirst(speaker)) return speaker.split(' ')[0]!;
  return speaker;
}

/** The quotation in a sentence of a draft, attributed in one of the ways drafts do it (or not at all). */
function paragraph(quote: string, name: string | null, style: number, rnd: ReturnType<typeof prng>): string {
  const filler = rnd.pick([
    'On the point of capacity,',
    'Looking at the evidence,',
    'From the site visits,',
    'In the finance session,',
    'This matters for the business case:',
  ]);
  if (!name) return style % 3 === 0 ? `> ${quote}` : `${filler} one attendee put it plainly: “${quote}”`;
  switch (style % 6) {
    case 0:
      return `${filler} “${quote}” — ${name}`;
    case 1:
      return `${filler} “${quote}” (${name})`;
    case 2:
      return `${name} said: “${quote}”`;
    case 3:
      return /"/.test(quote) ? `“${quote}”, said ${name}.` : `"${quote}", said ${name}.`;
    case 4:
      return `> ${quote}\n> — ${name}`;
    default:
      return `As ${name} put it, “${quote}”`;
  }
}

const labels = [...vault('northwind', 'northwind-logistics', 49), ...vault('meridian', 'meridian-health', 4949)];
writeFileSync(
  OUT,
  `${JSON.stringify({ made: 'npx tsx test/quotes/make-quote-set.ts (from fixtures/*/meetings)', count: labels.length, labels }, null, 1)}\n`,
);
const kinds = Object.entries(
  labels.reduce<Record<string, number>>((a, l) => ((a[l.kind] = (a[l.kind] ?? 0) + 1), a), {}),
);
process.stdout.write(`${labels.length} quotations → ${OUT}\n${kinds.map(([k, v]) => `  ${k}: ${v}`).join('\n')}\n`);
