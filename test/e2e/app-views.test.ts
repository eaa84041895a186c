/**
 * The MCP Apps views in a real browser (Debian's headless chromium): a test host page built on the ext-apps
 * AppBridge (test/apps/host.ts) loads each view from `vault-tools serve`'s resources/read in an iframe, hands it
 * a real tool result from the demo store, checks what rendered, clicks, and checks which tools the view called
 * through the host and how it changed. Hostile names stay text.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, ROOT, tempDir } from '../helpers.js';
import { tinyVault, writeTinyVault } from '../tiny-vault.js';
import { demoServer } from '../http-helpers.js';
import { connectMcp, type McpTestClient } from '../mcp-clients.js';
import { reportOf, startViewHost, type ViewHost, type ViewScenario } from '../apps/view-host.js';
import { launchBrowser, type Browser } from '../apps/browser.js';

const NW = 'northwind-logistics';
const HOSTILE = '<img src=x onerror="window.__pwned=1">';

/** A steering-committee draft with one quotation of each kind: right, right words wrong speaker, one word changed, made up. */
const QUOTES_DRAFT = [
  '# Leeds: what we heard',
  "Lewis was clear about the carrier data: “Correct. Nicola sends me the invoices and asks me if they're right and I genuinely can't tell her.” — Lewis Harper",
  'On turnaround, “Ninety minutes gate to gate. In the afternoons we hit it.” (Tom Becker)',
  "Marcus defended the dock: “But once a trailer is on a door we're fast. Dock-to-stock is under four hours for ninety per cent of pallets.” — Marcus Obi",
  '"We will replace LogiTrack before the Christmas peak and the board has signed it off," said Fiona Gallagher.',
].join('\n\n');

const running = demoServer();
let client: McpTestClient;
let host: ViewHost;
/** One chromium for the file: each view run is a tab. */
let browser: Browser;
beforeAll(async () => {
  client = await connectMcp({ era: 'modern', wire: 'http', url: running.server.url, key: running.store.ownerKey });
  host = await startViewHost(client);
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await client?.close();
});

/** A real call's input and result, as a host would hand them to the view. */
async function toolCall(name: string, args: Record<string, unknown>): Promise<Pick<ViewScenario, 'input' | 'result'>> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return { input: args, result };
}

/** Loads the view in the host page and returns what the page saw. */
async function runView(scenario: ViewScenario, query = ''): Promise<Record<string, any>> {
  host.setScenario(scenario);
  const report = reportOf(await browser.dom(`${host.url}/host.html?view=${scenario.view}${query}`));
  expect(report.error).toBeUndefined();
  expect(report.policy).toBe(query.includes('csp=open') ? 'open' : 'strict');
  expect(report.pwned, 'a hostile name ran').toBeNull();
  expect(report.images, 'an <img> from the data').toBe(0);
  // Drawn under the policy (the spec's default CSP unless the query says otherwise): nothing refused, no error shown.
  expect(report.cspViolations).toEqual([]);
  expect(report.errorsShown.filter((e: string) => /could not be drawn|Content Security Policy/.test(e))).toEqual([]);
  // For the record, not a test (speed targets live in benchmarks): from iframe to the first rendered content.
  process.stderr.write(
    `${scenario.view} view: first content ${host.firstPaintMs()} ms after the host loaded it into its iframe\n`,
  );
  return report;
}

/**
 * With APPS_SCREENSHOTS=1, each view as a person sees it (no clicks but the findings row), light and dark, saved
 * as docs/apps/<name>.png and <name>-dark.png: the pictures the README shows. First in the file, so the demo
 * store is as `demo` made it.
 */
