/**
 * The built binary, driven by the MCP SDK's own client over a real stdio pipe, on the shipped fixture
 * vaults. Every knowledge tool is called with realistic arguments and checked against the fixture files.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio as connect, demoStore, fixture, type DemoStore } from '../helpers.js';
import { tools } from '../../src/catalog/index.js';
import type { VaultFixture } from '../../src/vault-format/schema.js';

type Data = Record<string, any>;
type Outcome =
  | { data: Data; error?: undefined }
  | { data?: undefined; error: { code: string; message: string; requestId: string } };

async function call(client: Client, name: string, args: Data = {}): Promise<Outcome> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]!.text;
  if (result.isError) return { error: JSON.parse(text).error };
  expect(JSON.parse(text)).toEqual(result.structuredContent); // the text rendering is the same data
  return { data: result.structuredContent as Data };
}

async function ok(client: Client, name: string, args: Data = {}): Promise<Data> {
  const r = await call(client, name, args);
  if (r.error) throw new Error(`${name} failed: ${r.error.code}: ${r.error.message}`);
  return r.data;
}

let store: DemoStore;
let owner: Client;
let nw: VaultFixture;
let mh: VaultFixture;
const NW = 'northwind-logistics';
const MH = 'meridian-health';

beforeAll(async () => {
  store = demoStore();
  nw = fixture('northwind');
  mh = fixture('meridian');
  owner = await connect(store, store.ownerKey);
});

afterAll(async () => {
  await owner?.close();
  store?.cleanup();
});

describe('tools/list', () => {
  it('lists every catalog tool with title, annotations, input and output schemas', async () => {
    const { tools: listed } = await owner.listTools();
    expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    for (const t of listed) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      const declared = tools.find((x) => x.name === t.name)!;
      expect(t.annotations?.readOnlyHint, t.name).toBe(declared.access === 'member'); // every knowledge tool reads, every action writes
      expect(t.description!.includes('manager key'), t.name).toBe(declared.access === 'manager');
      const props = Object.keys(t.inputSchema.properties ?? {});
      if (t.name === 'list_vaults' || t.name === 'suggest_vault_scope') expect(props).not.toContain('vault');
      else expect(props, t.name).toContain('vault');
    }
  });

  it('publishes the catalog limits in the schemas', async () => {
    const { tools: listed } = await owner.listTools();
    const findings = listed.find((t) => t.name === 'list_findings')!.inputSchema.properties as Data;
    expect(findings.limit).toMatchObject({ minimum: 1, maximum: 200, default: 50 });
    expect(findings.sort.enum).toEqual(['mentions', 'recent']);
    const thread = listed.find((t) => t.name === 'find_email_thread')!.inputSchema;
    expect(thread.required).toEqual(['query']);
    expect((thread.properties as Data).limit).toMatchObject({ minimum: 1, maximum: 20, default: 5 });
  });
});

describe('orientation', () => {
  it('list_vaults shows both demo vaults to the owner key', async () => {
    const { vaults } = await ok(owner, 'list_vaults');
    expect(vaults.map((v: Data) => v.id).sort()).toEqual([MH, NW]);
    expect(vaults.find((v: Data) => v.id === NW).name).toBe(nw.vault.name);
  });

  it('suggest_vault_scope selects the vault a conversation names or clearly fits', async () => {
    const named = await ok(owner, 'suggest_vault_scope', {
      conversation: `Can you summarise where we are with ${nw.vault.client}?`,
    });
    expect(named.selectedVaultIds).toEqual([NW]);
    expect(named.clarificationQuestion).toBeNull();
    const onlyHere = mh.people.find((p) => !nw.people.some((q) => q.name === p.name))!;
    const byPerson = await ok(owner, 'suggest_vault_scope', {
      conversation: `What did ${onlyHere.name} say about ${mh.vault.keywords[0]} last week?`,
    });
    expect(byPerson.selectedVaultIds).toEqual([MH]);
  });

  it('suggest_vault_scope asks one question when a name is in both vaults', async () => {
    const shared = nw.people.find((p) => mh.people.some((q) => q.name === p.name))!;
    const r = await ok(owner, 'suggest_vault_scope', {
      conversation: `Draft a note to ${shared.name} about next steps.`,
    });
    expect(r.selectedVaultIds).toEqual([]);
    expect(r.clarificationQuestion).toContain(nw.vault.name);
    expect(r.clarificationQuestion).toContain(mh.vault.name);
    expect(r.clarificationQuestion).toContain(shared.name);
  });

  it('suggest_vault_scope reads only the trailing 12,000 characters', async () => {
    const conversation = `Everything here is about ${nw.vault.client}. ${'filler words only. '.repeat(800)}`;
    const r = await ok(owner, 'suggest_vault_scope', { conversation });
    expect(r.charactersUsed).toBe(12_000);
    expect(r.selectedVaultIds).toEqual([]);
    expect(r.clarificationQuestion).toBeTruthy();
  });

  it('stats counts entities by type, meetings and tasks exactly as the fixture holds them', async () => {
    const s = await ok(owner, 'stats', { vault: NW });
    for (const type of ['department', 'person', 'process', 'system', 'problem', 'opportunity', 'kpi']) {
      expect(s.entities.byType[type], type).toBe(nw.entities.filter((e) => e.type === type).length);
    }
    expect(s.entities.total).toBe(nw.entities.length);
    expect(s.meetings).toEqual({
      total: nw.meetings.length,
      extracted: nw.meetings.filter((m) => m.extractionStatus === 'extracted').length,
    });
    for (const status of ['todo', 'doing', 'done', 'blocked']) {
      expect(s.tasks.byStatus[status], status).toBe(nw.tasks.filter((t) => t.status === status).length);
    }
  });

  it('get_brief returns the latest brief of each kind', async () => {
    for (const kind of ['daily', 'weekly-plan', 'weekly-digest'] as const) {
      const latest = mh.briefs
        .filter((b) => b.kind === kind)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]!;
      const brief = await ok(owner, 'get_brief', { vault: MH, kind });
      expect(brief.id).toBe(latest.id);
      expect(brief.markdown).toBe(latest.markdown);
    }
    expect((await ok(owner, 'get_brief', { vault: MH })).kind).toBe('daily');
  });
});

describe('entities', () => {
  it('search_knowledge finds by alias, ignoring case, accents and small typos, exact first', async () => {
    const e = nw.entities.find((x) => x.aliases.some((a) => a.length >= 3 && /^[A-Z]+$/.test(a)))!;
    const alias = e.aliases.find((a) => /^[A-Z]+$/.test(a))!;
    const exact = await ok(owner, 'search_knowledge', { vault: NW, query: alias.toLowerCase() });
    expect(exact.entities[0]).toMatchObject({ id: e.id, match: 'exact' });
    const longName = nw.entities.find((x) => x.name.split(' ').some((w) => w.length >= 8))!;
    const word = longName.name.split(' ').find((w) => w.length >= 8)!;
    const typo = `${word.slice(0, 3)}${word[4]}${word[3]}${word.slice(5)}`; // two letters swapped
    const fuzzy = await ok(owner, 'search_knowledge', { vault: NW, query: typo });
    expect(fuzzy.entities.map((x: Data) => x.id)).toContain(longName.id);
    const typed = await ok(owner, 'search_knowledge', { vault: NW, query: word.slice(0, 4), type: longName.type });
    expect(typed.entities.every((x: Data) => x.type === longName.type)).toBe(true);
  });

  it('get_entity returns edges with co-mention weights and, when asked, the verbatim evidence', async () => {
    const withEvidence = nw.meetings.flatMap((m) => m.evidence.map((ev) => ({ ...ev, meeting: m })));
    const target = withEvidence[0]!;
    const plain = await ok(owner, 'get_entity', { vault: NW, entityId: target.entityId });
    expect(plain.evidence).toBeUndefined();
    const declared = nw.edges.filter((x) => x.from === target.entityId || x.to === target.entityId);
    expect(plain.edges.length).toBeGreaterThan(0);
    for (const edge of plain.edges) {
      expect(
        declared.some((d) => (d.from === edge.entityId || d.to === edge.entityId) && d.relation === edge.relation),
      ).toBe(true);
      expect(edge.weight).toBeGreaterThanOrEqual(1);
    }
    const full = await ok(owner, 'get_entity', { vault: NW, entityId: target.entityId, includeEvidence: true });
    const expected = withEvidence.filter((x) => x.entityId === target.entityId);
    expect(full.evidence.map((q: Data) => q.quote).sort()).toEqual(expected.map((x) => x.quote).sort());
    const q = full.evidence.find((x: Data) => x.quote === target.quote);
    expect(q.speaker).toBe(target.meeting.transcript[target.turn]!.speaker);
    expect(q.meetingName).toBe(target.meeting.name);
  });

  it('get_entity carries a conflicts array only for entities with open conflicts', async () => {
    const open = nw.conflicts.find((c) => c.status === 'open')!;
    const withConflict = await ok(owner, 'get_entity', { vault: NW, entityId: open.entityId });
    expect(withConflict.conflicts.map((c: Data) => c.id)).toContain(open.id);
    const calm = nw.entities.find((e) => !nw.conflicts.some((c) => c.entityId === e.id && c.status === 'open'))!;
    expect((await ok(owner, 'get_entity', { vault: NW, entityId: calm.id })).conflicts).toBeUndefined();
  });

  it('expand_graph depth 2 prefixes second-hop relations with the intermediate node', async () => {
    const hub = [...nw.entities].sort(
      (a, b) =>
        nw.edges.filter((e) => e.from === b.id || e.to === b.id).length -
        nw.edges.filter((e) => e.from === a.id || e.to === a.id).length,
    )[0]!;
    const one = await ok(owner, 'expand_graph', { vault: NW, entityId: hub.id });
    expect(one.edges.every((e: Data) => e.hop === 1 && e.from === hub.id)).toBe(true);
    const two = await ok(owner, 'expand_graph', { vault: NW, entityId: hub.id, depth: 2 });
    const second = two.edges.filter((e: Data) => e.hop === 2);
    expect(second.length).toBeGreaterThan(0);
    expect(two.edges.length).toBeLessThanOrEqual(120);
    for (const e of second) {
      const via = one.edges.find((x: Data) => x.entityId === e.from);
      expect(e.relation.startsWith(`${via.name} › `)).toBe(true);
    }
  });

  it('list_findings pages through every finding once, with stable opaque cursors', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok(owner, 'list_findings', {
        vault: NW,
        limit: 7,
        compact: true,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total).toBe(nw.entities.length);
      for (const f of page.findings)
        expect(Object.keys(f).sort()).toEqual(['id', 'lastMentionedAt', 'mentionCount', 'name', 'type']);
      seen.push(...page.findings.map((f: Data) => f.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(seen.length).toBe(nw.entities.length);
    expect(new Set(seen).size).toBe(nw.entities.length);
    const full = await ok(owner, 'list_findings', { vault: NW, limit: 200 });
    const counts = full.findings.map((f: Data) => f.mentionCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(full.findings[0]).toHaveProperty('description');
  });

  it('list_findings filters by type, source and meeting, and sorts by recency', async () => {
    const kpis = await ok(owner, 'list_findings', { vault: NW, type: 'kpi' });
    expect(kpis.total).toBe(nw.entities.filter((e) => e.type === 'kpi').length);
    const assumed = await ok(owner, 'list_findings', { vault: NW, source: 'agent-assumption' });
    expect(assumed.total).toBe(nw.entities.filter((e) => e.source === 'agent-assumption').length);
    const m = nw.meetings.find((x) => x.evidence.length)!;
    const fromMeeting = await ok(owner, 'list_findings', { vault: NW, meetingId: m.id, limit: 200 });
    expect(fromMeeting.findings.map((f: Data) => f.id).sort()).toEqual(
      [...new Set(m.evidence.map((e) => e.entityId))].sort(),
    );
    const recent = await ok(owner, 'list_findings', { vault: NW, sort: 'recent', limit: 200 });
    const dates = recent.findings.map((f: Data) => f.lastMentionedAt);
    const mentioned = dates.filter((d: string | null) => d !== null);
    expect(dates).toEqual([...[...mentioned].sort().reverse(), ...dates.filter((d: string | null) => d === null)]); // never mentioned: null, last
  });

  it('list_findings refuses a cursor from another query', async () => {
    const page = await ok(owner, 'list_findings', { vault: NW, limit: 2 });
    const r = await call(owner, 'list_findings', { vault: NW, limit: 2, sort: 'recent', cursor: page.nextCursor });
    expect(r.error?.code).toBe('invalid_arguments');
    expect(r.error?.message).toContain('`cursor`');
  });

  it('list_conflicts lists open ones by default, with claims quoting the transcripts', async () => {
    const open = await ok(owner, 'list_conflicts', { vault: MH });
    expect(open.conflicts.map((c: Data) => c.id).sort()).toEqual(
      mh.conflicts
        .filter((c) => c.status === 'open')
        .map((c) => c.id)
        .sort(),
    );
    const all = await ok(owner, 'list_conflicts', { vault: MH, status: 'all' });
    expect(all.conflicts.length).toBe(mh.conflicts.length);
    const dismissed = mh.conflicts.find((c) => c.status === 'dismissed')!;
    const d = all.conflicts.find((c: Data) => c.id === dismissed.id);
    expect(d.note).toBe(dismissed.note);
    expect(d.claims.map((c: Data) => c.quote)).toEqual(dismissed.claims.map((c) => c.quote));
    expect(d.claims[0].meetingName).toBe(mh.meetings.find((m) => m.id === dismissed.claims[0]!.meetingId)!.name);
  });

  it('changes_since reports new entities, re-mentioned ones and new meetings', async () => {
    const extracted = nw.meetings
      .filter((m) => m.extractionStatus === 'extracted')
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    const cut = extracted[extracted.length - 2]!.startedAt; // before the last extracted meeting
    const r = await ok(owner, 'changes_since', { vault: NW, since: cut });
    const after = nw.meetings.filter((m) => Date.parse(m.startedAt) + m.durationMinutes * 60_000 > Date.parse(cut));
    expect(r.newMeetings.map((m: Data) => m.id).sort()).toEqual(after.map((m) => m.id).sort());
    expect(r.rementionedEntities.length).toBeGreaterThan(0);
    expect(r.newEntities.length).toBeGreaterThan(0);
    for (const e of r.newEntities) expect(e.firstSeenAt > r.since).toBe(true);
    const bad = await call(owner, 'changes_since', { vault: NW, since: 'last tuesday' });
    expect(bad.error?.message).toContain('`since`');
  });
});

describe('meetings and calendar', () => {
  it('list_meetings and get_meeting return metadata, notes and per-meeting mentions', async () => {
    const { meetings } = await ok(owner, 'list_meetings', { vault: NW });
    expect(meetings.length).toBe(nw.meetings.length);
    expect(meetings.map((m: Data) => m.date)).toEqual([...meetings.map((m: Data) => m.date)].sort().reverse());
    const pending = nw.meetings.find((m) => m.extractionStatus !== 'extracted')!;
    expect(meetings.find((m: Data) => m.id === pending.id).extractionStatus).toBe(pending.extractionStatus);
    const first = nw.meetings.find((m) => m.extractionStatus === 'extracted')!;
    const m = await ok(owner, 'get_meeting', { vault: NW, meetingId: first.id });
    expect(m.notes).toBe(first.notes);
    expect(m.attendees).toEqual(first.attendees);
    expect(m.entities.length).toBeGreaterThan(0);
    expect(m.entities.every((e: Data) => e.mentions >= 1)).toBe(true);
    expect((await ok(owner, 'get_meeting', { vault: NW, meetingId: pending.id })).entities).toEqual([]);
  });

  it('get_transcript pages through every turn, verbatim and in order', async () => {
    const m = mh.meetings[0]!;
    let offset: number | null = 0;
    let text = '';
    let total = 0;
    while (offset !== null) {
      const page: Data = await ok(owner, 'get_transcript', { vault: MH, meetingId: m.id, offset, limit: 3 });
      total = page.totalChunks;
      text += `${page.chunks.map((c: Data) => c.text).join('\n')}\n`;
      offset = page.nextOffset;
    }
    expect(total).toBeGreaterThan(1);
    const expected = m.transcript.map((t) => `${t.speaker}: ${t.text}`).join('\n');
    expect(text.trim()).toBe(expected);
    const tooMany = await call(owner, 'get_transcript', { vault: MH, meetingId: m.id, limit: 51 });
    expect(tooMany.error?.message).toContain('`limit`');
  });

  it('list_calendar covers 45 days back and everything ahead, with happened flags', async () => {
    const { events } = await ok(owner, 'list_calendar', { vault: NW });
    const now = Date.now();
    const from = now - 45 * 86_400_000;
    const expected = nw.calendar.filter((e) => Date.parse(e.startAt) >= from);
    expect(events.map((e: Data) => e.id).sort()).toEqual(expected.map((e) => e.id).sort());
    expect(expected.length).toBeLessThan(nw.calendar.length); // the fixture has older events, left out
    const ahead = events.filter((e: Data) => Date.parse(e.start) > now);
    expect(ahead.length).toBeGreaterThan(0);
    expect(ahead.every((e: Data) => e.happened === false)).toBe(true);
    const recorded = events.find((e: Data) => e.meetingId);
    expect(recorded.happened).toBe(true);
  });
});

describe('plan', () => {
  it('list_tasks filters by status (open = not done) and milestone', async () => {
    const open = await ok(owner, 'list_tasks', { vault: NW, status: 'open' });
    expect(open.tasks.length).toBe(nw.tasks.filter((t) => t.status !== 'done').length);
    const blocked = await ok(owner, 'list_tasks', { vault: NW, status: 'blocked' });
    expect(blocked.tasks.every((t: Data) => t.status === 'blocked')).toBe(true);
    const t = nw.tasks.find((x) => x.milestoneId && x.checklist.length)!;
    const byMilestone = await ok(owner, 'list_tasks', { vault: NW, milestoneId: t.milestoneId });
    const task = byMilestone.tasks.find((x: Data) => x.number === t.number);
    expect(task.identifier).toBe(`${nw.vault.boardPrefix}-${t.number}`);
    expect(task.checklist).toEqual(t.checklist);
    expect(task.owner).toBe(t.assigneeName ?? null);
    expect(byMilestone.tasks.length).toBe(nw.tasks.filter((x) => x.milestoneId === t.milestoneId).length);
    expect((await call(owner, 'list_tasks', { vault: NW, milestoneId: 'no-such-milestone' })).error?.code).toBe(
      'not_found',
    );
  });

  it('list_milestones tallies tasks; list_plan_steps shows proposers in order', async () => {
    const { milestones } = await ok(owner, 'list_milestones', { vault: NW });
    expect(nw.milestones.length).toBeGreaterThan(0);
    for (const m of nw.milestones) {
      const got = milestones.find((x: Data) => x.id === m.id);
      const tasks = nw.tasks.filter((t) => t.milestoneId === m.id);
      expect(got).toMatchObject({
        tasksTotal: tasks.length,
        tasksDone: tasks.filter((t) => t.status === 'done').length,
        targetDate: m.targetDate,
      });
    }
    const { steps } = await ok(owner, 'list_plan_steps', { vault: NW });
    expect(steps.map((s: Data) => s.id)).toEqual(nw['plan-steps'].map((s) => s.id));
    expect(new Set(steps.map((s: Data) => s.proposedBy))).toEqual(new Set(['agent', 'person']));
  });
});

describe('files and artifacts', () => {
  it('list_files and get_file serve public files only', async () => {
    const { files } = await ok(owner, 'list_files', { vault: MH });
    expect(files.map((f: Data) => f.id).sort()).toEqual(
      mh.files
        .filter((f) => f.visibility === 'public')
        .map((f) => f.id)
        .sort(),
    );
    const pub = mh.files.find((f) => f.visibility === 'public')!;
    const got = await ok(owner, 'get_file', { vault: MH, fileId: pub.id });
    expect(got.contentExcerpt).toBe(pub.content.slice(0, 4000));
    expect(got.downloadUrl).toContain(pub.id);
    const internal = mh.files.find((f) => f.visibility === 'internal')!;
    const hidden = await call(owner, 'get_file', { vault: MH, fileId: internal.id });
    const missing = await call(owner, 'get_file', { vault: MH, fileId: 'no-such-file' });
    expect(hidden.error?.code).toBe('not_found');
    expect(hidden.error?.message.replace(internal.id, 'X')).toBe(missing.error?.message.replace('no-such-file', 'X'));
  });

  it('find_artifact answers with an empty list before any action produced one', async () => {
    expect(await ok(owner, 'find_artifact', { vault: MH, kind: 'chart' })).toEqual({ artifacts: [] });
  });
});

describe('people and mail', () => {
  it('find_person looks up the registry by name, address or role', async () => {
    const p = nw.people.find((x) => x.title.split(' ').length > 1)!;
    expect(
      (await ok(owner, 'find_person', { vault: NW, query: p.name.split(' ')[1] })).people.map((x: Data) => x.email),
    ).toContain(p.email);
    expect((await ok(owner, 'find_person', { vault: NW, query: p.email.toUpperCase() })).people[0].email).toBe(p.email);
    expect((await ok(owner, 'find_person', { vault: NW, query: p.title })).people.map((x: Data) => x.email)).toContain(
      p.email,
    );
    expect((await ok(owner, 'find_person', { vault: NW })).people.length).toBe(nw.people.length);
  });

  it('list_sent_emails is newest first, limited, and narrows by recipient', async () => {
    const { emails } = await ok(owner, 'list_sent_emails', { vault: NW, limit: 3 });
    const sorted = [...nw['sent-emails']].sort((a, b) => b.sentAt.localeCompare(a.sentAt));
    expect(emails.map((e: Data) => e.id)).toEqual(sorted.slice(0, 3).map((e) => e.id));
    expect(emails[0].replyToThreadId).toBe(sorted[0]!.threadId);
    expect(emails[0].inReplyToMessageId).toBe(sorted[0]!.messageId);
    const to = sorted[0]!.to[0]!;
    const narrowed = await ok(owner, 'list_sent_emails', { vault: NW, to, limit: 25 });
    expect(narrowed.emails.length).toBe(nw['sent-emails'].filter((e) => [...e.to, ...e.cc].includes(to)).length);
    expect((await call(owner, 'list_sent_emails', { vault: NW, limit: 26 })).error?.message).toContain('`limit`');
  });

  it('find_email_thread understands the mailbox search syntax', async () => {
    const withAttachment = nw.mailbox.filter((t) => t.messages.some((m) => m.attachmentNames.length));
    const att = await ok(owner, 'find_email_thread', { vault: NW, query: 'has:attachment', limit: 20 });
    expect(withAttachment.length).toBeGreaterThan(0);
    for (const t of withAttachment) expect(att.threads.map((x: Data) => x.threadId)).toContain(t.id);
    const thread = nw.mailbox.find((t) => t.messages.length >= 2)!;
    const sender = thread.messages[1]!.from;
    const word = thread.subject.split(' ').find((w) => w.length >= 5)!;
    const r = await ok(owner, 'find_email_thread', { vault: NW, query: `from:${sender} subject:${word}` });
    expect(r.threads[0].threadId).toBe(thread.id);
    expect(r.threads[0].replyToThreadId).toBe(thread.id);
    const newest = await ok(owner, 'find_email_thread', { vault: NW, query: 'newer_than:3650d', limit: 20 });
    const times = newest.threads.map((t: Data) => t.lastMessageAt);
    expect(times).toEqual([...times].sort().reverse());
    const old = await ok(owner, 'find_email_thread', { vault: NW, query: 'older_than:45d', limit: 20 });
    expect(old.threads.length).toBeGreaterThan(0);
    const bad = await call(owner, 'find_email_thread', { vault: NW, query: 'newer_than:soon' });
    expect(bad.error?.code).toBe('invalid_arguments');
    expect(bad.error?.message).toContain('newer_than');
  });

  it("search_agent_memory finds the agent's past conversations", async () => {
    const c = mh.conversations[0]!;
    const asked = c.messages.find((m) => m.role === 'person')!;
    const words = asked.text
      .split(/\s+/)
      .filter((w) => w.replace(/\W/g, '').length >= 6)
      .slice(0, 4)
      .join(' ');
    const r = await ok(owner, 'search_agent_memory', { vault: MH, query: words });
    expect(r.results.map((x: Data) => x.conversationId)).toContain(c.id);
    const onlyOne = await ok(owner, 'search_agent_memory', { vault: MH, query: words, personEmail: c.personEmail });
    expect(onlyOne.results.every((x: Data) => x.personEmail === c.personEmail)).toBe(true);
  });
});

describe('errors', () => {
  it('names the wrong field and what was expected', async () => {
    const r = await call(owner, 'list_findings', { vault: NW, limit: 500, sort: 'alphabetical', colour: 'red' });
    expect(r.error?.code).toBe('invalid_arguments');
    expect(r.error?.message).toContain('`limit`');
    expect(r.error?.message).toContain('`sort`');
    expect(r.error?.message).toContain('`colour`: unknown field');
    const missing = await call(owner, 'get_entity', { vault: NW });
    expect(missing.error?.message).toContain('`entityId`: required');
    const wrongType = await call(owner, 'get_entity', { vault: NW, entityId: 42 });
    expect(wrongType.error?.message).toMatch(/`entityId`: expected string/);
  });

  it('asks for a vault when the key reaches several, and hides vaults it cannot reach', async () => {
    const r = await call(owner, 'stats');
    expect(r.error?.code).toBe('vault_required');
    expect(r.error?.message).toContain(nw.vault.name);
    expect(r.error?.message).toContain(mh.vault.name);
    expect((await call(owner, 'stats', { vault: 'no-such-vault' })).error?.code).toBe('vault_not_found');
    expect((await ok(owner, 'stats', { vault: nw.vault.name })).vault.id).toBe(NW); // exact name works too
  });

  it('a member key reaches its own vault only; another vault looks exactly like a missing one', async () => {
    const member = await connect(store, store.memberKey(NW));
    try {
      const { vaults } = await ok(member, 'list_vaults');
      expect(vaults.map((v: Data) => v.id)).toEqual([NW]);
      expect((await ok(member, 'stats')).vault.id).toBe(NW); // one vault: `vault` may be omitted
      const other = await call(member, 'stats', { vault: MH });
      const none = await call(member, 'stats', { vault: 'zz-missing' });
      expect(other.error?.code).toBe('vault_not_found');
      expect(other.error?.message.replace(MH, 'X')).toBe(none.error?.message.replace('zz-missing', 'X'));
      const scope = await ok(member, 'suggest_vault_scope', { conversation: `Tell me about ${mh.vault.client}` });
      expect(scope.candidates.map((c: Data) => c.id)).toEqual([NW]);
    } finally {
      await member.close();
    }
  });

  it('an unknown tool is a tool_not_found error', async () => {
    expect((await call(owner, 'delete_everything', {})).error?.code).toBe('tool_not_found');
  });

  it('a revoked key stops working at once', async () => {
    const { dir } = store;
    const { cli } = await import('../helpers.js');
    const created = JSON.parse(
      cli(['keys', 'create', '--vault', '*', '--json', '--name', 'to revoke', '--data-dir', dir]),
    );
    const client = await connect(store, created.key);
    try {
      expect((await ok(client, 'list_vaults')).vaults.length).toBe(2);
      cli(['keys', 'revoke', created.id, '--data-dir', dir]);
      const r = await call(client, 'list_vaults');
      expect(r.error?.code).toBe('unauthorized');
      expect(r.error?.message).toContain('revoked');
    } finally {
      await client.close();
    }
  });
});

describe('prompts and resources', () => {
  it('offers the orientation prompt, carrying the conversation', async () => {
    const { prompts } = await owner.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['orient']);
    const got = await owner.getPrompt({
      name: 'orient',
      arguments: { conversation: 'We need the Northwind dock numbers.' },
    });
    const text = (got.messages[0]!.content as { text: string }).text;
    for (const step of [
      'list_vaults',
      'suggest_vault_scope',
      'stats',
      'get_brief',
      'We need the Northwind dock numbers.',
    ])
      expect(text).toContain(step);
  });

  it('lists the latest briefs as resources and reads them as markdown', async () => {
    const { resources } = await owner.listResources();
    const uri = `vault-tools://vaults/${MH}/briefs/weekly-digest`;
    expect(resources.map((r) => r.uri)).toContain(uri);
    const read = await owner.readResource({ uri });
    const latest = mh.briefs
      .filter((b) => b.kind === 'weekly-digest')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]!;
    const text = (read.contents[0] as { text: string }).text;
    // One heading, the brief's title; the body's own opening heading is not repeated under it.
    expect(text.startsWith(`# ${latest.title}\n\n_${latest.createdAt}_\n\n## `)).toBe(true);
    expect(text.match(/^# /gm)).toHaveLength(1);
    expect(text).toContain(latest.markdown.replace(/^# [^\n]*\n+/, ''));
    await expect(owner.readResource({ uri: 'vault-tools://vaults/nope/briefs/daily' })).rejects.toThrow(/no vault/i);
  });
});
