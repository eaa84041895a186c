/**
 * The write tools through the service path every surface takes (the in-process harness: validation, access,
 * errors, as over MCP and REST): every state change they make, every refusal, the outbox entry each write
 * leaves, and the .eml a sent message writes. How surfaces serve the files is mcp-artifacts.test.ts's part.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, fixture } from '../helpers.js';
import { harness, type Harness } from '../harness.js';
import type { VaultFixture } from '../../src/vault-format/schema.js';
import { featureFindings } from '../../src/render/export/featured.js';

const NW = 'northwind-logistics';
let h: Harness;
let nw: VaultFixture;
const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

beforeAll(() => {
  h = harness();
  nw = fixture('northwind');
});
afterAll(async () => {
  await h?.close();
});

const ok = (tool: string, args: Record<string, unknown>) => h.ok(tool, { vault: NW, ...args });

async function refused(tool: string, args: Record<string, unknown>, status: number, code: string) {
  const r = await h.call(tool, { vault: NW, ...args });
  if (r.ok) throw new Error(`${tool} accepted ${JSON.stringify(args)}`);
  expect({ status: r.status, code: r.code }, r.message).toEqual({ status, code });
  return r.message;
}

const outbox = () => h.outbox();
/** An artifact's bytes: without a listener its link is the file itself. */
const download = (url: string) => readFileSync(fileURLToPath(url));

describe('resolve_conflict', () => {
  it('follows the state table and keeps the history', async () => {
    const c = nw.conflicts.find((x) => x.status === 'open')!;
    const resolved = await ok('resolve_conflict', {
      conflictId: c.id,
      status: 'resolved',
      note: 'Cycle counts confirm 96.1%.',
    });
    expect(resolved).toMatchObject({
      id: c.id,
      status: 'resolved',
      previousStatus: 'open',
      note: 'Cycle counts confirm 96.1%.',
    });
    expect(resolved.history.at(-1)).toMatchObject({
      fromStatus: 'open',
      toStatus: 'resolved',
      note: 'Cycle counts confirm 96.1%.',
      by: 'owner',
    });
    expect((await ok('list_conflicts', { status: 'resolved' })).conflicts.map((x: { id: string }) => x.id)).toContain(
      c.id,
    );
    expect(
      (await ok('get_entity', { entityId: c.entityId })).conflicts?.map((x: { id: string }) => x.id) ?? [],
    ).not.toContain(c.id);
    const reopened = await ok('resolve_conflict', { conflictId: c.id, status: 'open' });
    expect(reopened).toMatchObject({ status: 'open', previousStatus: 'resolved', note: null });
    expect(reopened.history.map((h: { toStatus: string }) => h.toStatus)).toEqual(['open', 'resolved', 'open']);
    expect(await refused('resolve_conflict', { conflictId: c.id, status: 'open' }, 400, 'invalid_arguments')).toContain(
      'already open',
    );
    await refused('resolve_conflict', { conflictId: 'no-such-conflict', status: 'dismissed' }, 404, 'not_found');
    await refused('resolve_conflict', { conflictId: c.id, status: 'closed' }, 400, 'invalid_arguments');
    const dismissed = nw.conflicts.find((x) => x.status === 'dismissed')!;
    expect(
      (await ok('resolve_conflict', { conflictId: dismissed.id, status: 'resolved', note: 'It was real after all.' }))
        .previousStatus,
    ).toBe('dismissed');
    const entries = outbox().filter((e) => e.tool === 'resolve_conflict');
    expect(entries.length).toBe(3); // refusals leave nothing
    expect(entries[0]).toMatchObject({
      vaultId: NW,
      args: { conflictId: c.id, status: 'resolved', note: 'Cycle counts confirm 96.1%.' },
      keyName: 'owner',
    });
  });
});

