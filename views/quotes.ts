/**
 * The quotations view (check_quotes): the draft with each quotation marked verbatim / close / not found, and
 * under it one card per quotation: what differs from what was said (changed words struck through with the
 * real ones beside them), who said it where ("In the transcript": speaker, meeting, date, turns, the turns
 * around it), whether the draft's speaker is right, and the fix. Everything is drawn as text (views/common.ts).
 */
import { h, show, startView, when, type Json } from './common.js';

interface Turn {
  speaker: string;
  text: string;
}
interface Source {
  speaker: string;
  meetingId: string;
  meetingName: string;
  date: string;
  turnStart: number;
  turnEnd: number;
  said: string;
  before: Turn | null;
  after: Turn | null;
}
interface Difference {
  op: 'same' | 'changed' | 'added' | 'missing';
  quoted: string;
  said: string;
}
interface Quotation {
  index: number;
  text: string;
  start: number;
  end: number;
  kind: 'inline' | 'block';
  attributedTo: string | null;
  attribution: string | null;
  verdict: 'verbatim' | 'close' | 'not_found';
  sources: Source[];
  differences: Difference[];
  speakerMatches: boolean | null;
  dateMatches: boolean | null;
  meetingMatches: boolean | null;
  misattributed: boolean;
  fix: string | null;
}

const LABEL = { verbatim: 'Verbatim', close: 'Close', not_found: 'Not found' } as const;
let draft = '';

/** The draft as text, each quotation's words in a mark of its verdict that jumps to its card. */
function draftWithMarks(quotations: Quotation[]): HTMLElement {
  const parts: (Node | string)[] = [];
  let at = 0;
  for (const q of [...quotations].sort((a, b) => a.start - b.start)) {
    // Not this draft's (a result shown with other input): no marks. A block quote's words keep their `>` in the draft.
    if (q.start < at || q.end > draft.length || (q.kind !== 'block' && draft.slice(q.start, q.end) !== q.text))
      continue;
    parts.push(draft.slice(at, q.start));
    parts.push(
      h(
        'mark',
        {
          class: `q-${q.verdict}`,
          'data-role': 'quote-mark',
          'data-index': q.index,
          'data-verdict': q.verdict,
          title: LABEL[q.verdict],
          onclick: () => focusCard(q.index),
        },
        draft.slice(q.start, q.end),
      ),
    );
    at = q.end;
  }
  parts.push(draft.slice(at));
  return h('div', { class: 'draft', 'data-role': 'draft' }, ...parts);
}

/** Outlines a quotation's card and scrolls to it. */
function focusCard(index: number): void {
  for (const card of document.querySelectorAll('[data-role=quotation].focus')) card.classList.remove('focus');
  const card = document.querySelector(`[data-role=quotation][data-index="${index}"]`);
  card?.classList.add('focus');
  card?.scrollIntoView({ block: 'start' });
}

/**
 * The quotation as the draft has it (its punctuation kept), each run that differs from what was said marked:
 * changed words struck with the real ones after them, added words struck, missing words inserted. A run's
 * `quoted` is the draft's own text of its words, so it is found in order in the quotation.
 */
function differences(q: Quotation): HTMLElement {
  if (!q.differences.length) return h('blockquote', { 'data-role': 'quoted' }, `“${q.text}”`);
  const out: (Node | string)[] = ['“'];
  let at = 0;
  const upTo = (run: string): string => {
    const found = run ? q.text.indexOf(run, at) : -1;
    if (found < 0) return '';
    const before = q.text.slice(at, found);
    at = found + run.length;
    return before;
  };
  for (const d of q.differences) {
    if (d.op === 'missing') {
      out.push(h('ins', { 'data-role': 'missing', title: 'said, left out' }, d.said), ' ');
      continue;
    }
    const before = upTo(d.quoted);
    if (d.op === 'same') out.push(before, d.quoted);
    else if (d.op === 'changed')
      out.push(
        before,
        h('del', { 'data-role': 'quoted-word', title: 'in the draft' }, d.quoted),
        ' ',
        h('ins', { 'data-role': 'said-word', title: 'as said' }, d.said),
      );
    else out.push(before, h('del', { 'data-role': 'added', title: 'in the draft only' }, d.quoted));
  }
  out.push(q.text.slice(at), '”');
  return h('blockquote', { 'data-role': 'differences' }, ...out);
}