it.runIf(!!process.env.APPS_SCREENSHOTS)(
  'screenshots of every view, light and dark, from a clean demo store',
  async () => {
    const findings = (
      await client.callTool({ name: 'list_findings', arguments: { vault: NW, type: 'problem', limit: 8 } })
    ).structuredContent.findings as { name: string; mentionCount: number }[];
    const ranking = {
      data: { values: findings.map((f) => ({ problem: f.name, mentions: f.mentionCount })) },
      mark: 'bar',
      encoding: {
        y: { field: 'problem', type: 'nominal', sort: '-x' },
        x: { field: 'mentions', type: 'quantitative' },
      },
    };
    const shots: [string, ViewScenario, number][] = [
      [
        'chart',
        {
          view: 'chart',
          ...(await toolCall('render_chart', {
            vault: NW,
            title: 'Problems raised most often',
            vega_lite_spec: ranking,
          })),
        },
        370,
      ],
      ['findings', { view: 'findings', ...(await toolCall('list_findings', { vault: NW, limit: 8 })) }, 1000],
      [
        'graph',
        { view: 'graph', ...(await toolCall('expand_graph', { vault: NW, entityId: 'sys-logitrack', depth: 2 })) },
        760,
      ],
      [
        'entity',
        {
          view: 'graph',
          ...(await toolCall('get_entity', { vault: NW, entityId: 'prob-dock-congestion', includeEvidence: true })),
        },
        1250,
      ],
      ['conflicts', { view: 'conflicts', ...(await toolCall('list_conflicts', { vault: NW, status: 'all' })) }, 1000],
      [
        'transcript-search',
        {
          view: 'transcript',
          ...(await toolCall('search_transcripts', { vault: NW, query: 'dock congestion at Leeds', limit: 4 })),
        },
        1000,
      ],
      [
        'transcript',
        {
          view: 'transcript',
          ...(await toolCall('get_transcript', { vault: NW, meetingId: 'nwl-m01-kickoff', limit: 2 })),
        },
        1000,
      ],
      ['quotes', { view: 'quotes', ...(await toolCall('check_quotes', { vault: NW, text: QUOTES_DRAFT })) }, 1200],
    ];
    for (const [name, scenario, height] of shots) {
      for (const theme of ['light', 'dark'] as const) {
        host.setScenario({ ...scenario, theme });
        await browser.screenshot(
          `${host.url}/host.html?view=${scenario.view}&shot`,
          join(ROOT, 'docs', 'apps', `${name}${theme === 'dark' ? '-dark' : ''}.png`),
          900,
          height,
        );
      }
    }
  },
  600_000,
);

it('chart: draws the spec live, a tooltip on the bars, the data a click away; hostile labels stay text', async () => {
  const findings = (
    await client.callTool({ name: 'list_findings', arguments: { vault: NW, type: 'problem', limit: 6 } })
  ).structuredContent.findings as { name: string; mentionCount: number }[];
  const values = [
    ...findings.map((f) => ({ problem: f.name, mentions: f.mentionCount })),
    { problem: HOSTILE, mentions: 1 },
  ];
  const spec = {
    data: { values },
    mark: 'bar',
    encoding: { y: { field: 'problem', type: 'nominal', sort: '-x' }, x: { field: 'mentions', type: 'quantitative' } },
  };
  const scenario: ViewScenario = {
    view: 'chart',
    ...(await toolCall('render_chart', { vault: NW, title: 'Problems by mentions', vega_lite_spec: spec })),
  };
  const report = await runView(scenario);
  expect(report.marks).toBe(values.length);
  expect(report.svgText).toContain('Problems by mentions');
  expect(report.svgText).toContain(findings[0]!.name.slice(0, 12));
  expect(report.tooltip).toContain(String(findings[0]!.mentionCount));
  expect(report.tableHiddenBefore).toBe(true);
  expect(report.tableHiddenAfter).toBe(false);
  expect(report.tableRows).toHaveLength(values.length);
  expect(report.tableRows).toContainEqual([HOSTILE, '1']);
  // What the PNG draws: words for axis titles, each bar's value at its end, a value axis ending on a tick.
  expect(report.axisTitles).toEqual(expect.arrayContaining(['Mentions', 'Problem']));
  expect(report.valueLabels).toEqual(expect.arrayContaining(values.map((v) => String(v.mentions))));
  const ticks = report.axisLabels.map(Number).filter((n: number) => Number.isFinite(n));
  expect(Math.max(...ticks)).toBeGreaterThanOrEqual(Math.max(...values.map((v) => v.mentions)));
  expect(report.clipped).toEqual([]);
  expect(report.toggleBelowChart).toBe(true);
  expect(report.headerAlign).toEqual(report.cellAlign); // the numbers' header is right-aligned over them
  expect(host.calls).toEqual([]); // the chart needs no more calls
}, 120_000);

