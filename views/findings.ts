/**
 * The findings explorer (list_findings, search_knowledge): a table to sort, filter by type and source, and page
 * (list_findings again through the host, with the filters and the cursor); a row opens the entity's card
 * (get_entity with evidence).
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { ENTITY_SOURCES, ENTITY_TYPES } from '../src/core/vocabulary.js';
import { callTool, h, show, startView, when, type Json } from './common.js';
import { entityCard } from './entity-card.js';

interface Finding {
  id: string;
  name: string;
  type: string;
  source: string;
  mentionCount: number;
  lastMentionedAt?: string | null;
}
type Column = 'name' | 'type' | 'source' | 'mentionCount' | 'lastMentionedAt';

const state = {
  args: {} as Json,
  /** search_knowledge's answer has no pages: its filters apply to the rows at hand. */
  searched: false,
  rows: [] as Finding[],
  total: 0,
  nextCursor: null as string | null,
  /** The cursors of the pages before this one (the first page has none). */
  previous: [] as (string | undefined)[],
  cursor: undefined as string | undefined,
  type: '',
  source: '',
  sort: { column: 'mentionCount' as Column, descending: true },
  card: null as HTMLElement | null,
  /** The row the card belongs to: it opens right under that row, where the eye is. */
  cardFor: null as string | null,
  busy: false,
};

const vaultArg = (): Json => (state.args.vault ? { vault: state.args.vault } : {});

function take(data: Json): void {
  const rows = (data.findings ?? data.entities ?? []) as Finding[];
  state.rows = rows;
  state.total = typeof data.total === 'number' ? data.total : rows.length;
  state.nextCursor = typeof data.nextCursor === 'string' ? data.nextCursor : null;
}

/** Loads the page at `cursor`; `previous` becomes the stack of cursors before it once the page is in. */
async function loadPage(app: App, cursor: string | undefined, previous: (string | undefined)[]): Promise<void> {
  state.busy = true;
  render(app);
  try {
    const args: Json = {
      ...vaultArg(),
      limit: state.args.limit ?? 50,
      ...(state.args.sort ? { sort: state.args.sort } : {}),
    };
    if (state.type) args.type = state.type;
    if (state.source) args.source = state.source;
    if (cursor) args.cursor = cursor;
    take(await callTool(app, 'list_findings', args));
    state.cursor = cursor;
    state.previous = previous;
  } catch (err) {
    state.card = h('p', { class: 'error' }, (err as Error).message);
  } finally {
    state.busy = false;
    render(app);
  }
}

async function openCard(app: App, id: string): Promise<void> {
  if (state.cardFor === id && state.card) {
    state.card = null; // a second click on the row closes its card
    state.cardFor = null;
    return render(app);
  }
  state.cardFor = id;
  state.card = h('p', { class: 'muted' }, 'Loading…');
  render(app);
  try {
    const card = entityCard(
      app,
      await callTool(app, 'get_entity', { ...vaultArg(), entityId: id, includeEvidence: true }),
      vaultArg(),
    );
    if (state.cardFor === id) state.card = card;
  } catch (err) {
    if (state.cardFor === id) state.card = h('p', { class: 'error' }, (err as Error).message);
  }
  render(app);
  state.card?.scrollIntoView({ block: 'nearest' });
}