describe('add_task and update_task', () => {
  it('allocates the next identifier and keeps milestone tallies right', async () => {
    const milestone = nw.milestones[0]!;
    const before = (await ok('list_milestones', {})).milestones.find((m: { id: string }) => m.id === milestone.id);
    const next = Math.max(...nw.tasks.map((t) => t.number)) + 1;
    const t = await ok('add_task', {
      title: 'Draft the dock scheduling options paper',
      description: 'Three options with costs.',
      assigneeName: 'Tom Becker',
      estimate: 'm',
      priority: 'high',
      labels: ['dock', 'options'],
      checklist: [{ text: 'Collect carrier data' }, { text: 'Cost each option', done: true }],
      dueDate: future(14).slice(0, 10),
      milestoneId: milestone.id,
    });
    expect(t).toMatchObject({
      identifier: `NWL-${next}`,
      number: next,
      status: 'todo',
      owner: 'Tom Becker',
      priority: 'high',
      milestoneTitle: milestone.title,
    });
    expect(t.checklist).toEqual([
      { text: 'Collect carrier data', done: false },
      { text: 'Cost each option', done: true },
    ]);
    expect((await ok('add_task', { title: 'Another' })).identifier).toBe(`NWL-${next + 1}`);

    const done = await ok('update_task', { identifier: `nwl-${next}`, status: 'done' });
    expect(done.changed).toEqual(['status']);
    const after = (await ok('list_milestones', {})).milestones.find((m: { id: string }) => m.id === milestone.id);
    expect(after.tasksTotal).toBe(before.tasksTotal + 1);
    expect(after.tasksDone).toBe(before.tasksDone + 1);

    const cleared = await ok('update_task', {
      identifier: next,
      assigneeName: null,
      labels: [],
      checklist: [],
      milestoneId: null,
      dueDate: null,
      estimate: null,
    });
    expect(cleared).toMatchObject({
      owner: null,
      labels: [],
      checklist: [],
      milestoneId: null,
      dueDate: null,
      estimate: null,
      title: 'Draft the dock scheduling options paper',
    });
    const byId = await ok('update_task', { taskId: t.id, title: 'Dock scheduling options paper' });
    expect(byId.title).toBe('Dock scheduling options paper');
    expect(
      (await ok('list_milestones', {})).milestones.find((m: { id: string }) => m.id === milestone.id).tasksTotal,
    ).toBe(before.tasksTotal);
  });

  it('refuses what it cannot do, naming the field', async () => {
    expect(await refused('add_task', { title: 'x', milestoneId: 'ms-nowhere' }, 404, 'not_found')).toContain(
      'ms-nowhere',
    );
    expect(await refused('add_task', { title: 'x', dueDate: 'next friday' }, 400, 'invalid_arguments')).toContain(
      '`dueDate`',
    );
    expect(await refused('add_task', { title: 'x', estimate: 'huge' }, 400, 'invalid_arguments')).toContain(
      '`estimate`',
    );
    expect(await refused('update_task', { status: 'done' }, 400, 'invalid_arguments')).toContain('`identifier`');
    expect(await refused('update_task', { identifier: 'NWL-1' }, 400, 'invalid_arguments')).toContain(
      'nothing to change',
    );
    await refused('update_task', { identifier: 'ACME-1', status: 'done' }, 404, 'not_found');
    await refused('update_task', { identifier: 9999, status: 'done' }, 404, 'not_found');
    expect(await refused('update_task', { identifier: 'NWL-1', title: null }, 400, 'invalid_arguments')).toContain(
      '`title`',
    );
  });
});

