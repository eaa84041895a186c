/**
 * check_quotes (issue 49) on the labelled set test/quotes/quote-set.json (written by test/quotes/make-quote-set.ts
 * from the fixture transcripts, not from this tool): every verbatim quotation found at its turns with its
 * speaker; no paraphrase, invented or hostile quotation called verbatim; at least 95% of one-word changes and
 * merges called `close` with the real words; every wrong speaker flagged. The confusion table is printed.
 * Then the draft reading (marks, attributions, block quotes), the limits and the hostile input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../harness.js';
import { findQuotations } from '../../src/search/quotes/find.js';
import type { Label } from '../quotes/make-quote-set.js';
import { SERVER_INSTRUCTIONS } from '../../src/surfaces/mcp/server.js';

const SET = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'quotes', 'quote-set.json'), 'utf8')) as {
  labels: Label[];
};
const NW = 'northwind-logistics';
/** Quotations per draft: a draft of a few pages, as an agent would check it. */
const PER_DRAFT = 12;

type Answer = Record<string, any>;
let h: Harness;
const answers = new Map<string, Answer>();
const norm = (s: string) =>
  (
    s
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/['’]/g, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).join(' ');

beforeAll(async () => {
  h = harness();
  for (const vault of [...new Set(SET.labels.map((l) => l.vault))]) {
    const labels = SET.labels.filter((l) => l.vault === vault);
    for (let i = 0; i < labels.length; i += PER_DRAFT) {
      const batch = labels.slice(i, i + PER_DRAFT);
      const text = `# Draft for the steering committee\n\n${batch.map((l) => l.paragraph).join('\n\n')}\n`;
      const data = await h.ok('check_quotes', { vault, text });
      // Each paragraph holds one quotation: the draft's reading must find exactly those, in order.
      expect(
        data.quotations.map((q: Answer) => norm(q.text)),
        `draft ${vault} #${i / PER_DRAFT}`,
      ).toEqual(batch.map((l) => norm(l.quote)));
      batch.forEach((l, k) => answers.set(l.id, data.quotations[k]));
    }
  }
  // The confusion table for the record (the closing note quotes it).
  const kinds = [...new Set(SET.labels.map((l) => l.kind))];
  const lines = ['| kind | n | verbatim | close | not_found | flagged wrong speaker |', '|---|---|---|---|---|---|'];
  for (const kind of kinds) {
    const of = SET.labels.filter((l) => l.kind === kind).map((l) => answers.get(l.id)!);
    const n = (v: string) => of.filter((a) => a.verdict === v).length;
    lines.push(
      `| ${kind} | ${of.length} | ${n('verbatim')} | ${n('close')} | ${n('not_found')} | ${of.filter((a) => a.misattributed).length} |`,
    );
  }
  process.stderr.write(`check_quotes on ${SET.labels.length} labelled quotations:\n${lines.join('\n')}\n`);
}, 300_000);
afterAll(() => h.close());

const labelled = (pred: (l: Label) => boolean) => {
  const out = SET.labels.filter(pred);
  expect(out.length).toBeGreaterThan(0);
  return out.map((l) => ({ l, a: answers.get(l.id)! }));
};

describe('check_quotes on the labelled set', () => {
  it('has at least 200 quotations of every kind the issue names', () => {
    expect(SET.labels.length).toBeGreaterThanOrEqual(200);
    expect(new Set(SET.labels.map((l) => l.kind))).toEqual(
      new Set([
        'verbatim-turn',
        'verbatim-turns',
        'one-word',
        'merged',
        'paraphrase',
        'invented',
        'wrong-speaker',
        'hostile',
      ]),
    );
  });

  it("finds every verbatim quotation (one turn, a speaker's consecutive turns, wrong speaker, wrapped in hostile marks) at its turns", () => {
    const wrong = labelled((l) => l.expect.verdict === 'verbatim').filter(({ l, a }) => {
      const at =
        a.sources.length === 1
          ? [a.sources[0].meetingId, a.sources[0].turnStart, a.sources[0].turnEnd, a.sources[0].speaker]
          : [];
      return (
        a.verdict !== 'verbatim' ||
        JSON.stringify(at) !== JSON.stringify([l.expect.meetingId, ...l.expect.turns!, l.expect.speaker]) ||
        (a.fix === null) !== !l.expect.misattributed
      );
    });
    expect(
      wrong.map(
        ({ l, a }) =>
          `${l.id} ${a.verdict} ${JSON.stringify(a.sources.map((s: Answer) => [s.meetingId, s.turnStart, s.turnEnd, s.speaker]))}: ${l.paragraph}`,
      ),
    ).toEqual([]);
  });

  it('calls no paraphrase, invented or hostile quotation verbatim', () => {
    for (const { l, a } of labelled((l) => l.expect.verdict === 'not_verbatim'))
      expect(a.verdict, `${l.id}: ${l.quote}`).not.toBe('verbatim');
  });

  it('calls at least 95% of one-word changes and merges `close`, with the real words in its sources', () => {
    const cases = labelled((l) => l.expect.verdict === 'close');
    const right = cases.filter(({ l, a }) => {
      const said = norm(a.sources.map((s: Answer) => s.said).join(' '));
      return a.verdict === 'close' && l.expect.said!.every((s) => said.includes(norm(s)));
    });
    const wrong = cases
      .filter((c) => !right.includes(c))
      .map(({ l, a }) => `${l.id} ${a.verdict}: ${l.quote} → ${a.sources.map((s: Answer) => s.said).join(' | ')}`);
    expect(right.length / cases.length, wrong.join('\n')).toBeGreaterThanOrEqual(0.95);
    // A one-word change shows the word as changed, and the fix quotes the real sentence.
    for (const { l, a } of right.filter(({ l }) => l.kind === 'one-word')) {
      expect(a.differences.filter((d: Answer) => d.op !== 'same').length, l.id).toBeGreaterThan(0);
      expect(norm(a.fix), l.id).toContain(norm(l.expect.said![0]!));
    }
  });

  it('flags every wrong speaker, with who said it, and no right one', () => {
    const missed = labelled((l) => l.kind === 'wrong-speaker').filter(
      ({ a, l }) => !a.misattributed || a.speakerMatches !== false || !a.fix?.includes(l.expect.speaker),
    );
    expect(missed.map(({ l, a }) => `${l.id} ${a.verdict} ${a.attributedTo}: ${l.paragraph}`)).toEqual([]);
    const falseAlarms = labelled(
      (l) => l.expect.verdict === 'verbatim' && !l.expect.misattributed && l.attributedTo !== null,
    ).filter(({ a }) => a.misattributed || a.speakerMatches !== true);
    expect(falseAlarms.map(({ l }) => l.id)).toEqual([]);
  });
});

describe('reading a draft', () => {
  it('finds quotations in every mark and their attributions, inner quotes and apostrophes left alone', () => {
    const draft = [
      '“We are at capacity on the docks,” Tom Becker said.',
      '"It\'s the carrier\'s tracker that decides," said Lewis Harper.',
      'Fiona Gallagher: ‘the board wants an answer by January, not later’',
      "As Nicola put it, 'the detention charges are running away from us'.",
      '“Marcus told me ‘it is fine’ yesterday” (Ana Ruiz, kickoff, 12 Oct)',
      '> Ninety minutes gate to gate.\n> In the afternoons we hit it.\n> — Lewis Harper',
      "The workers' canteen isn't a quotation, nor are don't and it's.",
    ].join('\n\n');
    const found = findQuotations(draft);
    expect(found.map((q) => [q.text, q.attribution?.speaker ?? null, q.attribution?.detail ?? null, q.kind])).toEqual([
      ['We are at capacity on the docks,', 'Tom Becker', null, 'inline'],
      ["It's the carrier's tracker that decides,", 'Lewis Harper', null, 'inline'],
      ['the board wants an answer by January, not later', 'Fiona Gallagher', null, 'inline'],
      ['the detention charges are running away from us', 'Nicola', null, 'inline'],
      ['Marcus told me ‘it is fine’ yesterday', 'Ana Ruiz', 'kickoff, 12 Oct', 'inline'],
      ['Ninety minutes gate to gate.\nIn the afternoons we hit it.', 'Lewis Harper', null, 'block'],
    ]);
    for (const q of found) if (q.kind === 'inline') expect(draft.slice(q.start, q.end)).toBe(q.text);
  });

  it('reads a draft of 100,000 characters of unmatched or repeated marks in one pass (it used to rescan for each mark)', async () => {
    expect(findQuotations('"a '.repeat(33_333))).toEqual([]);
    expect(findQuotations('“a '.repeat(33_333))).toEqual([]);
    const many = '"ab cd ef gh" — Tom Becker, '.repeat(3_500);
    const found = findQuotations(many);
    expect(found).toHaveLength(3_500);
    expect(new Set(found.map((q) => `${q.text}|${q.attribution?.speaker}`))).toEqual(
      new Set(['ab cd ef gh|Tom Becker']),
    );
    const d = await h.ok('check_quotes', { vault: NW, text: many });
    expect(d.summary).toMatchObject({ quotations: 50, unchecked: 3_450 });
  });

  it('skips short quotations unless asked, and counts them', async () => {
    const text = 'They call it the “cage”. “Ninety minutes gate to gate.” — Lewis Harper';
    const d = await h.ok('check_quotes', { vault: NW, text });
    expect(d.summary).toMatchObject({ quotations: 1, skippedShort: 1 });
    const all = await h.ok('check_quotes', { vault: NW, text, minWords: 1 });
    expect(all.summary.quotations).toBe(2);
  });

  it('compares the date and the meeting the draft gives with where the words were said', async () => {
    const turn = (
      await h.ok('get_transcript', { vault: NW, meetingId: 'nwl-m02-leeds-site-walk-debrief', limit: 50 })
    ).chunks
      .map((c: Answer) => c.text)
      .join('\n');
    expect(turn).toContain('Ninety minutes gate to gate.');
    const meeting = await h.ok('get_meeting', { vault: NW, meetingId: 'nwl-m02-leeds-site-walk-debrief' });
    const day = new Date(meeting.date);
    const month = day.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
    const right = `“Ninety minutes gate to gate. In the afternoons we hit it.” (Lewis Harper, Leeds debrief, ${day.getUTCDate()} ${month})`;
    const wrong = `“Ninety minutes gate to gate. In the afternoons we hit it.” (Lewis Harper, kickoff, ${(day.getUTCDate() % 27) + 1} ${month})`;
    const d = await h.ok('check_quotes', { vault: NW, text: `${right}\n\n${wrong}` });
    expect(d.quotations.map((q: Answer) => [q.verdict, q.speakerMatches, q.dateMatches, q.meetingMatches])).toEqual([
      ['verbatim', true, true, true],
      ['verbatim', true, false, false],
    ]);
    expect(d.quotations[1].fix).toContain(meeting.name);
  });
});

describe('when agents are told to call it', () => {
  it('the server instructions and the tool description name the drafts that go out: send_email, export_report, a deck, the user', () => {
    const description = h.service.tool('check_quotes')!.description;
    for (const text of [SERVER_INSTRUCTIONS, description]) {
      expect(text).toMatch(/check_quotes|before a draft/i);
      for (const word of ['send_email', 'export_report', 'deck', 'user']) expect(text).toContain(word);
    }
    expect(h.service.tool('check_quotes')!.sync.localOnly).toBe(true);
    expect(description).toMatch(/^LOCAL to vault-tools/);
  });
});

describe('bounds and hostile input', () => {
  it('refuses a draft over 100,000 characters, naming the field', async () => {
    const r = await h.call('check_quotes', { vault: NW, text: 'x'.repeat(100_001) });
    expect(r).toMatchObject({ ok: false, status: 400, code: 'invalid_arguments' });
    expect(r.ok || r.message).toContain('`text`');
  });

  it('checks at most 50 quotations a call and counts the rest', async () => {
    const text = Array.from({ length: 60 }, (_, i) => `Point ${i}: “we said the number ${i} out loud”`).join('\n\n');
    const d = await h.ok('check_quotes', { vault: NW, text });
    expect(d.quotations).toHaveLength(50);
    expect(d.summary).toMatchObject({ quotations: 50, unchecked: 10, notFound: 50 });
  });

  it('treats query syntax, markup and bidi controls as plain words', async () => {
    const hostile = [
      'NEAR(dock congestion, 5) AND "trailers" OR pallets* ^first',
      'dock" OR 1=1 -- NEAR/3 ( ) * ^ :',
      '\u202Eevil.exe\u202C <script>alert(1)</script> AND OR NOT',
    ];
    const d = await h.ok('check_quotes', { vault: NW, text: hostile.map((q) => `‘${q}’`).join('\n\n'), minWords: 1 });
    expect(d.quotations.map((q: Answer) => q.verdict)).toEqual(['not_found', 'not_found', 'not_found']);
    expect(d.quotations[2].text).toBe(hostile[2]); // the draft's text comes back as it was
  });

  it('answers a key that cannot reach the vault as for a vault that does not exist', async () => {
    const outsider = await h.call('check_quotes', { vault: NW, text: '“Ninety minutes gate to gate.”' }, 'outsider');
    const missing = await h.call(
      'check_quotes',
      { vault: 'no-such-vault', text: '“Ninety minutes gate to gate.”' },
      'outsider',
    );
    expect(outsider).toMatchObject({ ok: false, status: 404, code: 'vault_not_found' });
    expect(missing).toMatchObject({ ok: false, status: 404, code: 'vault_not_found' });
    expect(outsider.ok || outsider.message).toBe(missing.ok || missing.message.replace('no-such-vault', NW));
  });

  it('keeps to one meeting or dates when asked, and says a meeting that does not exist', async () => {
    const text = '“Ninety minutes gate to gate. In the afternoons we hit it.” — Lewis Harper';
    const elsewhere = await h.ok('check_quotes', { vault: NW, text, meetingId: 'nwl-m01-kickoff' });
    expect(elsewhere.quotations[0].verdict).toBe('not_found');
    const r = await h.call('check_quotes', { vault: NW, text, meetingId: 'no-such-meeting' });
    expect(r).toMatchObject({ ok: false, status: 404 });
  });
});