it('chart: a spec whose usermeta.embedOptions turns the menu on and writes a script (issue 36) draws with no menu and runs nothing', async () => {
  // A bidi override in a label (U+202E) is shown as a visible \u202e, not obeyed.
  const spec = {
    data: {
      values: [
        { a: 'North', b: 4 },
        { a: 'invoice\u202Efdp.exe', b: 7 },
      ],
    },
    mark: 'bar',
    encoding: { y: { field: 'a', type: 'nominal' }, x: { field: 'b', type: 'quantitative' } },
  };
  const embedOptions = {
    actions: { source: true },
    sourceHeader: '<script>opener.top.__pwned = 1; window.__pwned = 1</script>',
    i18n: { SOURCE_ACTION: 'Open details' },
  };
  // render_chart refuses that spec (test/unit/chart-embed-options.test.ts), but a host hands the view the call's
  // input before any result: the view itself must not take options from the spec.
  const { result } = await toolCall('render_chart', { vault: NW, title: 'Regions', vega_lite_spec: spec });
  const report = await runView(
    {
      view: 'chart',
      input: { vault: NW, title: 'Regions', vega_lite_spec: { ...spec, usermeta: { embedOptions } } },
      result,
    },
    '&shot',
  );
  expect(report.marks).toBe(2);
  expect(report.menu).toBe(0);
  expect(report.menuText).toBe('');
  expect(report.svgText).not.toContain('Open details');
  expect(report.svgText).toContain('invoice\\u202efdp.exe');
  expect(report.svgText).not.toContain('\u202E');
}, 120_000);

it("every view also draws under a permissive host's policy (with 'unsafe-eval'); the other tests use the spec's default, without it", async () => {
  const chartSpec = {
    data: {
      values: [
        { a: 'North', b: 4 },
        { a: 'South', b: 7 },
      ],
    },
    mark: 'bar',
    encoding: { y: { field: 'a', type: 'nominal' }, x: { field: 'b', type: 'quantitative' } },
  };
  const scenarios: ViewScenario[] = [
    { view: 'chart', ...(await toolCall('render_chart', { vault: NW, title: 'Regions', vega_lite_spec: chartSpec })) },
    { view: 'findings', ...(await toolCall('list_findings', { vault: NW, limit: 5 })) },
    { view: 'graph', ...(await toolCall('expand_graph', { vault: NW, entityId: 'sys-logitrack' })) },
    { view: 'conflicts', ...(await toolCall('list_conflicts', { vault: NW, status: 'all' })) },
    { view: 'transcript', ...(await toolCall('search_transcripts', { vault: NW, query: 'dock congestion' })) },
    { view: 'quotes', ...(await toolCall('check_quotes', { vault: NW, text: QUOTES_DRAFT })) },
  ];
  for (const scenario of scenarios) {
    const report = await runView(scenario, '&shot&csp=open');
    expect(report.policy).toBe('open');
  }
}, 180_000);

