/**
 * The fixed argument sets every read-only tool of the catalog is called with, per vault and across vaults:
 * shared by `npm run dump:read-tools` (a baseline before and after a refactor) and the export round-trip
 * test (the same answers before an export and after its import). The fixture decides ids and words, the
 * pinned clock `now` decides dates.
 */
import { isDeepStrictEqual } from 'node:util';
import { DAY_MS } from '../src/time.js';
import type { VaultFixture } from '../src/vault-format/schema.js';

type Args = Record<string, unknown>;
export interface Call {
  /** file name stem: `<vault>.<tool>.<n>` or `all.<tool>.<n>` */
  id: string;
  tool: string;
  args: Args;
}

const daysAgo = (NOW: Date, n: number) => new Date(NOW.getTime() - n * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The fixed argument sets of one vault; the fixture decides ids and words, the pinned clock decides dates. */
export function vaultCalls(key: string, f: VaultFixture, NOW: Date): Call[] {
  const vault = f.vault.id;
  const linked = f.entities.find((e) => f.edges.some((x) => x.from === e.id))!;
  const meetings = f.meetings.filter((m) => m.extractionStatus === 'extracted');
  const meeting = meetings[0]!;
  const file = f.files.find((x) => x.visibility === 'public')!;
  const person = f.people[0]!;
  const other = f.people[2] ?? person;
  const [k0, k1, k2] = f.vault.keywords as [string, string, string];
  const speaker = meeting.transcript[0]!.speaker;
  const subjectWord = f.mailbox[0]!.subject.split(/\W+/).find((w) => w.length > 5)!;
  const sets: Record<string, Args[]> = {
    stats: [{}],
    get_brief: [{}, { kind: 'weekly-plan' }, { kind: 'weekly-digest' }],
    search_knowledge: [
      { query: linked.name.split(' ')[0]!, limit: 5 },
      { query: k0 },
      { query: `${k1} ${k2}`, limit: 20 },
      { query: linked.name, type: linked.type },
      { query: 'zzzz-no-such-word' },
    ],
    // A quotation said in the first extracted meeting, one changed, and one nobody said.
    check_quotes: [
      { text: `As ${speaker} put it: "${meeting.transcript[0]!.text.split(/(?<=[.?!])\s/)[0]}"` },
      {
        text: `"We have never had a problem with the dock doors at any site," said ${other.name}.`,
        meetingId: meeting.id,
      },
    ],
    search_transcripts: [
      { query: `what was said about ${k0}`, limit: 3 },
      { query: k1, limit: 10 },
      { query: k2, meetingId: meeting.id },
      { query: k0, speaker },
      { query: k0, after: daysAgo(NOW, 200), before: daysAgo(NOW, 150) },
      { query: 'zzzz-no-such-word' },
    ],
    get_entity: [{ entityId: linked.id, includeEvidence: true }, { entityId: f.entities.at(-1)!.id }],
    expand_graph: [
      { entityId: linked.id, depth: 1 },
      { entityId: linked.id, depth: 2 },
    ],
    list_findings: [
      {},
      { sort: 'recent', limit: 20, compact: false },
      { sort: 'mentions', limit: 5, compact: true },
      { type: linked.type },
      { meetingId: meeting.id },
    ],
    list_conflicts: [{}, { status: 'all' }, { status: 'resolved' }],
    changes_since: [{ since: daysAgo(NOW, 14) }, { since: daysAgo(NOW, 190) }, { since: daysAgo(NOW, 400) }],
    list_meetings: [{}],
    get_meeting: meetings.slice(0, 3).map((m) => ({ meetingId: m.id })),
    get_transcript: [{ meetingId: meeting.id }, { meetingId: meeting.id, offset: 2, limit: 5 }],
    list_calendar: [{}],
    list_tasks: [{}, { status: 'open' }, { status: 'done' }, { milestoneId: f.milestones[0]!.id }],
    list_milestones: [{}],
    list_plan_steps: [{}],
    list_files: [{}],
    get_file: [{ fileId: file.id }],
    find_artifact: [{ limit: 5 }, { query: 'conflicts' }, { query: k0 }, { kind: 'csv', limit: 1 }],
    find_person: [{ query: person.name.split(' ')[0] }, { query: other.email }, { query: 'Nobody Atall' }],
    list_sent_emails: [{}, { limit: 5 }, { to: person.email }],
    find_email_thread: [
      { query: 'has:attachment newer_than:120d', limit: 10 },
      { query: k0 },
      { query: `from:${person.email}` },
      { query: `subject:${subjectWord} older_than:30d` },
      { query: `"${subjectWord}" -${k0}`, limit: 3 },
    ],
    search_agent_memory: [{ query: k0, limit: 5 }, { query: `${k1} ${k2}` }, { query: k0, person_email: other.email }],
  };
  return expand(key, sets, { vault });
}

export function globalCalls(fixtures: Record<string, VaultFixture>): Call[] {
  const [nw, mh] = Object.values(fixtures) as [VaultFixture, VaultFixture];
  return expand(
    'all',
    {
      list_vaults: [{}],
      suggest_vault_scope: [
        { conversation: `Let's review what ${nw.people[0]!.name} said about ${nw.vault.keywords[0]}.` },
        { conversation: `Where are we on ${mh.vault.keywords[1]} and ${mh.vault.keywords[5]}?` },
        { conversation: 'What is the weather tomorrow?' },
      ],
    },
    {},
  );
}

export function expand(prefix: string, sets: Record<string, Args[]>, base: Args): Call[] {
  return Object.entries(sets).flatMap(([tool, list]) =>
    list.map((args, n) => ({ id: `${prefix}.${tool}.${n}`, tool, args: { ...base, ...args } })),
  );
}

/** Objects with their keys sorted (key order is not part of an answer); arrays keep their order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Args)[k])]),
    );
  }
  return value;
}

/** The path of the first place two JSON values differ, with both values there (shortened). */
export function firstDifference(x: unknown, y: unknown, path: string): string {
  if (x && y && typeof x === 'object' && typeof y === 'object' && Array.isArray(x) === Array.isArray(y)) {
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
    for (const k of keys) {
      const [vx, vy] = [(x as Args)[k], (y as Args)[k]];
      if (!isDeepStrictEqual(vx, vy))
        return firstDifference(vx, vy, Array.isArray(x) ? `${path}[${k}]` : `${path}.${k}`);
    }
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 120));
  return `${path}: ${show(x)} → ${show(y)}`;
}