describe('schedule_meeting', () => {
  it('creates an event ahead, with a link, for registry addresses only', async () => {
    const people = nw.people.slice(0, 2).map((p) => p.email);
    const start = future(9).replace('Z', '+01:00');
    const e = await ok('schedule_meeting', {
      title: 'Options review',
      startIso: start,
      attendees: people,
      description: 'Walk through the options.',
    });
    expect(e).toMatchObject({
      title: 'Options review',
      durationMinutes: 30,
      happened: false,
      attendees: people,
      pendingSync: true,
    });
    expect(Date.parse(e.start)).toBe(Date.parse(start));
    expect(e.videoLink).toMatch(/^https:\/\//);
    expect((await ok('list_calendar', {})).events.map((x: { id: string }) => x.id)).toContain(e.id);
    expect(
      await refused(
        'schedule_meeting',
        { title: 'x', startIso: future(3), attendees: [people[0], 'guess@northwind.example'] },
        400,
        'invalid_arguments',
      ),
    ).toContain('guess@northwind.example');
    expect(
      await refused(
        'schedule_meeting',
        { title: 'x', startIso: future(3).replace('Z', ''), attendees: people },
        400,
        'invalid_arguments',
      ),
    ).toContain('`startIso`');
    expect(
      await refused(
        'schedule_meeting',
        { title: 'x', startIso: '2020-01-01T10:00:00Z', attendees: people },
        400,
        'invalid_arguments',
      ),
    ).toContain('in the past');
    expect(
      await refused(
        'schedule_meeting',
        { title: 'x', startIso: future(3), attendees: people, durationMinutes: 10 },
        400,
        'invalid_arguments',
      ),
    ).toContain('`durationMinutes`');
    expect(
      await refused('schedule_meeting', { title: 'x', startIso: future(3), attendees: [] }, 400, 'invalid_arguments'),
    ).toContain('`attendees`');
  });
});

describe('send_email', () => {
  const artifact = (id: string, name: string, bytes: Buffer) => {
    const dir = join(h.dir, 'artifacts', NW, id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), bytes);
    h.db
      .prepare(
        `INSERT INTO artifacts (vault_id, id, kind, title, file_name, mime_type, size_bytes, path, created_at) VALUES (?, ?, 'csv', ?, ?, 'text/csv', ?, ?, ?)`,
      )
      .run(NW, id, name, name, bytes.length, join('artifacts', NW, id, name), new Date().toISOString());
  };

  it('sends to registry addresses, attaches artifacts, writes the .eml and files it in the mailbox', async () => {
    const bytes = Buffer.from('name,value\nDock,3\n');
    artifact('art-mail-1', 'dock.csv', bytes);
    const [a, b] = nw.people;
    const sent = await ok('send_email', {
      to: [a!.email],
      cc: [b!.email],
      subject: 'Dock figures — résumé',
      body: 'Hello,\nFigures attached.\n',
      attachmentIds: ['art-mail-1'],
    });
    expect(sent).toMatchObject({
      status: 'sent',
      to: [a!.email],
      cc: [b!.email],
      attachments: [{ artifactId: 'art-mail-1', fileName: 'dock.csv' }],
    });
    const eml = readFileSync(sent.emlPath, 'utf8');
    expect(eml).toContain(`To: ${a!.email}\r\n`);
    expect(eml).toContain(`Message-ID: ${sent.messageId}\r\n`);
    expect(eml).toContain('Subject: =?UTF-8?B?');
    expect(eml).toContain('filename="dock.csv"');
    expect(eml).toContain(bytes.toString('base64'));
    expect((await ok('list_sent_emails', { limit: 1 })).emails[0].id).toBe(sent.id);
    const found = await ok('find_email_thread', { query: 'subject:"dock figures"' });
    expect(found.threads[0].threadId).toBe(sent.replyToThreadId);
  });

  it('keeps a reply in its thread', async () => {
    const thread = nw.mailbox.find((t) => t.messages.length >= 2)!;
    const last = thread.messages.at(-1)!;
    const reply = await ok('send_email', {
      to: nw.people[0]!.email,
      subject: `Re: ${thread.subject}`,
      body: 'Thanks.',
      replyToThreadId: thread.id,
      inReplyToMessageId: last.id,
    });
    expect(reply.replyToThreadId).toBe(thread.id);
    expect(reply.repliesTo).toBe(last.id);
    expect(readFileSync(reply.emlPath, 'utf8')).toContain(`In-Reply-To: ${last.id}\r\n`);
    const t = (await ok('find_email_thread', { query: 'newer_than:1d', limit: 20 })).threads.find(
      (x: { threadId: string }) => x.threadId === thread.id,
    );
    expect(t.messageCount).toBe(thread.messages.length + 1);
    const onlyMessage = await ok('send_email', {
      to: nw.people[0]!.email,
      subject: 'Re: again',
      body: 'One more.',
      inReplyToMessageId: last.id,
    });
    expect(onlyMessage.replyToThreadId).toBe(thread.id); // the thread follows from the message
  });

  it('stores a draft without sending it', async () => {
    const draft = await ok('send_email', {
      to: nw.people[1]!.email,
      subject: 'Draft only',
      body: 'Not yet.',
      asDraft: true,
    });
    expect(draft.status).toBe('draft');
    expect(existsSync(draft.emlPath)).toBe(true);
    expect((await ok('list_sent_emails', { limit: 25 })).emails.map((e: { id: string }) => e.id)).not.toContain(
      draft.id,
    );
  });

  it('refuses unknown recipients, foreign attachments, too many attachments for sendAs me, and unknown threads', async () => {
    const to = nw.people[0]!.email;
    expect(
      await refused('send_email', { to: 'someone@else.example', subject: 's', body: 'b' }, 400, 'invalid_arguments'),
    ).toContain('someone@else.example');
    expect(
      await refused('send_email', { to, cc: ['x@y.example'], subject: 's', body: 'b' }, 400, 'invalid_arguments'),
    ).toContain('`cc`');
    await refused('send_email', { to, subject: 's', body: 'b', attachmentIds: ['art-nowhere'] }, 404, 'not_found');
    artifact('art-mail-2', 'two.csv', Buffer.from('a\n1\n'));
    expect(
      await refused(
        'send_email',
        { to, subject: 's', body: 'b', sendAs: 'me', attachmentIds: ['art-mail-1', 'art-mail-2'] },
        400,
        'invalid_arguments',
      ),
    ).toContain('one attachment');
    await refused('send_email', { to, subject: 's', body: 'b', replyToThreadId: 'thr-nowhere' }, 404, 'not_found');
    await refused(
      'send_email',
      { to, subject: 's', body: 'b', inReplyToMessageId: '<nope@example>' },
      404,
      'not_found',
    );
    await refused('send_email', { to, subject: '', body: 'b' }, 400, 'invalid_arguments');
  });
});

