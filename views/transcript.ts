/**
 * The transcript view: the evidence where it was said.
 * - search_transcripts: the hits grouped by meeting (name, date, speakers), each excerpt as its speaker turns with
 *   the query's words marked; "More context" widens one hit to the turns around it (get_transcript through the
 *   host, only the pages up to the hit).
 * - get_transcript: a reader, speaker turns with a colour per speaker and the time from the meeting's start,
 *   find-in-transcript, and paging through the host.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { callTool, h, show, startView, when, type Json } from './common.js';
import {
  turnsAround,
  pageOf,
  speakerColour,
  turnList,
  turnsOf,
  type Chunk,
  type TranscriptPage,
  type Turn,
} from './transcript-reader.js';
import { markWords } from './words.js';

interface Hit extends Chunk {
  meetingId: string;
  meetingName: string;
  date: string;
  score: number;
}

let args: Json = {};
const vaultArgs = (): Json => (args.vault ? { vault: args.vault } : {});

// ---- search_transcripts ----

/** Turns on each side of a hit that "More context" adds. */
const CONTEXT_TURNS = 4;

function drawSearch(app: App, data: Json): void {
  const hits = (Array.isArray(data.results) ? data.results : []) as Hit[];
  const query = typeof args.query === 'string' ? args.query : '';
  const marks = markWords(query);
  // Meetings in the order of their best hit; hits within a meeting in the order they were said.
  const meetings = new Map<string, Hit[]>();
  for (const hit of hits) meetings.set(hit.meetingId, [...(meetings.get(hit.meetingId) ?? []), hit]);
  show(
    h(
      'div',
      { class: 'bar' },
      h(
        'strong',
        {},
        `${hits.length} ${hits.length === 1 ? 'excerpt' : 'excerpts'} in ${meetings.size} ${meetings.size === 1 ? 'meeting' : 'meetings'}`,
      ),
      query ? h('span', { class: 'muted' }, `for “${query}”`) : null,
      typeof data.mode === 'string' && data.mode !== 'hybrid'
        ? h('span', { class: 'chip', title: 'how the search matched' }, `by ${data.mode} only`)
        : null,
    ),
    hits.length ? null : h('p', { class: 'muted', 'data-role': 'empty' }, 'Nothing in the transcripts matches.'),
    ...[...meetings.values()].map((group) => {
      const first = group[0]!;
      const speakers = [...new Set(group.flatMap((hit) => hit.speakers))];
      return h(
        'section',
        { class: 'card meeting', 'data-role': 'meeting', 'data-id': first.meetingId },
        h('h2', { 'data-role': 'meeting-name' }, first.meetingName),
        h(
          'div',
          { class: 'muted' },
          when(first.date, true),
          ' · ',
          ...speakers.flatMap((s, i) => [i ? ', ' : '', h('span', { style: `color:${speakerColour(s)}` }, s)]),
        ),
        ...[...group].sort((a, b) => a.turnStart - b.turnStart).map((hit) => hitBlock(app, hit, marks)),
      );
    }),
  );
}

function hitBlock(app: App, hit: Hit, marks: string[]): HTMLElement {
  const body = h('div', { 'data-role': 'excerpt' }, turnList(turnsOf(hit), { words: marks }));
  const more = h(
    'button',
    { class: 'link', 'data-role': 'more-context', onclick: () => void widen(app, hit, marks, body, more) },
    'More context',
  );
  return h(
    'div',
    { class: 'hit', 'data-role': 'hit', 'data-turns': `${hit.turnStart}-${hit.turnEnd}` },
    h('div', { class: 'muted' }, `Turns ${hit.turnStart + 1}–${hit.turnEnd + 1}`),
    body,
    more,
  );
}

/** The hit with the turns before and after it, read through the host (get_transcript by turn). */
async function widen(app: App, hit: Hit, marks: string[], body: HTMLElement, button: HTMLElement): Promise<void> {
  button.replaceChildren('Loading…');
  (button as HTMLButtonElement).disabled = true;
  try {
    const { turns } = await turnsAround(app, vaultArgs(), hit.meetingId, hit.turnStart, hit.turnEnd, CONTEXT_TURNS);
    body.replaceChildren(
      turnList(turns.length ? turns : turnsOf(hit), { words: marks, range: [hit.turnStart, hit.turnEnd] }),
    );
    button.remove();
  } catch (err) {
    button.replaceChildren('More context');
    (button as HTMLButtonElement).disabled = false;
    body.append(h('p', { class: 'error' }, (err as Error).message));
  }
}

// ---- get_transcript ----

const reader = {
  meetingId: '',
  meetingName: '',
  turns: [] as Turn[],
  firstOffset: 0,
  nextOffset: null as number | null,
  totalChunks: 0,
  loadedChunks: 0,
  find: '',
  busy: false,
  error: '',
};