it('findings: a page of the real findings; next page, a type filter and a row click call the right tools', async () => {
  const scenario: ViewScenario = { view: 'findings', ...(await toolCall('list_findings', { vault: NW, limit: 8 })) };
  const first = scenario.result.structuredContent as { findings: { name: string }[]; total: number };
  const report = await runView(scenario);
  expect(report.firstPage).toEqual(first.findings.map((f) => f.name));
  expect(report.count).toBe(`1–8 of ${first.total}`);
  expect(report.secondCount).toBe(`9–16 of ${first.total}`);
  expect(report.secondPage).toHaveLength(8);
  expect(report.secondPage).not.toContain(report.firstPage[0]);
  expect(new Set(report.problemTypes)).toEqual(new Set(['problem']));
  expect(report.sortedByName).toEqual([...report.sortedByName].sort((a: string, b: string) => a.localeCompare(b)));
  // The card is the entity the row named, with its quotes, right under its row.
  const clicked = host.calls[2]!.arguments!.entityId as string;
  const entity = (
    await client.callTool({ name: 'get_entity', arguments: { vault: NW, entityId: clicked, includeEvidence: true } })
  ).structuredContent as {
    name: string;
    mentionCount: number;
    evidence: { quote: string; meetingId: string; turnIndex: number }[];
  };
  expect(report.cardTitle).toContain(entity.name);
  expect(report.cardGap).toBeGreaterThanOrEqual(0);
  expect(report.cardGap).toBeLessThan(12);
  expect(report.quotes).toHaveLength(entity.evidence.length);
  expect(report.quotes[0]).toContain(entity.evidence[0]!.quote);
  // Mentioned more often than quoted: more of what was said, from the transcripts.
  expect(entity.mentionCount).toBeGreaterThan(entity.evidence.length);
  expect(report.quotes.length + report.mentions).toBeGreaterThan(1);
  // "In the transcript" opens the quote's meeting at its turn, the quote marked.
  const quote = entity.evidence[0]!;
  expect(report.quoteTurn).toBe(quote.turnIndex);
  expect(report.quoteMarked).toBe(quote.quote);
  expect(host.calls.map((c) => [c.name, c.arguments])).toEqual([
    ['list_findings', { vault: NW, limit: 8, cursor: expect.any(String) }],
    ['list_findings', { vault: NW, limit: 8, type: 'problem' }],
    ['get_entity', { vault: NW, entityId: clicked, includeEvidence: true }],
    ['search_transcripts', { vault: NW, query: entity.name, limit: 5 }],
    [
      'get_transcript',
      { vault: NW, meetingId: quote.meetingId, turnStart: quote.turnIndex, turnEnd: quote.turnIndex, context: 2 },
    ],
  ]);
}, 120_000);

it('findings: search_knowledge matches in the same table, filtered in place; a row opens its card', async () => {
  const scenario: ViewScenario = {
    view: 'findings',
    theme: 'dark',
    ...(await toolCall('search_knowledge', { vault: NW, query: 'WMS' })),
  };
  const entities = (scenario.result.structuredContent as { entities: { name: string; type: string }[] }).entities;
  const report = await runView(scenario);
  expect(report.firstPage).toEqual(entities.map((e) => e.name));
  const systems = entities.filter((e) => e.type === 'system');
  expect(report.systemRows).toEqual(systems.map(() => 'system'));
  expect(report.systemCount).toBe(`${systems.length} of ${entities.length} matches`);
  expect(host.calls.map((c) => c.name).slice(0, 1)).toEqual(['get_entity']);
  expect(report.cardTitle).toContain(systems[0]!.name);
}, 120_000);