describe('the outbox', () => {
  it('holds every successful write in order, with its arguments, and nothing for refusals', async () => {
    const entries = outbox();
    const tools = new Set(entries.map((e) => e.tool));
    for (const t of ['resolve_conflict', 'add_task', 'update_task', 'schedule_meeting', 'send_email'])
      expect(tools.has(t), t).toBe(true);
    const seqs = entries.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(entries.every((e) => e.vaultId === NW && !('vault' in e.args))).toBe(true);
    expect(cli(['outbox', '--data-dir', h.dir])).toContain('send_email');
  });
});

describe('render_chart', () => {
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    data: {
      values: [
        { system: 'LogiTrack', issues: 14 },
        { system: 'DockFlow', issues: 9 },
        { system: 'SAP B1', issues: 4 },
      ],
    },
    mark: 'bar',
    encoding: { y: { field: 'system', type: 'nominal', sort: '-x' }, x: { field: 'issues', type: 'quantitative' } },
  };

  it('stores a PNG artifact that find_artifact finds', async () => {
    const chart = await ok('render_chart', { title: 'Issues by system', vega_lite_spec: spec });
    expect(chart).toMatchObject({ mimeType: 'image/png', title: 'Issues by system', warnings: [] });
    const bytes = download(chart.url);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.readUInt32BE(16)).toBe(chart.width); // IHDR
    expect(bytes.readUInt32BE(20)).toBe(chart.height);
    expect(bytes.length).toBe(chart.bytes);
    const found = await ok('find_artifact', { query: 'issues system', kind: 'chart' });
    expect(found.artifacts[0].artifactId).toBe(chart.artifactId);
    // Another vault's member learns nothing of it: the same answer as for a vault that does not exist.
    const stranger = await h.call('find_artifact', { vault: NW, query: 'issues system' }, 'outsider');
    expect(stranger).toMatchObject({ ok: false, status: 404, code: 'vault_not_found' });
  });

  it('refuses colours and external data, naming the JSON path', async () => {
    const coloured = { ...spec, mark: { type: 'bar', color: 'red' } };
    expect(await refused('render_chart', { title: 't', vega_lite_spec: coloured }, 400, 'invalid_arguments')).toContain(
      '`vega_lite_spec.mark.color`',
    );
    const scheme = {
      ...spec,
      encoding: { ...spec.encoding, color: { field: 'system', type: 'nominal', scale: { scheme: 'reds' } } },
    };
    expect(await refused('render_chart', { title: 't', vega_lite_spec: scheme }, 400, 'invalid_arguments')).toContain(
      '`vega_lite_spec.encoding.color.scale.scheme`',
    );
    const remote = { ...spec, data: { url: 'https://example.com/data.csv' } };
    expect(await refused('render_chart', { title: 't', vega_lite_spec: remote }, 400, 'invalid_arguments')).toContain(
      '`vega_lite_spec.data.url`',
    );
  });

  it('gives lint warnings for the spec’s own advice', async () => {
    const months = {
      data: {
        values: [
          { d: '2026-01-05', n: 3 },
          { d: '2026-02-05', n: 5 },
        ],
      },
      mark: 'bar',
      encoding: { x: { field: 'd', type: 'temporal', timeUnit: 'month' }, y: { field: 'n', type: 'quantitative' } },
    };
    const chart = await ok('render_chart', { title: 'Monthly', vega_lite_spec: months });
    expect(chart.warnings.join(' ')).toMatch(/yearmonth/);
  });
});