function visibleRows(): Finding[] {
  const rows = state.searched
    ? state.rows.filter((r) => (!state.type || r.type === state.type) && (!state.source || r.source === state.source))
    : [...state.rows];
  const { column, descending } = state.sort;
  return rows.sort((a, b) => {
    const x = a[column] ?? '';
    const y = b[column] ?? '';
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
}

function select(label: string, values: readonly string[], current: string, onchange: (v: string) => void): HTMLElement {
  const box = h(
    'select',
    {
      'data-role': `filter-${label}`,
      'aria-label': label,
      onchange: (e: Event) => onchange((e.target as HTMLSelectElement).value),
    },
    h('option', { value: '' }, `any ${label}`),
    ...values.map((v) => h('option', { value: v }, v)),
  );
  (box as HTMLSelectElement).value = current;
  return box;
}

function render(app: App): void {
  const refilter = (key: 'type' | 'source') => (v: string) => {
    state[key] = v;
    if (state.searched) render(app);
    else void loadPage(app, undefined, []);
  };
  const headers: [Column, string][] = [
    ['name', 'Name'],
    ['type', 'Type'],
    ['source', 'Source'],
    ['mentionCount', 'Mentions'],
    ['lastMentionedAt', 'Last mentioned'],
  ];
  const rows = visibleRows();
  const first = state.previous.length * Number(state.args.limit ?? 50);
  show(
    h(
      'div',
      { class: 'bar' },
      select('type', ENTITY_TYPES, state.type, refilter('type')),
      select('source', ENTITY_SOURCES, state.source, refilter('source')),
      h(
        'span',
        { class: 'muted', 'data-role': 'count' },
        state.searched
          ? `${rows.length} of ${state.rows.length} matches`
          : `${state.total ? first + 1 : 0}–${first + state.rows.length} of ${state.total}`,
      ),
      state.searched
        ? null
        : h(
            'button',
            {
              'data-role': 'prev',
              disabled: state.busy || !state.previous.length,
              onclick: () => void loadPage(app, state.previous.at(-1), state.previous.slice(0, -1)),
            },
            '← Previous',
          ),
      state.searched
        ? null
        : h(
            'button',
            {
              'data-role': 'next',
              disabled: state.busy || !state.nextCursor,
              onclick: () => void loadPage(app, state.nextCursor!, [...state.previous, state.cursor]),
            },
            'Next →',
          ),
    ),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...headers.map(([column, label]) =>
            h(
              'th',
              {
                class: column === 'mentionCount' ? 'num' : undefined,
                'aria-sort':
                  state.sort.column === column ? (state.sort.descending ? 'descending' : 'ascending') : undefined,
                onclick: () => (
                  (state.sort = {
                    column,
                    descending: state.sort.column === column ? !state.sort.descending : column === 'mentionCount',
                  }),
                  render(app)
                ),
              },
              label,
              state.sort.column === column ? (state.sort.descending ? ' ↓' : ' ↑') : '',
            ),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...rows.flatMap((r) =>
          [
            h(
              'tr',
              {
                'data-id': r.id,
                tabindex: 0,
                style: 'cursor:pointer',
                'aria-expanded': state.cardFor === r.id,
                onclick: () => void openCard(app, r.id),
                onkeydown: (e: KeyboardEvent) => e.key === 'Enter' && void openCard(app, r.id),
              },
              h('td', {}, r.name),
              h('td', {}, h('span', { class: 'chip' }, r.type)),
              h('td', {}, r.source),
              h('td', { class: 'num' }, r.mentionCount),
              h('td', {}, when(r.lastMentionedAt, true)),
            ),
            state.cardFor === r.id && state.card
              ? h('tr', { class: 'detail', 'data-role': 'card-row' }, h('td', { colspan: headers.length }, state.card))
              : null,
          ].filter((row): row is HTMLElement => row !== null),
        ),
      ),
    ),
    rows.length ? null : h('p', { class: 'muted' }, 'No findings match.'),
    // A card whose row is on no page shown (filtered away) stays under the table.
    state.card && !rows.some((r) => r.id === state.cardFor) ? state.card : null,
  );
}

const app = startView('findings', {
  input(args) {
    state.args = args;
    state.searched = typeof args.query === 'string';
    state.type = typeof args.type === 'string' ? args.type : '';
    state.source = typeof args.source === 'string' ? args.source : '';
    state.cursor = typeof args.cursor === 'string' ? args.cursor : undefined;
  },
  result(data) {
    if (!data.findings && data.entities) state.searched = true;
    take(data);
    render(app);
  },
});
