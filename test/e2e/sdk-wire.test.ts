/**
 * The hosted service's published SDK, on the wire, against a real `serve --http` on a demo store: for every tool,
 * the request body its request type describes (openantares/alpha-typescript, src/api/resources/{knowledge,actions}/
 * client/requests/*.ts: the field names exactly as written there, `person_email` snake_case, `sources` one
 * string, `identifier` a string or a number), sent as `POST /v1/tools/<name>` with a bearer key as its wire tests
 * send it. Each answer must be what the SDK's response type reads (200 `{data: object}`) and what the tool's
 * output schema promises. Every optional field of each request type is sent at least once.
 */
import { describe, expect, it } from 'vitest';
import { toolsByName, tools } from '../../src/catalog/index.js';
import { fixture } from '../helpers.js';
import { callTool, demoServer, http } from '../http-helpers.js';

const NW = 'northwind-logistics';
const MH = 'meridian-health';

const demo = demoServer();

const nw = fixture('northwind');
const mh = fixture('meridian');
const entity = nw.entities.find((e) => nw.edges.some((x) => x.from === e.id))!;
const meeting = nw.meetings.find((m) => m.extractionStatus === 'extracted' && m.evidence.length)!;
const file = nw.files.find((f) => f.visibility === 'public')!;
const conflict = nw.conflicts.find((c) => c.status === 'open')!;
const milestone = nw.milestones[0]!;
const [fiona, daniel] = ['fiona.gallagher', 'daniel.kim'].map((p) => nw.people.find((x) => x.email.startsWith(p))!);
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000);
/** An ISO datetime with a -03:00 offset, the form of the SDK's own example for startIso. */
const withOffset = (d: Date) => new Date(d.getTime() - 3 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '-03:00');

/** What earlier answers gave (ids the SDK user would read from them), by step name. */
const seen = new Map<string, any>();

interface Step {
  name: string;
  tool: string;
  body: () => Record<string, unknown>;
}