describe('export_report and export_workbook', () => {
  it('xlsx: the whole findings dataset, checked cell by cell with a real reader', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const r = await ok('export_report', {});
    expect(r).toMatchObject({ kind: 'workbook', rows: nw.entities.length });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(download(r.url) as unknown as ArrayBuffer);
    const sheet = wb.worksheets.find((w) => w.rowCount > 1)!;
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toEqual([
      'Name',
      'Type',
      'Mentions',
      'Last mentioned',
      'First seen',
      'Source',
      'Aliases',
      'Description',
      'Id',
    ]);
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.rowCount).toBe(nw.entities.length + 1);
    const { findings } = await ok('list_findings', { limit: 3 });
    findings.forEach(
      (
        f: { id: string; name: string; mentionCount: number; lastMentionedAt: string; description: string },
        i: number,
      ) => {
        const row = sheet.getRow(i + 2);
        expect(row.getCell(1).value).toBe(f.name);
        expect(row.getCell(3).value).toBe(f.mentionCount);
        expect((row.getCell(4).value as Date).toISOString().replace('.000Z', 'Z')).toBe(f.lastMentionedAt);
        expect(row.getCell(8).value).toBe(f.description);
        expect(row.getCell(9).value).toBe(f.id);
      },
    );
  });

  it('csv: RFC 4180 and formula injection neutralised', async () => {
    const { parseCsv } = await import('../readers.js');
    h.db
      .prepare(
        `INSERT INTO entities (vault_id, id, type, name, aliases_json, description, source, mention_count, first_seen_at, last_mentioned_at)
       VALUES (?, 'evil', 'problem', '=HYPERLINK("http://x","click")', '[]', '@SUM(A1), "quoted", and a
newline', 'unclear', 999, ?, ?)`,
      )
      .run(NW, new Date().toISOString(), new Date().toISOString());
    const r = await ok('export_report', { format: 'csv' });
    const text = download(r.url)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    const records = parseCsv(text);
    expect(records.length).toBe(nw.entities.length + 2);
    const evil = records.find((rec) => rec.includes('evil'))!;
    expect(evil[0]).toBe(`'=HYPERLINK("http://x","click")`);
    expect(evil[7]).toBe(`'@SUM(A1), "quoted", and a\r\nnewline`); // line breaks in fields are CRLF, like record ends
    expect(evil[2]).toBe('999');
  });

  it('pdf: a report that parses, paginates and carries the data', async () => {
    const { readPdf } = await import('../readers.js');
    const r = await ok('export_report', { dataset: 'conflicts', format: 'pdf' });
    expect(r).toMatchObject({ kind: 'report', mimeType: 'application/pdf' });
    const path = join(h.dir, 'report.pdf');
    writeFileSync(path, download(r.url));
    const pdf = await readPdf(path);
    expect(pdf.pages.length).toBeGreaterThanOrEqual(1); // title block, then the table
    expect(pdf.pages[0]!.text).toContain('Conflicts: Northwind Logistics');
    const all = pdf.pages.map((p) => p.text.replace(/\s+/g, ' ')).join(' ');
    for (const c of nw.conflicts) expect(all, c.title).toContain(c.title.split(' ').slice(0, 3).join(' '));
  });

  it('pdf of the findings: a report (summary, sections by type, no ids), while the csv keeps its flat table with ids', async () => {
    const { readPdf } = await import('../readers.js');
    const r = await ok('export_report', { dataset: 'findings', format: 'pdf' });
    const path = join(h.dir, 'findings.pdf');
    writeFileSync(path, download(r.url));
    const pdf = await readPdf(path);
    expect(pdf.pages[0]!.runs.map((run) => run.text)).toEqual(expect.arrayContaining(['Findings', 'Open conflicts']));
    const headings = pdf.pages.flatMap((p) =>
      p.runs.filter((run) => run.bold && run.size === 11).map((run) => run.text.replace(/ \(\d+\)$/, '')),
    );
    // the executive summary's, then the detail's by type
    expect(headings.slice(0, 5)).toEqual([
      'Top problems',
      'Top opportunities',
      'Open conflicts',
      'Problems',
      'Opportunities',
    ]);
    expect(pdf.pages.flatMap((p) => p.runs.filter((run) => run.bold).map((run) => run.text))).not.toContain('Id');
    const csv = download((await ok('export_report', { format: 'csv' })).url).toString('utf8');
    expect(csv.split('\r\n')[0]).toContain('Id');
  });

  it('pdf of the findings opens on an executive summary: quotes with their speakers and a chart on page 1, both claims of each open conflict by page 2, plain words', async () => {
    const r = await ok('export_report', { dataset: 'findings', format: 'pdf' });
    const path = join(h.dir, 'findings-summary.pdf');
    writeFileSync(path, download(r.url));
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const doc = await pdfjs.getDocument({
      data: new Uint8Array(readFileSync(path)),
      disableFontFace: true,
      useSystemFonts: false,
      verbosity: 0,
    }).promise;
    const pages: string[] = [];
    let imagesOnFirst = 0;
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      pages.push(
        (await page.getTextContent()).items
          .map((item) => ('str' in item ? item.str : ''))
          .join(' ')
          .replace(/\s+/g, ' '),
      );
      if (p === 1) {
        const ops = await page.getOperatorList();
        imagesOnFirst = ops.fnArray.filter((fn: number) => fn === pdfjs.OPS.paintImageXObject).length;
      }
    }
    await doc.destroy();
    const first = pages[0]!;
    expect(first).toContain('Top problems');
    expect(first).toContain('Top opportunities');
    expect(imagesOnFirst, 'the chart of problems by mentions').toBe(1);
    // quotes, each with its speaker (a person of the vault), meeting and date
    const people = nw.people.map((p) => p.name);
    const quoted = [...first.matchAll(/“([^”]+)” — ([^,]+), ([^,]+), (\d{1,2} [A-Z][a-z]{2} \d{4})/g)];
    // One per featured finding that has evidence (a finding written straight into the store by the csv test above
    // is a top problem with none): the report's own choice, src/render/export/featured.ts.
    const featured = featureFindings(h.db, { id: NW });
    const withQuotes = [...featured.problems, ...featured.opportunities].filter((f) => f.quote).length;
    expect(withQuotes).toBeGreaterThanOrEqual(5);
    expect(quoted.length).toBe(withQuotes);
    for (const [, , speaker, meeting] of quoted) {
      expect(people, speaker).toContain(speaker);
      expect(
        nw.meetings.map((m) => m.name),
        meeting,
      ).toContain(meeting);
    }
    // both claims of every open conflict within the first two pages
    const firstTwo = `${first} ${pages[1] ?? ''}`;
    const open = nw.conflicts.filter((c) => c.status === 'open');
    expect(open.length).toBeGreaterThan(0);
    for (const c of open) {
      expect(firstTwo, c.title).toContain(c.title);
      for (const claim of c.claims) expect(firstTwo, claim.quote).toContain(`“${claim.quote.replace(/\s+/g, ' ')}”`);
    }
    // plain words: no vault id, no internal source code
    const all = pages.join(' ');
    expect(all).not.toContain('(northwind-logistics)');
    expect(all).not.toContain('agent-assumption');
  });

  it('workbook: the given sheets plus provenance; bad sheets are refused with their path', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const r = await ok('export_workbook', {
      title: 'Baseline KPIs',
      sheets: [
        {
          name: 'KPIs',
          columns: [
            { header: 'KPI', key: 'kpi' },
            { header: 'Value', key: 'value', numFmt: '0.0%' },
          ],
          rows: [
            { kpi: 'Inventory accuracy', value: 0.961 },
            { kpi: 'Dock on-time', value: 0.72 },
          ],
        },
        { name: 'Sites', columns: [{ header: 'Site', key: 'site' }], rows: [{ site: 'Leeds' }, { site: 'Daventry' }] },
      ],
      sources: ['Cycle counts, October'],
    });
    expect(r).toMatchObject({ sheets: 2, rows: 4 });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(download(r.url) as unknown as ArrayBuffer);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['KPIs', 'Sites', 'Provenance']);
    expect(wb.getWorksheet('KPIs')!.getRow(2).getCell(2).value).toBe(0.961);
    expect(wb.getWorksheet('KPIs')!.getRow(2).getCell(2).numFmt).toBe('0.0%');
    const provenance = JSON.stringify(wb.getWorksheet('Provenance')!.getSheetValues());
    for (const s of ['Baseline KPIs', 'Northwind Logistics', 'Cycle counts, October', 'owner'])
      expect(provenance).toContain(s);
    const sheet = (name: string) => ({ name, columns: [{ header: 'A', key: 'a' }], rows: [{ a: 1 }] });
    // a name Excel would refuse is made valid, with a warning naming the sheet (the rule export_report keeps too)
    const renamed = await ok('export_workbook', { title: 't', sheets: [sheet('Bad/Name')] });
    expect(renamed.warnings).toEqual([
      expect.stringMatching(/^sheets\[0\]\.name: The sheet name "Bad\/Name" became "Bad - Name"/),
    ]);
    expect(await refused('export_workbook', { title: 't', sheets: [sheet(' ')] }, 400, 'invalid_arguments')).toContain(
      '`sheets[0].name`',
    );
    expect(
      await refused(
        'export_workbook',
        { title: 't', sheets: [sheet('Same'), sheet('same')] },
        400,
        'invalid_arguments',
      ),
    ).toContain('`sheets[1].name`');
    expect(
      await refused(
        'export_workbook',
        { title: 't', sheets: [{ ...sheet('S'), rows: [{ a: 1, b: 2 }] }] },
        400,
        'invalid_arguments',
      ),
    ).toContain('sheets[0].rows[0].b');
  });

  /** `vault-tools call export_report` (the findings as a pdf) with `--out out`, as a person runs it. */
  const exportPdfTo = async (out: string) => {
    const { spawnSync } = await import('node:child_process');
    const args = ['call', 'export_report', '{"format":"pdf","dataset":"findings"}', '--vault', NW, '--data-dir', h.dir];
    return spawnSync(process.execPath, [BIN, ...args, '--out', out], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
    });
  };

  it('call --out copies the artifact next to the user, readable like any file they make', async () => {
    const out = join(h.dir, 'out');
    cli([
      'call',
      'export_report',
      '{"format":"csv","dataset":"conflicts"}',
      '--vault',
      NW,
      '--data-dir',
      h.dir,
      '--out',
      out,
    ]);
    const { readdirSync, statSync } = await import('node:fs');
    const csv = readdirSync(out).find((f) => f.endsWith('.csv'));
    expect(csv).toBeDefined();
    // Not the store's private 0600: the umask decides, as for any file the user writes.
    expect(statSync(join(out, csv!)).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it('call --out never replaces a file: the same export twice keeps the first, the second gets the next free name', async () => {
    const { readdirSync, writeFileSync, readFileSync, mkdirSync } = await import('node:fs');
    const out = join(h.dir, 'twice');
    mkdirSync(out);
    const run = () => exportPdfTo(out);
    const first = await run();
    expect(first.status, first.stderr).toBe(0);
    const [name] = readdirSync(out);
    writeFileSync(join(out, name!), 'the user edited this');
    const second = await run();
    expect(second.status, second.stderr).toBe(0);
    const copy = name!.replace(/\.pdf$/, ' (2).pdf');
    expect(readdirSync(out).sort()).toEqual([copy, name].sort());
    expect(readFileSync(join(out, name!), 'utf8')).toBe('the user edited this');
    expect(readFileSync(join(out, copy)).subarray(0, 5).toString()).toBe('%PDF-');
    expect(second.stderr).toContain(`copied ${name} to ${join(out, copy)} (${name} was already there, and is kept)`);
  });

  it("call --out report.pdf names the file itself (the artifact's extension, no folder of that name); a file there is kept", async () => {
    const { readdirSync, readFileSync, mkdirSync, statSync } = await import('node:fs');
    const folder = join(h.dir, 'named');
    mkdirSync(folder);
    const run = exportPdfTo;
    const first = await run(join(folder, 'report.pdf'));
    expect(first.status, first.stderr).toBe(0);
    expect(statSync(join(folder, 'report.pdf')).isFile()).toBe(true);
    expect(readFileSync(join(folder, 'report.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    const second = await run(join(folder, 'report.pdf'));
    expect(second.status, second.stderr).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['report (2).pdf', 'report.pdf']);
    // Another extension is a folder's name, as before.
    const third = await run(join(folder, 'pdfs.v2'));
    expect(third.status, third.stderr).toBe(0);
    expect(statSync(join(folder, 'pdfs.v2')).isDirectory()).toBe(true);
  });
});