function takePage(page: TranscriptPage, offset: number, where: 'replace' | 'after' | 'before'): void {
  reader.meetingId = page.meetingId;
  reader.meetingName = page.meetingName;
  reader.totalChunks = page.totalChunks;
  const turns = page.chunks.flatMap(turnsOf);
  if (where === 'replace') {
    reader.turns = turns;
    reader.firstOffset = offset;
    reader.nextOffset = page.nextOffset;
    reader.loadedChunks = page.chunks.length;
  } else if (where === 'after') {
    reader.turns = [...reader.turns, ...turns];
    reader.nextOffset = page.nextOffset;
    reader.loadedChunks += page.chunks.length;
  } else {
    reader.turns = [...turns, ...reader.turns];
    reader.firstOffset = offset;
    reader.loadedChunks += page.chunks.length;
  }
}

const pageSize = (): number => (typeof args.limit === 'number' ? args.limit : 20);

async function page(app: App, where: 'after' | 'before'): Promise<void> {
  const offset = where === 'after' ? reader.nextOffset : Math.max(0, reader.firstOffset - pageSize());
  if (offset === null) return;
  reader.busy = true;
  drawReader(app);
  try {
    const limit = where === 'before' ? reader.firstOffset - offset : pageSize();
    takePage(
      pageOf(await callTool(app, 'get_transcript', { ...vaultArgs(), meetingId: reader.meetingId, offset, limit })),
      offset,
      where,
    );
    reader.error = '';
  } catch (err) {
    reader.error = (err as Error).message;
  }
  reader.busy = false;
  drawReader(app);
}

function drawReader(app: App): void {
  const find = reader.find.trim().toLowerCase();
  const found = find
    ? reader.turns.filter((t) => t.words.toLowerCase().includes(find) || t.speaker.toLowerCase().includes(find))
    : [];
  const speakers = [...new Set(reader.turns.map((t) => t.speaker).filter(Boolean))];
  const box = h('input', {
    type: 'search',
    placeholder: 'Find in transcript',
    'aria-label': 'find in transcript',
    'data-role': 'find',
    value: reader.find,
  }) as HTMLInputElement;
  box.addEventListener('input', () => {
    reader.find = box.value;
    drawReader(app);
    const again = document.querySelector<HTMLInputElement>('[data-role=find]');
    again?.focus();
    again?.setSelectionRange(again.value.length, again.value.length);
  });
  box.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    const hits = [...document.querySelectorAll('[data-role=turn] mark')];
    if (!hits.length) return;
    const next = (Number(box.dataset.at ?? -1) + 1) % hits.length;
    box.dataset.at = String(next);
    hits[next]!.scrollIntoView({ block: 'center' });
  });
  const last = reader.firstOffset + reader.loadedChunks;
  show(
    h(
      'div',
      { class: 'bar' },
      h('strong', { 'data-role': 'meeting-name' }, reader.meetingName || reader.meetingId),
      h(
        'span',
        { class: 'muted', 'data-role': 'range' },
        reader.totalChunks ? `part ${reader.firstOffset + 1}–${last} of ${reader.totalChunks}` : 'no transcript',
      ),
    ),
    h(
      'div',
      { class: 'bar' },
      box,
      find
        ? h(
            'span',
            { class: 'muted', 'data-role': 'found' },
            `${found.length} ${found.length === 1 ? 'turn' : 'turns'}`,
          )
        : null,
      ...speakers.map((s) => h('span', { class: 'chip' }, h('span', { style: `color:${speakerColour(s)}` }, '● '), s)),
    ),
    reader.firstOffset > 0
      ? h(
          'button',
          { 'data-role': 'earlier', disabled: reader.busy, onclick: () => void page(app, 'before') },
          '↑ Earlier',
        )
      : null,
    reader.turns.length
      ? turnList(reader.turns, { words: find ? [find] : [] })
      : h('p', { class: 'muted', 'data-role': 'empty' }, 'This meeting has no transcript.'),
    reader.nextOffset !== null
      ? h(
          'button',
          { 'data-role': 'later', disabled: reader.busy, onclick: () => void page(app, 'after') },
          reader.busy ? 'Loading…' : '↓ Later',
        )
      : null,
    reader.error ? h('p', { class: 'error' }, reader.error) : null,
  );
}

const app = startView('transcript', {
  input(a) {
    args = a;
  },
  result(data) {
    if (Array.isArray(data.results)) return drawSearch(app, data);
    takePage(pageOf(data), typeof args.offset === 'number' ? args.offset : 0, 'replace');
    drawReader(app);
  },
});
