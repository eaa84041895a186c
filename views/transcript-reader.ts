/**
 * Reading a transcript in a view: get_transcript's chunks as speaker turns (a colour per speaker, the time from
 * the meeting's start), with words marked; and reading the turns around a given turn, through the host
 * (get_transcript by turn). Shared by the transcript view and the entity card's "in the transcript".
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { VAULT_PALETTE } from '../src/render/chart/style.js';
import { escapeRegExp, wordPattern } from './words.js';
import { callTool, h, plain, type Json } from './common.js';

export interface Chunk {
  index?: number;
  speakers: string[];
  text: string;
  turnStart: number;
  turnEnd: number;
  startSeconds: number | null;
}
export interface Turn {
  index: number;
  speaker: string;
  words: string;
  startSeconds: number | null;
}
export interface TranscriptPage {
  meetingId: string;
  meetingName: string;
  chunks: Chunk[];
  totalChunks: number;
  nextOffset: number | null;
}

/** The most chunks one get_transcript call returns: a demo meeting (about a dozen chunks) is one page. */
export const PAGE = 50;

/** A chunk's "Speaker: words" lines as turns, numbered from its first turn; a line without a speaker continues the turn before. */
export function turnsOf(chunk: Chunk): Turn[] {
  const turns: Turn[] = [];
  for (const line of chunk.text.split('\n')) {
    const m = /^([^:\n]{1,120}):\s?(.*)$/.exec(line);
    const known = m && (chunk.speakers.length === 0 || chunk.speakers.includes(m[1]!.trim()));
    if (m && known)
      turns.push({
        index: chunk.turnStart + turns.length,
        speaker: m[1]!.trim(),
        words: m[2]!,
        startSeconds: turns.length === 0 ? chunk.startSeconds : null,
      });
    else if (turns.length) turns[turns.length - 1]!.words += `\n${line}`;
    else if (line.trim())
      turns.push({ index: chunk.turnStart, speaker: '', words: line, startSeconds: chunk.startSeconds });
  }
  return turns;
}

/** Seconds from the meeting's start as 0:05, 12:40 or 1:02:07. */
export function clock(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '';
  const s = Math.max(0, Math.floor(seconds));
  const [hh, mm, ss] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

const speakerColours = new Map<string, string>();
/** One colour per speaker, the same all through the view. */
export function speakerColour(speaker: string): string {
  if (!speakerColours.has(speaker))
    speakerColours.set(speaker, VAULT_PALETTE[speakerColours.size % VAULT_PALETTE.length]!);
  return speakerColours.get(speaker)!;
}

/**
 * Text with every occurrence of `words` (case-insensitive, at a word start) or of the exact `phrase` in a
 * <mark>, as text nodes and elements only.
 */
export function marked(text: string, words: string[], phrase?: string): (Node | string)[] {
  const shown = plain(text);
  const parts = [...(phrase ? [escapeRegExp(plain(phrase))] : []), ...words.map(wordPattern)];
  if (!parts.length) return [shown];
  const re = new RegExp(parts.join('|'), 'giu');
  const out: (Node | string)[] = [];
  let last = 0;
  for (const m of shown.matchAll(re)) {
    if (!m[0]) continue;
    out.push(shown.slice(last, m.index), h('mark', {}, m[0]));
    last = m.index! + m[0].length;
  }
  out.push(shown.slice(last));
  return out;
}

/** Turns as a list: speaker in their colour, time where known, the words with marks; `focus` is outlined, `range` (a hit's turns) shaded. */
export function turnList(
  turns: Turn[],
  options: { words?: string[]; phrase?: string; focus?: number; range?: [number, number] } = {},
): HTMLElement {
  const inRange = (i: number) => !!options.range && i >= options.range[0] && i <= options.range[1];
  return h(
    'ol',
    { class: 'turns', 'data-role': 'turns' },
    ...turns.map((t) =>
      h(
        'li',
        {
          'data-role': 'turn',
          'data-turn': t.index,
          class: t.index === options.focus ? 'focus' : inRange(t.index) ? 'in-hit' : undefined,
          style: `--speaker:${speakerColour(t.speaker)}`,
        },
        h(
          'div',
          { class: 'who' },
          h('strong', { 'data-role': 'speaker' }, t.speaker || '—'),
          t.startSeconds !== null
            ? h('span', { class: 'muted', 'data-role': 'time' }, ` ${clock(t.startSeconds)}`)
            : null,
        ),
        h(
          'div',
          { 'data-role': 'words' },
          ...marked(t.words, options.words ?? [], t.index === options.focus ? options.phrase : undefined),
        ),
      ),
    ),
  );
}

/** A page of get_transcript's answer, checked enough to draw. */
export function pageOf(data: Json): TranscriptPage {
  return {
    meetingId: String(data.meetingId ?? ''),
    meetingName: String(data.meetingName ?? ''),
    chunks: Array.isArray(data.chunks) ? (data.chunks as Chunk[]) : [],
    totalChunks: typeof data.totalChunks === 'number' ? data.totalChunks : 0,
    nextOffset: typeof data.nextOffset === 'number' ? data.nextOffset : null,
  };
}

/** Turns `turnStart`..`turnEnd` of a meeting and `context` turns on each side, read through the host (get_transcript by turn). */
export async function turnsAround(
  app: App,
  vaultArgs: Json,
  meetingId: string,
  turnStart: number,
  turnEnd: number,
  context: number,
): Promise<{ meetingName: string; turns: Turn[] }> {
  const data = await callTool(app, 'get_transcript', { ...vaultArgs, meetingId, turnStart, turnEnd, context });
  const rows = Array.isArray(data.turns)
    ? (data.turns as { turnIndex: number; speaker: string; text: string; atSeconds: number | null }[])
    : [];
  return {
    meetingName: String(data.meetingName ?? ''),
    turns: rows.map((t) => ({ index: t.turnIndex, speaker: t.speaker, words: t.text, startSeconds: t.atSeconds })),
  };
}