/** In order: later bodies use ids from earlier answers, as an SDK user's code would. */
const steps: Step[] = [
  // Knowledge (KnowledgeClient)
  {
    name: 'suggest_vault_scope',
    tool: 'suggest_vault_scope',
    body: () => ({ conversation: `What did ${fiona!.name} say about dock scheduling at ${nw.vault.client}?` }),
  },
  {
    name: 'search_knowledge',
    tool: 'search_knowledge',
    body: () => ({ vault: NW, query: entity.name, type: entity.type }),
  },
  { name: 'get_entity', tool: 'get_entity', body: () => ({ vault: NW, entityId: entity.id, includeEvidence: true }) },
  { name: 'expand_graph', tool: 'expand_graph', body: () => ({ vault: NW, entityId: entity.id, depth: 2 }) },
  {
    name: 'search_transcripts',
    tool: 'search_transcripts',
    body: () => ({ vault: NW, query: 'why are carriers waiting at the dock' }),
  },
  {
    name: 'get_transcript',
    tool: 'get_transcript',
    body: () => ({ vault: NW, meetingId: meeting.id, offset: 0, limit: 20 }),
  },
  { name: 'list_meetings', tool: 'list_meetings', body: () => ({ vault: NW }) },
  { name: 'get_meeting', tool: 'get_meeting', body: () => ({ vault: NW, meetingId: meeting.id }) },
  { name: 'list_calendar', tool: 'list_calendar', body: () => ({ vault: NW }) },
  {
    name: 'list_findings',
    tool: 'list_findings',
    body: () => ({ vault: NW, sort: 'recent', limit: 5, compact: true }),
  },
  {
    name: 'list_findings (next page)',
    tool: 'list_findings',
    body: () => ({ vault: NW, sort: 'recent', limit: 5, compact: true, cursor: seen.get('list_findings').nextCursor }),
  },
  {
    name: 'list_findings (every filter)',
    tool: 'list_findings',
    body: () => ({
      vault: NW,
      type: entity.type,
      source: 'meeting',
      meetingId: meeting.id,
      sort: 'mentions',
      limit: 200,
      compact: false,
    }),
  },
  { name: 'list_conflicts', tool: 'list_conflicts', body: () => ({ vault: NW, status: 'all' }) },
  { name: 'list_tasks', tool: 'list_tasks', body: () => ({ vault: NW, status: 'open', milestoneId: milestone.id }) },
  { name: 'list_milestones', tool: 'list_milestones', body: () => ({ vault: NW }) },
  { name: 'list_plan_steps', tool: 'list_plan_steps', body: () => ({ vault: NW }) },
  { name: 'list_files', tool: 'list_files', body: () => ({ vault: NW }) },
  { name: 'get_file', tool: 'get_file', body: () => ({ vault: NW, fileId: file.id }) },
  {
    name: 'changes_since',
    tool: 'changes_since',
    body: () => ({
      vault: NW,
      since: inDays(-14)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    }),
  },
  { name: 'stats', tool: 'stats', body: () => ({ vault: NW }) },
  { name: 'get_brief', tool: 'get_brief', body: () => ({ vault: NW, kind: 'weekly-plan' }) },
  { name: 'find_person', tool: 'find_person', body: () => ({ vault: NW, query: 'Gallagher' }) },
  { name: 'list_sent_emails', tool: 'list_sent_emails', body: () => ({ vault: NW, to: fiona!.email, limit: 10 }) },
  {
    name: 'find_email_thread',
    tool: 'find_email_thread',
    body: () => ({ vault: NW, query: `to:${fiona!.email} newer_than:120d`, limit: 5 }),
  },
  {
    name: 'search_agent_memory',
    tool: 'search_agent_memory',
    body: () => ({
      vault: MH,
      query: 'bed turnaround',
      person_email: mh.conversations.find((c) => c.personEmail)!.personEmail,
      limit: 12,
    }),
  },
  // Actions (ActionsClient)
  {
    name: 'resolve_conflict',
    tool: 'resolve_conflict',
    body: () => ({
      vault: NW,
      conflictId: conflict.id,
      status: 'resolved',
      note: 'Validated with the client on site.',
    }),
  },
  {
    name: 'add_task',
    tool: 'add_task',
    body: () => ({
      vault: NW,
      title: 'Confirm the dock-to-stock baseline',
      description: 'Agree one measure with the site.',
      assigneeName: daniel!.name,
      estimate: 's',
      priority: 'high',
      labels: ['baseline'],
      checklist: [{ text: 'Pull the WMS extract', done: false }, { text: 'Review with the site' }],
      dueDate: inDays(10).toISOString().slice(0, 10),
      milestoneId: milestone.id,
    }),
  },
  {
    name: 'update_task (identifier string)',
    tool: 'update_task',
    body: () => ({ vault: NW, identifier: seen.get('add_task').identifier, status: 'doing' }),
  },
  {
    name: 'update_task (identifier number, every field)',
    tool: 'update_task',
    body: () => ({
      vault: NW,
      identifier: seen.get('add_task').number,
      title: 'Confirm the dock-to-stock baseline with Leeds',
      description: null,
      status: 'blocked',
      assigneeName: null,
      estimate: null,
      priority: 'urgent',
      labels: [],
      checklist: [],
      dueDate: null,
      milestoneId: null,
    }),
  },
  {
    name: 'update_task (taskId)',
    tool: 'update_task',
    body: () => ({ vault: NW, taskId: seen.get('add_task').id, status: 'done' }),
  },
  {
    name: 'schedule_meeting',
    tool: 'schedule_meeting',
    body: () => ({
      vault: NW,
      title: 'Dock scheduling workshop',
      description: 'Agenda to follow.',
      startIso: withOffset(inDays(7)),
      durationMinutes: 45,
      attendees: [fiona!.email, daniel!.email],
    }),
  },
  {
    name: 'render_chart',
    tool: 'render_chart',
    body: () => ({
      vault: NW,
      title: 'Findings by type',
      vega_lite_spec: {
        data: {
          values: [
            { type: 'system', n: 11 },
            { type: 'problem', n: 9 },
            { type: 'kpi', n: 7 },
          ],
        },
        mark: 'bar',
        encoding: { y: { field: 'type', type: 'nominal', sort: '-x' }, x: { field: 'n', type: 'quantitative' } },
      },
    }),
  },
  { name: 'export_report', tool: 'export_report', body: () => ({ vault: NW, dataset: 'conflicts', format: 'csv' }) },
  {
    name: 'export_workbook',
    tool: 'export_workbook',
    body: () => ({
      vault: NW,
      title: 'Weekly numbers',
      sheets: [
        {
          name: 'KPIs',
          columns: [
            { header: 'KPI', key: 'kpi' },
            { header: 'Value', key: 'value', numFmt: '0.0%' },
          ],
          rows: [{ kpi: 'Inventory accuracy', value: 0.961 }],
        },
      ],
      sources: 'stats tool',
    }),
  },
  {
    name: 'find_artifact',
    tool: 'find_artifact',
    body: () => ({ vault: NW, query: 'Weekly numbers', kind: 'workbook', limit: 10 }),
  },
  {
    name: 'send_email',
    tool: 'send_email',
    body: () => {
      const last = seen.get('list_sent_emails').emails[0];
      return {
        vault: NW,
        to: fiona!.email,
        subject: 'Weekly numbers',
        body: 'Hello Fiona,\n\nThe workbook is attached.\n',
        cc: [daniel!.email],
        attachmentIds: [seen.get('export_workbook').artifactId, seen.get('render_chart').artifactId],
        sendAs: 'agent',
        replyToThreadId: last.replyToThreadId,
        inReplyToMessageId: last.inReplyToMessageId,
        asDraft: true,
      };
    },
  },
];

