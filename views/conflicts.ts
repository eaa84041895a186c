/**
 * The conflicts board (list_conflicts): each conflict's contradicting claims side by side with speaker, meeting
 * and time; resolve, dismiss or reopen with a note calls resolve_conflict through the host, so the host's own
 * approval applies. A key that may not resolve (a member key) gets the board read-only after its first try.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { CONFLICT_STATUSES } from '../src/core/vocabulary.js';
import { callTool, h, show, startView, when, type Json } from './common.js';

interface Claim {
  speaker?: string | null;
  quote: string;
  meetingName?: string | null;
  spokenAt?: string | null;
}
interface Conflict {
  id: string;
  entityName?: string | null;
  title: string;
  status: string;
  note?: string | null;
  claims: Claim[];
  updatedAt?: string;
}

let vaultArgs: Json = {};
let conflicts: Conflict[] = [];
let shown = 'all';
let readOnly = '';
const messages = new Map<string, { text: string; error: boolean; undo?: { status: string; note: string } }>();

/** Sets the conflict's status (and note) through the host; `undoing` is a change back, which offers no undo itself. */
async function setStatus(app: App, conflict: Conflict, status: string, note: string, undoing = false): Promise<void> {
  const before = { status: conflict.status, note: conflict.note ?? '' };
  messages.set(conflict.id, { text: 'Saving…', error: false });
  draw(app);
  try {
    const updated = (await callTool(app, 'resolve_conflict', {
      ...vaultArgs,
      conflictId: conflict.id,
      status,
      ...(note.trim() ? { note: note.trim() } : {}),
    })) as unknown as Conflict;
    conflicts = conflicts.map((c) => (c.id === conflict.id ? { ...c, ...updated } : c));
    messages.set(
      conflict.id,
      undoing
        ? { text: `Back to ${status}.`, error: false }
        : { text: `Marked ${status}.`, error: false, undo: before },
    );
  } catch (err) {
    const message = (err as Error).message;
    // The key may read conflicts but not change them: say so once and stop offering the buttons.
    if (/manager key|forbidden|not (allowed|available)|unknown tool/i.test(message)) readOnly = message;
    messages.set(conflict.id, { text: message, error: true });
  }
  draw(app);
}

function card(app: App, c: Conflict): HTMLElement {
  const note = h('textarea', {
    rows: c.note ? Math.min(6, 2 + Math.floor(c.note.length / 110)) : 2,
    style: 'width:100%',
    placeholder: 'Note: the validated truth, or why it was dismissed',
    'aria-label': 'note',
    'data-role': 'note',
  }) as HTMLTextAreaElement;
  note.value = c.note ?? ''; // the note it has, to edit
  const action = (status: string, label: string) =>
    h('button', { 'data-action': status, onclick: () => void setStatus(app, c, status, note.value) }, label);
  const message = messages.get(c.id);
  return h(
    'section',
    { class: 'card', 'data-role': 'conflict', 'data-id': c.id, 'data-status': c.status },
    h(
      'div',
      { class: 'bar' },
      h('span', { class: 'chip', 'data-role': 'status' }, c.status),
      c.entityName ? h('span', { class: 'muted' }, c.entityName) : null,
    ),
    h('h2', {}, c.title),
    h(
      'div',
      { class: 'cols' },
      ...c.claims.map((claim) =>
        h(
          'blockquote',
          { 'data-role': 'claim' },
          `“${claim.quote}”`,
          h(
            'div',
            { class: 'muted' },
            [claim.speaker, claim.meetingName, when(claim.spokenAt)].filter(Boolean).join(' · '),
          ),
        ),
      ),
    ),
    // The note: in its box to edit where the key may change it, as text where it may not.
    c.note && readOnly ? h('p', { 'data-role': 'conflict-note' }, h('strong', {}, 'Note: '), c.note) : null,
    readOnly
      ? null
      : h(
          'div',
          {},
          note,
          h(
            'div',
            { class: 'bar' },
            ...(c.status === 'open'
              ? [action('resolved', 'Resolve'), action('dismissed', 'Dismiss')]
              : [action('open', 'Reopen')]),
          ),
        ),
    message
      ? h(
          'p',
          { class: message.error ? 'error' : 'muted', 'data-role': 'message' },
          message.text,
          message.undo && !readOnly ? ' ' : null,
          message.undo && !readOnly
            ? h(
                'button',
                {
                  class: 'link',
                  'data-role': 'undo',
                  onclick: () => void setStatus(app, c, message.undo!.status, message.undo!.note, true),
                },
                'Undo',
              )
            : null,
        )
      : null,
  );
}

function draw(app: App): void {
  const counts = Object.fromEntries(CONFLICT_STATUSES.map((s) => [s, conflicts.filter((c) => c.status === s).length]));
  const tab = (status: string, label: string) =>
    h(
      'button',
      { 'data-tab': status, 'aria-pressed': shown === status, onclick: () => ((shown = status), draw(app)) },
      label,
    );
  show(
    h(
      'div',
      { class: 'bar' },
      tab('all', `All (${conflicts.length})`),
      ...CONFLICT_STATUSES.map((s) => tab(s, `${s[0]!.toUpperCase()}${s.slice(1)} (${counts[s]})`)),
    ),
    readOnly ? h('p', { class: 'muted', 'data-role': 'read-only' }, `Read-only: ${readOnly}`) : null,
    ...conflicts.filter((c) => shown === 'all' || c.status === shown).map((c) => card(app, c)),
    conflicts.some((c) => shown === 'all' || c.status === shown)
      ? null
      : h(
          'p',
          { class: 'muted', 'data-role': 'empty' },
          shown === 'all' ? 'No conflicts in this vault.' : `No ${shown} conflicts.`,
        ),
  );
}

const app = startView('conflicts', {
  input(args) {
    vaultArgs = args.vault ? { vault: args.vault } : {};
  },
  result(data) {
    conflicts = (data.conflicts ?? []) as Conflict[];
    draw(app);
  },
});