it('graph: the entity and its neighbours, width by weight and colour by type; a click expands the node', async () => {
  const shot: ViewScenario = {
    view: 'graph',
    ...(await toolCall('expand_graph', { vault: NW, entityId: 'sys-logitrack', depth: 2 })),
  };
  // The demo's densest neighbourhood: labels overlap neither each other nor a line.
  const dense = await runView(shot, '&shot');
  expect(dense.labels.length).toBeGreaterThan(5);
  expect(dense.labels).toContain('LogiTrack WMS v6');
  expect(dense.labelOverlaps).toEqual([]);
  expect(dense.labelsOnLines).toEqual([]);
  const scenario: ViewScenario = {
    view: 'graph',
    ...(await toolCall('get_entity', { vault: NW, entityId: 'sys-logitrack', includeEvidence: true })),
  };
  const entity = scenario.result.structuredContent as { edges: { entityId: string; weight: number; type: string }[] };
  const neighbours = new Set(entity.edges.map((e) => e.entityId));
  const report = await runView(scenario);
  expect(new Set(report.nodes)).toEqual(new Set(['sys-logitrack', ...neighbours]));
  expect(report.links).toBe(entity.edges.length);
  expect(Math.max(...report.widths)).toBeGreaterThan(Math.min(...report.widths)); // weights 1..6 differ in width
  expect(report.colours).toHaveLength(new Set(['system', ...entity.edges.map((e) => e.type)]).size);
  expect(report.labels).toContain('LogiTrack WMS v6');
  // get_entity with evidence: its card with the graph, so the evidence asked for is seen.
  const asked = scenario.result.structuredContent as { description: string; evidence: { quote: string }[] };
  expect(report.card.description).toBe(asked.description);
  expect(report.card.quotes).toHaveLength(asked.evidence.length);
  expect(report.card.quotes[0]).toContain(asked.evidence[0]!.quote);
  expect(
    host.calls.map(({ name, arguments: args }) => ({ name, args })).filter((c) => c.name !== 'search_transcripts'),
  ).toEqual([{ name: 'expand_graph', args: { vault: NW, entityId: report.clicked } }]);
  const expanded = (await client.callTool({ name: 'expand_graph', arguments: { vault: NW, entityId: report.clicked } }))
    .structuredContent as { edges: { entityId: string }[] };
  expect(new Set(report.nodesAfter)).toEqual(new Set([...report.nodes, ...expanded.edges.map((e) => e.entityId)]));
  expect(report.selected).toBeTruthy();
}, 120_000);

it('conflicts: the claims side by side; resolve with a note calls resolve_conflict and updates the card; a member key is read-only', async () => {
  const scenario: ViewScenario = {
    view: 'conflicts',
    ...(await toolCall('list_conflicts', { vault: NW, status: 'all' })),
  };
  const listed = (
    scenario.result.structuredContent as {
      conflicts: { id: string; status: string; claims: { quote: string; speaker: string }[] }[];
    }
  ).conflicts;
  const report = await runView(scenario, `&note=${encodeURIComponent(HOSTILE)}`);
  expect(report.cards.map((c: { id: string }) => c.id)).toEqual(listed.map((c) => c.id));
  expect(report.cards[0].claims).toHaveLength(listed[0]!.claims.length);
  expect(report.cards[0].claims[0]).toContain(listed[0]!.claims[0]!.quote);
  expect(report.cards[0].claims[0]).toContain(listed[0]!.claims[0]!.speaker);
  expect(report.statusAfter).toBe('resolved');
  expect(report.noteBox).toBe(HOSTILE); // the hostile note came back from the store into the note box, to edit, as text
  // Undo from the card puts it back as it was.
  const before = listed.find((c) => c.id === report.acted)! as { note?: string | null };
  expect(report.statusAfterUndo).toBe('open');
  expect(host.calls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
    { name: 'resolve_conflict', args: { vault: NW, conflictId: report.acted, status: 'resolved', note: HOSTILE } },
    // (back to open, with the note it had before)
    {
      name: 'resolve_conflict',
      args: { vault: NW, conflictId: report.acted, status: 'open', ...(before.note ? { note: before.note } : {}) },
    },
  ]);
  const stored = (await client.callTool({ name: 'list_conflicts', arguments: { vault: NW, status: 'open' } }))
    .structuredContent as { conflicts: { id: string }[] };
  expect(stored.conflicts.map((c) => c.id)).toContain(report.acted);

  // A member key: the same board, and its first try is refused by the server, which the board then says.
  const member = await connectMcp({
    era: 'modern',
    wire: 'http',
    url: running.server.url,
    key: running.store.memberKey(NW),
  });
  try {
    const asMember: ViewScenario = {
      view: 'conflicts',
      client: member,
      input: { vault: NW },
      result: await member.callTool({ name: 'list_conflicts', arguments: { vault: NW } }),
    };
    const seen = await runView(asMember);
    expect(seen.readOnly).toMatch(/manager key/);
    expect(seen.statusAfter).toBe('open');
    expect(seen.buttonsAfter).toBe(0);
    // (It listed the open ones only: the other tabs are empty, and say so.)
    expect(seen.emptyTab).toMatch(/^No (resolved|dismissed) conflicts\.$/);
    const still = (await client.callTool({ name: 'list_conflicts', arguments: { vault: NW, status: 'open' } }))
      .structuredContent as { conflicts: { id: string }[] };
    expect(still.conflicts.map((c) => c.id)).toContain(seen.acted);
  } finally {
    await member.close();
  }
}, 180_000);