describe('the SDK request bodies, sent as its client sends them', () => {
  it("cover every tool of the hosted catalog (list_vaults is the SDK's GET /v1/vaults, checked below)", () => {
    // A tool local to vault-tools (export_deck: sync.localOnly) has no call in the hosted service's SDK.
    expect(new Set([...steps.map((s) => s.tool), 'list_vaults'])).toEqual(
      new Set(tools.filter((t) => !t.sync.localOnly).map((t) => t.name)),
    );
  });

  for (const step of steps) {
    it(step.name, async () => {
      const body = step.body();
      const r = await callTool(demo.server.url, step.tool, body, demo.store.ownerKey);
      expect(r.status, r.body).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const json = r.json();
      expect(Object.keys(json)).toEqual(['data']); // DataResponse: {data}
      expect(typeof json.data).toBe('object');
      const checked = toolsByName.get(step.tool)!.output.safeParse(json.data);
      expect(checked.error?.issues ?? [], JSON.stringify(checked.error?.issues)).toEqual([]);
      seen.set(step.name, json.data);
    });
  }

  it('answered with what each body asked for', () => {
    expect(seen.get('suggest_vault_scope').selectedVaultIds).toEqual([NW]);
    expect(seen.get('search_agent_memory').results.length).toBeGreaterThan(0);
    expect(
      new Set(seen.get('search_agent_memory').results.map((x: { personEmail: string }) => x.personEmail)).size,
    ).toBe(1);
    expect(seen.get('list_findings (next page)').findings[0].id).not.toBe(seen.get('list_findings').findings[0].id);
    expect(seen.get('update_task (taskId)')).toMatchObject({
      id: seen.get('add_task').id,
      status: 'done',
      owner: null,
      labels: [],
    });
    expect(seen.get('schedule_meeting').attendees).toEqual([fiona!.email, daniel!.email]);
    expect(seen.get('find_artifact').artifacts.map((a: { artifactId: string }) => a.artifactId)).toContain(
      seen.get('export_workbook').artifactId,
    );
    expect(seen.get('send_email')).toMatchObject({
      status: 'draft',
      replyToThreadId: seen.get('list_sent_emails').emails[0].replyToThreadId,
    });
  });

  it("GET /v1/vaults and GET /v1 answer the SDK's VaultsClient and MetadataClient", async () => {
    const vaults = await http(demo.server.url, {
      path: '/v1/vaults',
      headers: { authorization: `Bearer ${demo.store.ownerKey}` },
    });
    expect(vaults.status).toBe(200);
    expect(toolsByName.get('list_vaults')!.output.safeParse(vaults.json().data).success).toBe(true);
    expect(
      vaults
        .json()
        .data.vaults.map((v: { id: string }) => v.id)
        .sort(),
    ).toEqual([MH, NW]);
    const index = (await http(demo.server.url, { path: '/v1' })).json();
    expect(Object.keys(index).sort()).toEqual(['authentication', 'endpoints', 'name', 'version']);
    expect(Object.keys(index.endpoints).sort()).toEqual(['invokeTool', 'mcp', 'openapi', 'tools', 'vaults']);
  });

  it("an error answers with the SDK's ErrorResponse: {error: {code, message, requestId}}", async () => {
    const r = await callTool(
      demo.server.url,
      'get_entity',
      { vault: NW, entityId: 'no-such-entity' },
      demo.store.ownerKey,
    );
    expect(r.status).toBe(404);
    expect(r.json()).toEqual({
      error: { code: 'not_found', message: expect.any(String), requestId: r.headers['x-request-id'] },
    });
  });
});
