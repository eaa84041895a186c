/**
 * Issue 52, "made for the model", over MCP stdio on a demo store, as a model's client sees the tools: reading
 * around a search hit by turn; results that explain themselves in the published schema (what found an excerpt,
 * the scale of its score); quotes with the sentences they were clipped from; tasks found by id and by words,
 * with what blocks them; knowledge that says it predates a meeting not yet extracted. Expected values come
 * from the fixture files (test/helpers.ts `fixture`), not from the code under test.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, connectStdio, demoStore, fixture, FIXTURE_DIRS, tempDir, type DemoStore } from '../helpers.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { writeTinyVault, type TinyVault } from '../tiny-vault.js';

const NW = 'northwind-logistics';
const MH = 'meridian-health';
const nw = fixture('northwind');
const mh = fixture('meridian');

let store: DemoStore;
let client: Client;
let published: Map<string, { description?: string; inputSchema: any; outputSchema?: any }>;

beforeAll(async () => {
  store = demoStore();
  client = await connectStdio(store, store.ownerKey);
  published = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
}, 120_000);
afterAll(async () => {
  await client?.close();
  store?.cleanup();
});

type Data = Record<string, any>;
async function call(name: string, args: Record<string, unknown>): Promise<Data> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as Data;
}
async function refused(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError).toBe(true);
  const text = (r.content as { text: string }[]).map((c) => c.text).join(' ');
  expect(text).not.toMatch(/\n\s+at /);
  return text;
}

describe('reading around an excerpt', () => {
  it("get_transcript with a hit's meetingId, turnStart and turnEnd returns those turns and their neighbours, in order, with speakers and times", async () => {
    const found = await call('search_transcripts', { vault: NW, query: 'detention charges year to date' });
    expect(found.results.length).toBeGreaterThan(0);
    const hit = found.results[0];
    const meeting = nw.meetings.find((m) => m.id === hit.meetingId)!;
    const read = await call('get_transcript', {
      vault: NW,
      meetingId: hit.meetingId,
      turnStart: hit.turnStart,
      turnEnd: hit.turnEnd,
      context: 2,
    });
    const first = Math.max(0, hit.turnStart - 2);
    const last = Math.min(meeting.transcript.length - 1, hit.turnEnd + 2);
    expect(read.turns.map((t: Data) => t.turnIndex)).toEqual(
      Array.from({ length: last - first + 1 }, (_, i) => first + i),
    );
    for (const t of read.turns) {
      const said = meeting.transcript[t.turnIndex]!;
      expect([t.speaker, t.text, t.atSeconds]).toEqual([said.speaker, said.text, said.at]);
      expect(t.at).toBe(new Date(Date.parse(meeting.startedAt) + said.at! * 1000).toISOString().replace('.000Z', 'Z'));
      expect(t.asked).toBe(t.turnIndex >= hit.turnStart && t.turnIndex <= hit.turnEnd);
      // The hit's own turns are the excerpt's "Speaker: words" lines.
      if (t.asked) expect(hit.text).toContain(`${t.speaker}: ${t.text}`);
    }
    expect(read.totalTurns).toBe(meeting.transcript.length);
    expect(read.chunks).toBeUndefined();
    // `before` / `after` say what to pass to read on: the turns straight before / after these, as many.
    expect(read.after).not.toBeNull();
    const next = await call('get_transcript', { vault: NW, ...read.after });
    expect(next.turns[0].turnIndex).toBe(last + 1);
    expect(next.turns.every((t: Data) => t.asked)).toBe(true);
    expect(next.turns.length).toBe(Math.min(read.turns.length, meeting.transcript.length - 1 - last));
    if (first > 0) {
      const previous = await call('get_transcript', { vault: NW, ...read.before });
      expect(previous.turns.at(-1).turnIndex).toBe(first - 1);
    } else expect(read.before).toBeNull();
  });

  it('still pages by chunk when no turn is asked for, and names the field of a turn the meeting does not have', async () => {
    const meeting = nw.meetings.find((m) => m.transcript.length > 0)!;
    const page = await call('get_transcript', { vault: NW, meetingId: meeting.id, offset: 0, limit: 2 });
    expect(page.chunks).toHaveLength(2);
    expect(page.turns).toBeUndefined();
    expect(
      await refused('get_transcript', { vault: NW, meetingId: meeting.id, turnStart: meeting.transcript.length }),
    ).toContain(`0 to ${meeting.transcript.length - 1}`);
    expect(await refused('get_transcript', { vault: NW, meetingId: meeting.id, turnStart: 5, turnEnd: 2 })).toMatch(
      /turnEnd/,
    );
    expect(await refused('get_transcript', { vault: NW, meetingId: meeting.id, turnEnd: 2 })).toMatch(/turnStart/);
  });
});

describe('search results that explain themselves', () => {
  it('the published output schema describes foundBy (the phrasings by their words) and score (one scale)', () => {
    const result = published.get('search_transcripts')!.outputSchema.properties.results.items.properties;
    expect(result.foundBy.items.type).toBe('string');
    expect(result.foundBy.description).toMatch(/quoted as passed/);
    expect(result.score.description).toMatch(/standard deviations/);
    expect(result.score.description).toMatch(/with or without alternatives/);
    expect(result.turnStart.description).toMatch(/get_transcript/);
  });

  it('with alternatives, foundBy quotes the phrasings and score is on the scale of a search without them', async () => {
    const query = 'How much have carriers charged us for waiting at the docks?';
    const alternatives = ['detention charges year to date', 'the hauliers bill us for the lorries sitting in the yard'];
    const alone = await call('search_transcripts', { vault: NW, query });
    const both = await call('search_transcripts', { vault: NW, query, alternatives });
    expect(both.results.length).toBeGreaterThan(0);
    for (const r of both.results) for (const p of r.foundBy) expect([query, ...alternatives]).toContain(p);
    const byQuery = both.results.filter((r: Data) => r.foundBy.includes(query));
    expect(byQuery.length).toBeGreaterThan(0);
    // An excerpt the query found alone keeps at least the score the query alone gave it (the best phrasing's own).
    for (const r of byQuery) {
      const same = alone.results.find(
        (a: Data) => a.meetingId === r.meetingId && a.turnStart >= r.turnStart && a.turnEnd <= r.turnEnd,
      );
      expect(same, `${r.meetingId}:${r.turnStart}-${r.turnEnd}`).toBeDefined();
      expect(r.score).toBeGreaterThanOrEqual(same.score - 1e-5);
    }
  });
});

describe('quotes with their context', () => {
  it('each quote comes with the whole sentences of its turn; a clipped figure keeps its qualifier', async () => {
    const entity = await call('get_entity', { vault: NW, entityId: 'prob-detention-charges', includeEvidence: true });
    expect(entity.evidence.length).toBeGreaterThan(0);
    for (const q of entity.evidence) {
      expect(q.context.toLowerCase()).toContain(q.quote.toLowerCase());
      const turn = nw.meetings.find((m) => m.id === q.meetingId)!.transcript[q.turnIndex]!;
      expect(turn.text).toContain(q.context);
    }
    const october = entity.evidence.find((q: Data) => q.quote.includes('two hundred and fourteen thousand'))!;
    expect(october.quote).not.toContain('October');
    expect(october.context).toContain('at the end of October');
    // How many more mentions the transcripts hold than quotes, and how to read them.
    expect(entity.mentions.quoted).toBe(entity.evidence.length);
    expect(entity.mentions.total).toBeGreaterThan(entity.mentions.quoted);
    expect(entity.mentions.byMeeting.reduce((a: number, m: Data) => a + m.mentions, 0)).toBe(entity.mentions.total);
    expect(entity.mentions.howToRead).toMatch(/search_transcripts.*get_transcript/);
  });

  it("a conflict's claims come with their turn and sentences too", async () => {
    const { conflicts } = await call('list_conflicts', { vault: NW, status: 'all' });
    const claims = conflicts.flatMap((c: Data) => c.claims);
    expect(claims.length).toBeGreaterThan(0);
    for (const cl of claims) {
      const turn = nw.meetings.find((m) => m.id === cl.meetingId)!.transcript[cl.turnIndex]!;
      expect(turn.text).toContain(cl.quote);
      expect(cl.context).toContain(cl.quote);
      expect(turn.text).toContain(cl.context);
    }
    // A clipped claim gets its qualifier back ("… lines per hour at Daventry, for e-com").
    expect(claims.some((cl: Data) => cl.context.length > cl.quote.length + 2)).toBe(true);
  });

  it('without includeEvidence, no quotes and no mentions summary', async () => {
    const entity = await call('get_entity', { vault: NW, entityId: 'prob-detention-charges' });
    expect(entity.evidence).toBeUndefined();
    expect(entity.mentions).toBeUndefined();
  });
});

describe('lists a model can narrow', () => {
  const task25 = nw.tasks.find((t) => t.number === 25)!;

  it('list_tasks finds a task by its identifier, any case, and names the ids that match none', async () => {
    const one = await call('list_tasks', { vault: NW, ids: ['nwl-25'] });
    expect(one.tasks.map((t: Data) => [t.identifier, t.title])).toEqual([['NWL-25', task25.title]]);
    const some = await call('list_tasks', { vault: NW, ids: ['NWL-10', '25', 'NWL-404'] });
    expect(some.tasks.map((t: Data) => t.identifier)).toEqual(['NWL-10', 'NWL-25']);
    expect(some.unknownIds).toEqual(['NWL-404']);
  });

  it('list_tasks finds tasks by words of their title, description, labels or owner', async () => {
    const found = await call('list_tasks', { vault: NW, query: 'Gavin Shaw succession' });
    expect(found.tasks.map((t: Data) => t.identifier)).toEqual(['NWL-25']);
    const invoices = await call('list_tasks', { vault: NW, query: 'agency invoices' });
    const expected = nw.tasks.filter(
      (t) =>
        /agency/i.test(`${t.title} ${t.description ?? ''}`) && /invoices/i.test(`${t.title} ${t.description ?? ''}`),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(invoices.tasks.map((t: Data) => t.number)).toEqual(expected.map((t) => t.number));
  });

  it('a task says what blocks it where the board records it, and whether it clears after the task is due', async () => {
    const { tasks } = await call('list_tasks', { vault: NW, ids: ['NWL-10', 'NWL-15', 'NWL-25'] });
    const [t10, t15, t25] = tasks;
    const f10 = nw.tasks.find((t) => t.number === 10)!;
    expect(t10.blockedBy).toEqual([
      {
        kind: 'person',
        ref: null,
        name: f10.blockedBy![0]!.person,
        status: null,
        note: f10.blockedBy![0]!.note,
        dueDate: f10.blockedBy![0]!.dueDate,
        afterDueDate: f10.blockedBy![0]!.dueDate! > f10.dueDate!,
      },
    ]);
    expect(t10.blockedBy[0].afterDueDate).toBe(true); // due the day before its own blocker clears
    const t16 = nw.tasks.find((t) => t.number === 16)!;
    expect(t15.blockedBy[0]).toMatchObject({
      kind: 'task',
      ref: 'NWL-16',
      name: t16.title,
      status: t16.status,
      dueDate: t16.dueDate,
    });
    expect(t25.blockedBy).toBeUndefined();
  });

  it('list_calendar takes a date window and words', async () => {
    const steering = await call('list_calendar', { vault: NW, query: 'steering committee', after: '2020-01-01' });
    const expected = nw.calendar
      .filter((e) => /steering/i.test(e.title) && /committee/i.test(e.title))
      .map((e) => e.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(steering.events.map((e: Data) => e.id).sort()).toEqual([...expected].sort());
    const sorted = [...nw.calendar].sort((a, b) => a.startAt.localeCompare(b.startAt));
    const [from, to] = [sorted[1]!.startAt, sorted[sorted.length - 2]!.startAt];
    const window = await call('list_calendar', { vault: NW, after: from, before: to });
    const inWindow = nw.calendar.filter((e) => e.startAt >= from && e.startAt < to).map((e) => e.id);
    expect(inWindow.length).toBeGreaterThan(0);
    expect(window.events.map((e: Data) => e.id).sort()).toEqual([...inWindow].sort());
    expect(window.window).toMatchObject({ from, to });
    expect(await refused('list_calendar', { vault: NW, after: to, before: from })).toMatch(/before/);
  });
});

describe('knowledge that says it lags the transcripts', () => {
  const pending = mh.meetings.filter((m) => m.extractionStatus !== 'extracted');

  it('an open conflict whose claims predate a meeting not yet extracted names that meeting', async () => {
    expect(pending.length).toBeGreaterThan(0);
    const { conflicts } = await call('list_conflicts', { vault: MH });
    expect(conflicts.length).toBeGreaterThan(0);
    for (const c of conflicts) {
      const latest = c.claims
        .map((cl: Data) => cl.spokenAt)
        .sort()
        .at(-1);
      const later = pending.filter((m) => m.startedAt > latest).map((m) => m.id);
      expect(
        (c.laterMeetingsNotExtracted ?? []).map((m: Data) => m.meetingId),
        c.id,
      ).toEqual(later);
    }
    const dbn = conflicts.find((c: Data) => c.id === 'conf-discharges-before-noon');
    expect(dbn.laterMeetingsNotExtracted).toEqual([
      {
        meetingId: pending[0]!.id,
        meetingName: pending[0]!.name,
        date: pending[0]!.startedAt,
        extractionStatus: pending[0]!.extractionStatus,
      },
    ]);
    // The meeting it names holds the newer evidence: its transcript can be searched for it.
    const newer = await call('search_transcripts', {
      vault: MH,
      query: 'switch the board pack definition footnote',
      meetingId: pending[0]!.id,
    });
    expect(newer.results.length).toBeGreaterThan(0);
  });

  it('get_entity says so too, for the entity and for its conflicts', async () => {
    const c = mh.conflicts.find((x) => x.id === 'conf-discharges-before-noon')!;
    const entity = await call('get_entity', { vault: MH, entityId: c.entityId });
    expect(entity.laterMeetingsNotExtracted.map((m: Data) => m.meetingId)).toEqual(pending.map((m) => m.id));
    expect(
      entity.conflicts.find((x: Data) => x.id === c.id).laterMeetingsNotExtracted.map((m: Data) => m.meetingId),
    ).toEqual(pending.map((m) => m.id));
  });

  it('once that meeting is extracted, nothing is flagged', async () => {
    // The same vault, the playback marked extracted, imported over the demo's copy in the store the server reads.
    const v = readVaultDir(FIXTURE_DIRS.meridian);
    v.meetings = v.meetings.map((m) =>
      m.extractionStatus === 'extracted' ? m : { ...m, extractionStatus: 'extracted' as const },
    );
    const dir = tempDir('vt-extracted-');
    try {
      cli(['import', writeTinyVault(dir.dir, v as unknown as TinyVault), '--data-dir', store.dir]);
    } finally {
      dir.cleanup();
    }
    const { conflicts } = await call('list_conflicts', { vault: MH, status: 'all' });
    expect(conflicts.length).toBe(mh.conflicts.length);
    expect(conflicts.filter((c: Data) => c.laterMeetingsNotExtracted)).toEqual([]);
    const c = mh.conflicts.find((x) => x.id === 'conf-discharges-before-noon')!;
    expect((await call('get_entity', { vault: MH, entityId: c.entityId })).laterMeetingsNotExtracted).toBeUndefined();
  });
});