it('an entity named like markup (and with bidi controls) stays a name in the findings explorer, its card and the graph', async () => {
  // A real vault whose system is called <img onerror=…>, imported into the running store.
  const vault = tinyVault({ id: 'hostile', name: 'Hostile Names' });
  // (An agent's assumption with its own first-seen date: a name said in no meeting is then valid.)
  // Bidi controls after it (issue 36): obeyed, they would turn the text after the name around; the views show
  // each as a visible \u202e (views/common.ts plain()), as the server's printable() writes it.
  Object.assign((vault.entities as object[])[0]!, {
    name: `${HOSTILE}\u202e\u2066`,
    source: 'agent-assumption',
    firstSeenAt: '2026-01-05T09:00:00Z',
  });
  const folder = tempDir();
  try {
    cli(['import', writeTinyVault(folder.dir, vault), '--data-dir', running.store.dir]);
  } finally {
    folder.cleanup();
  }
  const findings = await runView(
    { view: 'findings', ...(await toolCall('list_findings', { vault: 'hostile' })) },
    '&shot',
  );
  const shown = `${HOSTILE}\\u202e\\u2066`;
  expect(findings.firstPage).toContain(shown);
  expect(findings.cardTitle).toContain(findings.firstPage[0]);
  const graph = await runView(
    { view: 'graph', ...(await toolCall('get_entity', { vault: 'hostile', entityId: 'kpi-close' })) },
    '&shot',
  );
  expect(graph.labels).toContain(shown);
  expect(JSON.stringify([findings, graph])).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
}, 120_000);

it('transcript: search_transcripts draws its hits by meeting with the query words marked; More context reads the meeting through the host', async () => {
  const query = 'dock congestion at Leeds';
  const scenario: ViewScenario = {
    view: 'transcript',
    ...(await toolCall('search_transcripts', { vault: NW, query, limit: 6 })),
  };
  const results = (
    scenario.result.structuredContent as {
      results: { meetingId: string; meetingName: string; turnStart: number; turnEnd: number }[];
    }
  ).results;
  expect(results.length).toBeGreaterThan(1);
  const report = await runView(scenario);
  // The meetings, in the order of their best hit, each with its hits.
  const meetings = [...new Set(results.map((r) => r.meetingId))];
  expect(report.meetings.map((m: { id: string }) => m.id)).toEqual(meetings);
  expect(report.meetings.map((m: { name: string }) => m.name)).toEqual(
    meetings.map((id) => results.find((r) => r.meetingId === id)!.meetingName),
  );
  expect(report.meetings.flatMap((m: { hits: string[] }) => m.hits).sort()).toEqual(
    results.map((r) => `${r.turnStart}-${r.turnEnd}`).sort(),
  );
  expect(report.marks.length).toBeGreaterThan(0);
  for (const mark of report.marks)
    expect(
      ['dock', 'congestion', 'leeds'].some((w) => mark.startsWith(w)),
      mark,
    ).toBe(true);
  // More context on the first hit shown: one get_transcript call reading the hit's turns and four on each side.
  const [from, to] = (report.widened as string).split('-').map(Number);
  const widened = results.find((r) => r.turnStart === from && r.turnEnd === to)!;
  expect(host.calls.map((c) => [c.name, c.arguments])).toEqual([
    ['get_transcript', { vault: NW, meetingId: widened.meetingId, turnStart: from, turnEnd: to, context: 4 }],
  ]);
  expect(report.hitTurns).toEqual(Array.from({ length: to! - from! + 1 }, (_, i) => from! + i));
  expect(report.turnsAfter).toBeGreaterThan(report.turnsBefore);
  expect(Math.min(...report.contextTurns)).toBe(Math.max(0, from! - 4));
  expect(Math.max(...report.contextTurns)).toBe(to! + 4);
}, 120_000);