function sourceBlock(s: Source): HTMLElement {
  const turns = s.turnStart === s.turnEnd ? `turn ${s.turnStart + 1}` : `turns ${s.turnStart + 1}–${s.turnEnd + 1}`;
  const around = (t: Turn | null, role: string) =>
    t ? h('div', { class: 'muted context', 'data-role': role }, h('strong', {}, t.speaker), ': ', t.text) : null;
  return h(
    'div',
    {
      class: 'source',
      'data-role': 'source',
      'data-meeting': s.meetingId,
      'data-turns': `${s.turnStart}-${s.turnEnd}`,
    },
    h('h3', {}, 'In the transcript'),
    h(
      'div',
      {},
      h('strong', { 'data-role': 'source-speaker' }, s.speaker),
      h('span', { class: 'muted' }, ` · ${s.meetingName} · ${when(s.date, true)} · ${turns}`),
    ),
    around(s.before, 'before'),
    h('div', { class: 'said', 'data-role': 'said' }, `“${s.said}”`),
    around(s.after, 'after'),
  );
}

const check = (ok: boolean | null, what: string) =>
  ok === null
    ? null
    : h('span', { class: `chip ${ok ? 'ok' : 'bad'}`, 'data-role': `${what}-check` }, `${what} ${ok ? '✓' : '✗'}`);

function card(q: Quotation): HTMLElement {
  return h(
    'section',
    {
      class: `card quotation q-${q.verdict}`,
      'data-role': 'quotation',
      'data-index': q.index,
      'data-verdict': q.verdict,
    },
    h(
      'div',
      { class: 'bar' },
      h('span', { class: `chip verdict q-${q.verdict}`, 'data-role': 'verdict' }, LABEL[q.verdict]),
      q.misattributed ? h('span', { class: 'chip bad', 'data-role': 'misattributed' }, 'wrong speaker') : null,
      q.attribution ? h('span', { class: 'muted', 'data-role': 'attribution' }, q.attribution) : null,
      check(q.speakerMatches, 'speaker'),
      check(q.dateMatches, 'date'),
      check(q.meetingMatches, 'meeting'),
    ),
    differences(q),
    ...q.sources.map(sourceBlock),
    q.fix ? h('p', { class: 'fix', 'data-role': 'fix' }, h('strong', {}, 'Fix: '), q.fix) : null,
  );
}

function draw(data: Json): void {
  const quotations = (Array.isArray(data.quotations) ? data.quotations : []) as Quotation[];
  const s = (data.summary ?? {}) as {
    verbatim?: number;
    close?: number;
    notFound?: number;
    misattributed?: unknown[];
    skippedShort?: number;
    unchecked?: number;
  };
  const n = (x: number | undefined) => x ?? 0;
  show(
    h(
      'div',
      { class: 'bar', 'data-role': 'summary' },
      h('strong', {}, `${quotations.length} ${quotations.length === 1 ? 'quotation' : 'quotations'}`),
      h('span', { class: 'chip q-verbatim' }, `${n(s.verbatim)} verbatim`),
      h('span', { class: 'chip q-close' }, `${n(s.close)} close`),
      h('span', { class: 'chip q-not_found' }, `${n(s.notFound)} not found`),
      s.misattributed?.length ? h('span', { class: 'chip bad' }, `${s.misattributed.length} wrong speaker`) : null,
      n(s.skippedShort) ? h('span', { class: 'muted' }, `${s.skippedShort} short ones skipped`) : null,
      n(s.unchecked) ? h('span', { class: 'error' }, `${s.unchecked} not checked (limit reached)`) : null,
    ),
    draft ? draftWithMarks(quotations) : null,
    quotations.length ? null : h('p', { class: 'muted', 'data-role': 'empty' }, 'No quotations in this draft.'),
    ...quotations.map(card),
  );
}

startView('quotes', {
  input(args) {
    draft = typeof args.text === 'string' ? args.text : '';
  },
  result: draw,
});
