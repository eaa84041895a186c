/**
 * An entity's card, as get_entity with evidence gives it: description, aliases, connections, and the verbatim
 * quotes with speaker and meeting. An entity mentioned more often than it has quotes also shows what the
 * transcripts say of it (search_transcripts for its name, through the host). Each quote opens its meeting at
 * that turn, the quote marked ("in the transcript", get_transcript through the host). Shared by the findings
 * explorer and the knowledge graph (get_entity).
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { callTool, h, when, words, type Json } from './common.js';
import { turnList, turnsAround, turnsOf } from './transcript-reader.js';
import { hasWord, markWords } from './words.js';

interface Edge {
  entityId: string;
  name: string;
  type: string;
  relation: string;
  direction: 'in' | 'out';
  weight: number;
}
interface Quote {
  quote: string;
  speaker?: string | null;
  meetingId?: string;
  meetingName?: string | null;
  spokenAt?: string | null;
  turnIndex?: number | null;
}
interface Hit {
  meetingId: string;
  meetingName: string;
  date: string;
  turnStart: number;
  turnEnd: number;
  text: string;
  speakers: string[];
  startSeconds: number | null;
}

/** Excerpts from the transcripts the card adds to an entity's own quotes. */
const MORE_MENTIONS = 5;
/** Turns shown around a quote opened in its transcript. */
const AROUND = 2;

/** Opens the meeting at `turn` under `anchor`, the turn outlined and `phrase` marked in it; a second click closes it. */
async function openInTranscript(
  app: App,
  vaultArgs: Json,
  anchor: HTMLElement,
  meetingId: string,
  turn: number,
  phrase: string,
): Promise<void> {
  const open = anchor.querySelector(':scope > [data-role=in-transcript]');
  if (open) return void open.remove();
  const panel = h(
    'div',
    { class: 'reader', 'data-role': 'in-transcript' },
    h('p', { class: 'muted' }, 'Opening the transcript…'),
  );
  anchor.append(panel);
  try {
    const { meetingName, turns } = await turnsAround(app, vaultArgs, meetingId, turn, turn, AROUND);
    if (!turns.some((t) => t.index === turn))
      throw new Error(`turn ${turn} is not in the transcript of ${meetingName || meetingId}`);
    panel.replaceChildren(
      h(
        'div',
        { class: 'muted' },
        `${meetingName} · turns ${turns[0]!.index + 1}–${turns[turns.length - 1]!.index + 1}`,
      ),
      turnList(turns, { phrase, focus: turn }),
    );
    panel.querySelector('.focus')?.scrollIntoView({ block: 'nearest' });
  } catch (err) {
    panel.replaceChildren(h('p', { class: 'error' }, (err as Error).message));
  }
}

function quoteBlock(app: App, vaultArgs: Json, q: Quote): HTMLElement {
  const block = h(
    'blockquote',
    { 'data-role': 'quote' },
    `“${q.quote}”`,
    h('div', { class: 'muted' }, [q.speaker, q.meetingName, when(q.spokenAt)].filter(Boolean).join(' · ')),
  );
  if (q.meetingId && typeof q.turnIndex === 'number') {
    const turn = q.turnIndex;
    const meetingId = q.meetingId;
    block.append(
      h(
        'button',
        {
          class: 'link',
          'data-role': 'open-transcript',
          onclick: () => void openInTranscript(app, vaultArgs, block, meetingId, turn, q.quote),
        },
        'In the transcript',
      ),
    );
  }
  return block;
}

function hitBlock(app: App, vaultArgs: Json, hit: Hit, name: string): HTMLElement {
  // The turns that name it (up to three), not the excerpt's first lines.
  const marks = markWords(name);
  const turns = turnsOf(hit);
  const naming = turns.filter((t) => hasWord(t.words, marks));
  const block = h(
    'div',
    { class: 'hit', 'data-role': 'mention' },
    h('div', { class: 'muted' }, `${hit.meetingName} · ${when(hit.date, true)}`),
    turnList((naming.length ? naming : turns).slice(0, 3), { words: marks }),
  );
  block.append(
    h(
      'button',
      {
        class: 'link',
        'data-role': 'open-transcript',
        onclick: () => void openInTranscript(app, vaultArgs, block, hit.meetingId, hit.turnStart, ''),
      },
      'In the transcript',
    ),
  );
  return block;
}

export function entityCard(app: App, entity: Json, vaultArgs: Json): HTMLElement {
  const aliases = (entity.aliases as string[] | undefined) ?? [];
  const edges = (entity.edges as Edge[] | undefined) ?? [];
  const evidence = (entity.evidence as Quote[] | undefined) ?? [];
  const name = String(entity.name ?? entity.id ?? '');
  const mentions = typeof entity.mentionCount === 'number' ? entity.mentionCount : 0;
  const more = h('div', { 'data-role': 'more-mentions' });
  const card = h(
    'section',
    { class: 'card', 'data-role': 'entity-card' },
    h(
      'h2',
      {},
      name,
      ' ',
      h('span', { class: 'chip' }, String(entity.type ?? '')),
      ' ',
      h('span', { class: 'muted' }, `${mentions} ${mentions === 1 ? 'mention' : 'mentions'}`),
    ),
    entity.description ? h('p', { 'data-role': 'description' }, String(entity.description)) : null,
    aliases.length ? h('p', { class: 'muted' }, `Also called: ${aliases.join(', ')}`) : null,
    edges.length
      ? h(
          'div',
          {},
          h('h3', {}, 'Connections'),
          h(
            'ul',
            { 'data-role': 'edges' },
            ...edges.map((e) =>
              h(
                'li',
                {},
                e.direction === 'out' ? `${name} ${words(e.relation)} ` : '',
                h('strong', {}, e.name),
                e.direction === 'in' ? ` ${words(e.relation)} ${name}` : '',
                h('span', { class: 'muted' }, ` · weight ${e.weight}`),
              ),
            ),
          ),
        )
      : null,
    evidence.length
      ? h('div', {}, h('h3', {}, 'What was said'), ...evidence.map((q) => quoteBlock(app, vaultArgs, q)))
      : entity.evidence
        ? h('p', { class: 'muted' }, 'No quotes recorded for it.')
        : null,
    more,
  );
  // Mentioned more often than quoted: what the transcripts say of it, beyond the quotes above.
  if (entity.evidence && mentions > evidence.length && name) void loadMore(app, vaultArgs, more, name, evidence);
  return card;
}

async function loadMore(app: App, vaultArgs: Json, into: HTMLElement, name: string, evidence: Quote[]): Promise<void> {
  into.replaceChildren(h('p', { class: 'muted' }, 'Looking for more mentions…'));
  try {
    const data = await callTool(app, 'search_transcripts', { ...vaultArgs, query: name, limit: MORE_MENTIONS });
    const quoted = (hit: Hit) =>
      evidence.some(
        (q) =>
          q.meetingId === hit.meetingId &&
          typeof q.turnIndex === 'number' &&
          q.turnIndex >= hit.turnStart &&
          q.turnIndex <= hit.turnEnd,
      );
    const hits = ((data.results ?? []) as Hit[]).filter((hit) => !quoted(hit));
    into.replaceChildren(
      ...(hits.length
        ? [h('h3', {}, 'Also in the transcripts'), ...hits.map((hit) => hitBlock(app, vaultArgs, hit, name))]
        : []),
    );
  } catch (err) {
    into.replaceChildren(h('p', { class: 'error' }, `More mentions could not be loaded: ${(err as Error).message}`));
  }
}