it('transcript: get_transcript reads as speaker turns with times and colours; find marks, Later pages through the host', async () => {
  const scenario: ViewScenario = {
    view: 'transcript',
    theme: 'dark',
    ...(await toolCall('get_transcript', { vault: NW, meetingId: 'nwl-m01-kickoff', limit: 3 })),
  };
  const page = scenario.result.structuredContent as {
    meetingName: string;
    chunks: { speakers: string[]; startSeconds: number | null }[];
    totalChunks: number;
    nextOffset: number;
  };
  const report = await runView(scenario, '&find=Leeds');
  expect(report.meetingName).toBe(page.meetingName);
  expect(report.range).toBe(`part 1–3 of ${page.totalChunks}`);
  const speakers = new Set(page.chunks.flatMap((c) => c.speakers));
  expect(new Set(report.turns.map((t: { speaker: string }) => t.speaker))).toEqual(speakers);
  expect(report.colours).toHaveLength(speakers.size);
  expect(report.turns[0].time).toBe('0:00');
  expect(report.found).toMatch(/^\d+ turns?$/);
  expect(report.foundMarks).toBeGreaterThan(0);
  expect(host.calls.map((c) => [c.name, c.arguments])).toEqual([
    ['get_transcript', { vault: NW, meetingId: 'nwl-m01-kickoff', offset: page.nextOffset, limit: 3 }],
  ]);
  expect(report.rangeAfter).toBe(`part 1–6 of ${page.totalChunks}`);
  expect(report.turnsAfterPaging).toBeGreaterThan(report.turnsBeforePaging);
}, 120_000);

it('transcript: a speaker named like markup and a line with a bidi override stay text', async () => {
  const vault = tinyVault({ id: 'hostile-talk', name: 'Hostile Talk' });
  const meeting = vault.meetings[0] as { attendees: string[]; transcript: { speaker: string; text: string }[] };
  meeting.attendees = [HOSTILE, 'Bo Lind'];
  meeting.transcript[0]!.speaker = HOSTILE;
  meeting.transcript[1]!.text = 'Close Time is six days by my count, \u202Esyad net\u202C.';
  const folder = tempDir();
  try {
    cli(['import', writeTinyVault(folder.dir, vault), '--data-dir', running.store.dir]);
  } finally {
    folder.cleanup();
  }
  const searched = await runView(
    { view: 'transcript', ...(await toolCall('search_transcripts', { vault: 'hostile-talk', query: 'close time' })) },
    '&shot',
  );
  expect(searched.speakers).toContain(HOSTILE);
  const read = await runView(
    { view: 'transcript', ...(await toolCall('get_transcript', { vault: 'hostile-talk', meetingId: 'm1' })) },
    '&shot',
  );
  expect(read.turns.map((t: { speaker: string }) => t.speaker)).toEqual([HOSTILE, 'Bo Lind']);
  expect(read.turns[1].words).toBe('Close Time is six days by my count, \\u202esyad net\\u202c.');
}, 120_000);

it('quotes: the draft with each quotation marked by verdict, and under it what was really said, where, by whom; a mark leads to its card', async () => {
  const scenario: ViewScenario = {
    view: 'quotes',
    ...(await toolCall('check_quotes', { vault: NW, text: QUOTES_DRAFT })),
  };
  const answer = scenario.result.structuredContent as {
    quotations: {
      index: number;
      text: string;
      verdict: string;
      misattributed: boolean;
      sources: { speaker: string; said: string }[];
      differences: { op: string; quoted: string; said: string }[];
      fix: string | null;
    }[];
  };
  // What the tool found is what the test expects of this draft (read from the fixture: test/unit/check-quotes.test.ts covers the rules).
  expect(answer.quotations.map((q) => [q.verdict, q.misattributed])).toEqual([
    ['verbatim', false],
    ['verbatim', true],
    ['close', false],
    ['not_found', false],
  ]);
  const report = await runView(scenario);
  expect(report.summary).toMatch(/^4 quotations\s*2 verbatim\s*1 close\s*1 not found\s*1 wrong speaker$/);
  expect(report.draft).toBe(QUOTES_DRAFT);
  expect(
    report.marks.map((m: { index: number; verdict: string; text: string }) => [m.index, m.verdict, m.text]),
  ).toEqual(answer.quotations.map((q) => [q.index, q.verdict, q.text]));
  expect(new Set(report.marks.map((m: { colour: string }) => m.colour)).size).toBe(3); // one colour per verdict
  expect(report.cards.map((c: { verdict: string; misattributed: boolean }) => [c.verdict, c.misattributed])).toEqual([
    ['Verbatim', false],
    ['Verbatim', true],
    ['Close', false],
    ['Not found', false],
  ]);
  answer.quotations.forEach((q, i) => {
    const card = report.cards[i];
    expect(card.speakers).toEqual(q.sources.map((s) => s.speaker));
    expect(card.said).toEqual(q.sources.map((s) => `“${s.said}”`));
    expect(card.fix).toBe(q.fix ? `Fix: ${q.fix}` : '');
    if (q.sources.length) expect(card.heading).toBe('In the transcript');
    if (q.sources.length) expect(card.context.length).toBeGreaterThan(0);
  });
  // The wrong speaker: the card names who said it; the changed word is struck, the real one beside it.
  expect(report.cards[1].speakers).toEqual(['Lewis Harper']);
  expect(report.cards[1].fix).toContain('Lewis Harper');
  const changed = answer.quotations[2]!.differences.filter((d) => d.op === 'changed');
  expect(changed.length).toBeGreaterThan(0);
  expect(report.cards[2].quotedWords).toEqual(changed.map((d) => d.quoted));
  expect(report.cards[2].saidWords).toEqual(changed.map((d) => d.said));
  expect(report.focused).toEqual([report.clickedMark]);
  expect(host.calls).toEqual([]); // everything is in the answer
}, 120_000);

it('quotes: a draft with markup, query syntax and bidi controls in and around its quotations stays text', async () => {
  const text = `${HOSTILE} said: “${HOSTILE} NEAR(dock, 3) AND * ^ \u202Etxt.exe\u202C”\n\n> <script>window.__pwned=1</script> Ninety minutes gate to gate.\n> — ${HOSTILE}`;
  const report = await runView({ view: 'quotes', ...(await toolCall('check_quotes', { vault: NW, text })) }, '&shot');
  expect(report.marks.map((m: { verdict: string }) => m.verdict)).toEqual(['not_found', 'not_found']);
  expect(report.draft).toBe(text.replace('\u202E', '\\u202e').replace('\u202C', '\\u202c'));
  expect(JSON.stringify(report)).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
}, 120_000);
