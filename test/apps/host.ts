/**
 * A test host for the MCP Apps views, in the browser: it loads a view in an iframe as a host does, over the
 * ext-apps AppBridge, hands it a real tool call's input and result (from the node side, /scenario), forwards
 * the view's tool calls to the real server (POST /call), runs the view's scenario (look, click, look again) and
 * writes what it saw into #report (base64 JSON) for the test to read from the dumped DOM.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Scenario {
  html: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
  theme: 'light' | 'dark';
}
type Report = Record<string, unknown>;

const params = new URLSearchParams(location.search);
const view = params.get('view') ?? '';
const screenshotOnly = params.has('shot');

/**
 * The policy the host puts on the view: by default the MCP Apps spec's default CSP for a resource whose
 * `_meta.ui.csp` names no domain (what vault-tools declares), which has no 'unsafe-eval'; `?csp=open` adds it,
 * as a permissive host would. A listener records every violation for the report.
 */
const POLICIES: Record<string, string> = {
  strict:
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; font-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'",
  open: "default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; font-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'",
};
const policy = params.get('csp') ?? 'strict';

function withPolicy(html: string): string {
  const csp = POLICIES[policy];
  if (!csp) throw new Error(`no policy ${policy}`);
  const watch = `<script>window.__csp=[];document.addEventListener('securitypolicyviolation',function(e){window.__csp.push(e.violatedDirective+' '+e.blockedURI+' '+e.lineNumber+':'+e.columnNumber)})</script>`;
  return html.replace(/<head>/i, `<head><meta http-equiv="Content-Security-Policy" content="${csp}">${watch}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `condition` until it holds (true) or `ms` pass (false): waiting for what the view does, not for the clock. */
async function until(condition: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (condition()) return true;
  return condition();
}

/** The first element matching `selector` in the view, waiting for it (up to ~10 s). */
async function find(
  doc: () => Document,
  selector: string,
  test: (e: Element) => boolean = () => true,
): Promise<Element> {
  for (let i = 0; i < 200; i++) {
    const hit = [...doc().querySelectorAll(selector)].find(test);
    if (hit) return hit;
    await sleep(50);
  }
  throw new Error(`the view never showed ${selector}`);
}

const report: Report = { calls: [] as unknown[] };

async function main(): Promise<void> {
  const scenario = (await (await fetch(`/scenario?view=${view}`)).json()) as Scenario;
  if (scenario.theme === 'dark') document.body.style.background = '#111827';
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  frame.style.cssText = 'width:100%;height:100%;border:0';
  document.getElementById('stage')!.append(frame);
  const bridge = new AppBridge(
    null,
    { name: 'vault-tools test host', version: '1' },
    { serverTools: {}, openLinks: {}, logging: {} },
    { hostContext: { theme: scenario.theme, displayMode: 'inline' } },
  );
  bridge.oncalltool = async (call) => {
    (report.calls as unknown[]).push(call);
    const answer = await fetch('/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    return (await answer.json()) as never;
  };
  const ready = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  // Listening before the page loads, as a host does: the view says hello as soon as its script runs.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await fetch('/started');
  frame.srcdoc = withPolicy(scenario.html);
  report.policy = policy;
  await ready;
  await bridge.sendToolInput({ arguments: scenario.input });
  await bridge.sendToolResult(scenario.result as never);
  const doc = () => frame.contentDocument!;
  const steps = SCENARIOS[view];
  if (!steps) throw new Error(`no scenario for ${view}`);
  await steps(doc, report, screenshotOnly);
  // A hostile name ran nothing: no image element came from the data, and no script set the marker.
  report.pwned =
    (window as { __pwned?: unknown }).__pwned ??
    (frame.contentWindow as unknown as { __pwned?: unknown }).__pwned ??
    null;
  report.images = doc().querySelectorAll('img').length;
  report.cspViolations = (frame.contentWindow as unknown as { __csp?: string[] }).__csp ?? null;
  report.errorsShown = [...doc().querySelectorAll('.error')].map(text);
}

/** Tells the node side the view has shown its content (it times that in real time). */
const painted = () => fetch('/painted').then(() => undefined);

type Steps = (doc: () => Document, report: Report, screenshotOnly: boolean) => Promise<void>;
const text = (e: Element | null | undefined) => (e?.textContent ?? '').trim();

export const SCENARIOS: Record<string, Steps> = {
  async chart(doc, report, shot) {
    await find(doc, 'svg .mark-rect path, svg .mark-symbol path, svg .mark-line path, svg .mark-arc path');
    await painted();
    const marks = [...doc().querySelectorAll('svg .mark-rect path')];
    report.marks = marks.length;
    report.svgText = text(doc().querySelector('svg'));
    const svg = doc().querySelector('#chart svg')!.getBoundingClientRect();
    const texts = [...doc().querySelectorAll('#chart svg text')];
    report.valueLabels = [...doc().querySelectorAll('#chart svg .mark-text text')].map(text);
    report.axisTitles = [...doc().querySelectorAll('#chart svg .role-axis-title text')].map(text);
    report.axisLabels = [...doc().querySelectorAll('#chart svg .role-axis-label text')].map(text);
    // Text drawn past the chart's edges is cut off by the frame.
    report.clipped = texts
      .filter((t) => {
        const b = t.getBoundingClientRect();
        return b.width > 0 && (b.left < svg.left - 0.5 || b.right > svg.right + 0.5);
      })
      .map(text);
    // The toggle is under the chart, not above its title.
    const toggleBox = doc().querySelector('[data-role=toggle-data]')?.getBoundingClientRect();
    report.toggleBelowChart = toggleBox ? toggleBox.top >= svg.bottom - 1 : null;
    // vega-embed's actions menu (export, "View Source", editor): the view never shows it, whatever the spec says.
    report.menu = doc().querySelectorAll('.vega-actions, .vega-embed details').length;
    report.menuText = text(doc().querySelector('.vega-actions'));
    for (const link of doc().querySelectorAll('.vega-actions a')) (link as HTMLElement).click();
    await sleep(100);
    if (shot) return;
    // Hover the first bar: vega-tooltip shows its row.
    const bar = marks[0] as SVGGraphicsElement | undefined;
    if (bar) {
      const box = bar.getBoundingClientRect();
      const at = { bubbles: true, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2 };
      bar.dispatchEvent(new PointerEvent('pointermove', at));
      bar.dispatchEvent(new MouseEvent('mousemove', at));
      const tooltip = () => text(doc().querySelector('#vg-tooltip-element'));
      await until(() => tooltip() !== '');
      report.tooltip = tooltip();
    }
    const toggle = (await find(doc, '[data-role=toggle-data]')) as HTMLButtonElement;
    report.tableHiddenBefore = (doc().querySelector('[data-role=data-table]') as HTMLElement | null)?.hidden ?? null;
    toggle.click();
    await until(() => (doc().querySelector('[data-role=data-table]') as HTMLElement | null)?.hidden === false);
    const table = doc().querySelector('[data-role=data-table]') as HTMLElement;
    report.tableHiddenAfter = table.hidden;
    report.tableRows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map(text));
    report.headerAlign = [...table.querySelectorAll('th')].map((th) => getComputedStyle(th).textAlign);
    report.cellAlign = [...(table.querySelector('tbody tr')?.querySelectorAll('td') ?? [])].map(
      (td) => getComputedStyle(td).textAlign,
    );
  },
  async findings(doc, report, shot) {
    await find(doc, 'tbody tr');
    await painted();
    const names = () => [...doc().querySelectorAll('tbody tr td:first-child')].map(text);
    report.firstPage = names();
    report.count = text(doc().querySelector('[data-role=count]'));
    // search_knowledge's answer is one list: no pages, its filters work on the rows at hand.
    const searched = !doc().querySelector('[data-role=next]');
    if (!shot && searched) {
      const type = doc().querySelector('[data-role=filter-type]') as HTMLSelectElement;
      type.value = 'system';
      type.dispatchEvent(new Event('change'));
      report.systemRows = [...doc().querySelectorAll('tbody tr td:nth-child(2)')].map(text);
      report.systemCount = text(doc().querySelector('[data-role=count]'));
    }
    if (!shot && !searched) {
      (doc().querySelector('[data-role=next]') as HTMLButtonElement).click();
      await find(doc, '[data-role=count]', (e) => text(e) !== report.count);
      report.secondPage = names();
      report.secondCount = text(doc().querySelector('[data-role=count]'));
      const type = doc().querySelector('[data-role=filter-type]') as HTMLSelectElement;
      type.value = 'problem';
      type.dispatchEvent(new Event('change'));
      await find(doc, '[data-role=count]', (e) => text(e) !== report.secondCount);
      report.problemTypes = [...doc().querySelectorAll('tbody tr td:nth-child(2)')].map(text);
      // Sorting by name is the view's own: no call.
      (doc().querySelector('th') as HTMLElement).click();
      report.sortedByName = names();
    }
    const row = doc().querySelector('tbody tr') as HTMLElement;
    row.click();
    const card = await find(doc, '[data-role=entity-card]');
    report.cardTitle = text(card.querySelector('h2'));
    report.quotes = [...card.querySelectorAll('[data-role=quote]')].map(text);
    report.edges = card.querySelectorAll('[data-role=edges] li').length;
    // Where the eye is: the card opens right under the row clicked.
    const clicked = doc().querySelector(`tbody tr[data-id="${row.dataset.id}"]`)!.getBoundingClientRect();
    report.cardGap = Math.round(card.getBoundingClientRect().top - clicked.bottom);
    if (shot) return;
    // More than its recorded quotes: what the transcripts say of it.
    await find(doc, '[data-role=more-mentions]', (e) => !text(e).startsWith('Looking'));
    report.mentions = [...card.querySelectorAll('[data-role=mention]')].length;
    // A quote opens its meeting at that turn, the quote marked.
    const open = card.querySelector('[data-role=quote] [data-role=open-transcript]') as HTMLElement | null;
    if (open) {
      open.click();
      const focus = await find(doc, '[data-role=in-transcript] [data-role=turn].focus');
      report.quoteTurn = Number((focus as HTMLElement).dataset.turn);
      report.quoteMarked = text(focus.querySelector('mark'));
      report.quoteTurnText = text(focus);
    }
  },
  async transcript(doc, report, shot) {
    const search = !!(await find(doc, '[data-role=meeting], [data-role=turns], [data-role=empty]')).closest(
      '[data-role=meeting]',
    );
    await painted();
    if (search) {
      report.meetings = [...doc().querySelectorAll('[data-role=meeting]')].map((m) => ({
        id: (m as HTMLElement).dataset.id,
        name: text(m.querySelector('[data-role=meeting-name]')),
        hits: [...m.querySelectorAll('[data-role=hit]')].map((e) => (e as HTMLElement).dataset.turns),
      }));
      report.marks = [
        ...new Set([...doc().querySelectorAll('[data-role=hit] mark')].map((m) => text(m).toLowerCase())),
      ];
      report.speakers = [...doc().querySelectorAll('[data-role=speaker]')].map(text);
      if (shot) return;
      const hit = doc().querySelector('[data-role=hit]') as HTMLElement;
      report.widened = hit.dataset.turns;
      report.turnsBefore = hit.querySelectorAll('[data-role=turn]').length;
      (hit.querySelector('[data-role=more-context]') as HTMLElement).click();
      await find(doc, '[data-role=hit] .in-hit');
      report.turnsAfter = hit.querySelectorAll('[data-role=turn]').length;
      report.hitTurns = [...hit.querySelectorAll('.in-hit')].map((t) => Number((t as HTMLElement).dataset.turn));
      report.contextTurns = [...hit.querySelectorAll('[data-role=turn]')].map((t) =>
        Number((t as HTMLElement).dataset.turn),
      );
      return;
    }
    report.meetingName = text(doc().querySelector('[data-role=meeting-name]'));
    report.range = text(doc().querySelector('[data-role=range]'));
    report.turns = [...doc().querySelectorAll('[data-role=turn]')].map((t) => ({
      speaker: text(t.querySelector('[data-role=speaker]')),
      time: text(t.querySelector('[data-role=time]')),
      words: text(t.querySelector('[data-role=words]')),
    }));
    report.colours = [
      ...new Set(
        [...doc().querySelectorAll('[data-role=turn]')].map((t) =>
          (t as HTMLElement).style.getPropertyValue('--speaker'),
        ),
      ),
    ];
    if (shot) return;
    const box = doc().querySelector('[data-role=find]') as HTMLInputElement;
    box.value = params.get('find') ?? '';
    box.dispatchEvent(new Event('input'));
    report.found = text(doc().querySelector('[data-role=found]'));
    report.foundMarks = doc().querySelectorAll('[data-role=turn] mark').length;
    const later = doc().querySelector('[data-role=later]') as HTMLElement | null;
    if (later) {
      const before = doc().querySelectorAll('[data-role=turn]').length;
      later.click();
      await find(doc, '[data-role=range]', (e) => text(e) !== report.range);
      report.turnsAfterPaging = doc().querySelectorAll('[data-role=turn]').length;
      report.turnsBeforePaging = before;
      report.rangeAfter = text(doc().querySelector('[data-role=range]'));
    }
  },
  async quotes(doc, report, shot) {
    await find(doc, '[data-role=quotation], [data-role=empty]');
    await painted();
    report.summary = text(doc().querySelector('[data-role=summary]'));
    report.draft = text(doc().querySelector('[data-role=draft]'));
    report.marks = [...doc().querySelectorAll('[data-role=quote-mark]')].map((m) => ({
      index: Number((m as HTMLElement).dataset.index),
      verdict: (m as HTMLElement).dataset.verdict,
      text: text(m),
      colour: getComputedStyle(m).backgroundColor,
    }));
    report.cards = [...doc().querySelectorAll('[data-role=quotation]')].map((c) => ({
      index: Number((c as HTMLElement).dataset.index),
      verdict: text(c.querySelector('[data-role=verdict]')),
      misattributed: !!c.querySelector('[data-role=misattributed]'),
      speakers: [...c.querySelectorAll('[data-role=source-speaker]')].map(text),
      said: [...c.querySelectorAll('[data-role=said]')].map(text),
      context: [...c.querySelectorAll('[data-role=before], [data-role=after]')].map(text),
      quotedWords: [...c.querySelectorAll('[data-role=quoted-word]')].map(text),
      saidWords: [...c.querySelectorAll('[data-role=said-word]')].map(text),
      heading: text(c.querySelector('.source h3')),
      fix: text(c.querySelector('[data-role=fix]')),
    }));
    if (shot) return;
    // A mark in the draft takes the reader to its card.
    const marks = [...doc().querySelectorAll('[data-role=quote-mark]')] as HTMLElement[];
    const last = marks[marks.length - 1];
    if (last) {
      last.click();
      report.focused = [...doc().querySelectorAll('[data-role=quotation].focus')].map((c) =>
        Number((c as HTMLElement).dataset.index),
      );
      report.clickedMark = Number(last.dataset.index);
    }
  },
  async graph(doc, report, shot) {
    await find(doc, '[data-role=node]');
    await painted();
    const seen = () => [...doc().querySelectorAll('[data-role=node]')].map((g) => (g as HTMLElement).dataset.id);
    report.nodes = seen();
    report.links = doc().querySelectorAll('[data-role=link]').length;
    report.widths = [...doc().querySelectorAll('[data-role=link]')].map((l) => Number(l.getAttribute('stroke-width')));
    report.colours = [
      ...new Set([...doc().querySelectorAll('[data-role=node] circle')].map((c) => c.getAttribute('fill'))),
    ];
    report.labels = [...doc().querySelectorAll('[data-role=node] text')].map(text);
    report.nodeCount = doc().querySelectorAll('[data-role=node]').length;
    report.legend = text(doc().querySelector('[data-role=legend]'));
    const entity = doc().querySelector('[data-role=entity-card]');
    report.card = entity
      ? {
          description: text(entity.querySelector('[data-role=description]')),
          quotes: [...entity.querySelectorAll('[data-role=quote]')].map(text),
        }
      : null;
    // Labels in the graph's own units: none overlaps another, a dot or a line.
    const boxes = [...doc().querySelectorAll('[data-role=label]')].map((t) => ({
      name: text(t),
      box: (t as SVGGraphicsElement).getBBox(),
    }));
    const lines = [...doc().querySelectorAll('[data-role=link]')].map(
      (l) => ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k))) as [number, number, number, number],
    );
    const hit = (a: DOMRect, b: DOMRect) =>
      a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    const onLine = (b: DOMRect, [x1, y1, x2, y2]: number[]) =>
      Array.from({ length: 41 }, (_, i) => i / 40).some((t) => {
        const x = x1! + (x2! - x1!) * t;
        const y = y1! + (y2! - y1!) * t;
        return x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height;
      });
    report.labelOverlaps = boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => hit(a.box, b.box))
        .map((b) => `${a.name} / ${b.name}`),
    );
    report.labelsOnLines = boxes.filter((a) => lines.some((l) => onLine(a.box, l))).map((a) => a.name);
    if (shot) return;
    const count = text(doc().querySelector('[data-role=count]'));
    const target = report.nodes[1] as string;
    report.clicked = target;
    doc()
      .querySelector(`[data-role=node][data-id="${target}"]`)!
      .dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await find(doc, '[data-role=count]', (e) => text(e) !== count && !text(e.parentElement).includes('expanding'));
    report.nodesAfter = seen();
    report.selected = text(doc().querySelector('.bar strong'));
  },
  async conflicts(doc, report, shot) {
    await find(doc, '[data-role=conflict]');
    await painted();
    const cards = () => [...doc().querySelectorAll('[data-role=conflict]')] as HTMLElement[];
    report.cards = cards().map((c) => ({
      id: c.dataset.id,
      status: c.dataset.status,
      claims: [...c.querySelectorAll('[data-role=claim]')].map(text),
    }));
    if (shot) return;
    const first = cards().find((c) => c.dataset.status === 'open')!;
    report.acted = first.dataset.id;
    (first.querySelector('[data-role=note]') as HTMLTextAreaElement).value = String(
      new URLSearchParams(location.search).get('note') ?? '',
    );
    (first.querySelector('[data-action=resolved]') as HTMLButtonElement).click();
    const done = await find(
      doc,
      `[data-role=conflict][data-id="${report.acted}"] [data-role=message]`,
      (e) => text(e) !== 'Saving…',
    );
    report.message = text(done);
    report.readOnly = text(doc().querySelector('[data-role=read-only]')) || null;
    const after = cards().find((c) => c.dataset.id === report.acted)!;
    report.statusAfter = after.dataset.status;
    report.noteAfter = text(after.querySelector('[data-role=conflict-note]'));
    report.buttonsAfter = doc().querySelectorAll('[data-action]').length;
    if (!report.readOnly) {
      // The note it now has is in its note box, to edit; the change can be undone from the card.
      report.noteBox = (after.querySelector('[data-role=note]') as HTMLTextAreaElement | null)?.value ?? null;
      (after.querySelector('[data-role=undo]') as HTMLButtonElement).click();
      await find(
        doc,
        `[data-role=conflict][data-id="${report.acted}"]`,
        (e) => (e as HTMLElement).dataset.status === 'open',
      );
      report.statusAfterUndo = 'open';
    }
    // An empty tab says so.
    const empty = [...doc().querySelectorAll('[data-tab]')].find((b) => /\(0\)/.test(text(b))) as
      | HTMLElement
      | undefined;
    if (empty) {
      empty.click();
      report.emptyTab = text(doc().querySelector('[data-role=empty]'));
    }
  },
};

main()
  .catch((err: Error) => (report.error = String(err?.stack ?? err)))
  .finally(() => {
    // Base64 of the UTF-8 JSON: nothing in it can be taken for markup in the dumped DOM.
    const bytes = new TextEncoder().encode(JSON.stringify(report));
    document.getElementById('report')!.textContent = btoa(String.fromCharCode(...bytes));
    document.getElementById('report')!.dataset.done = '1';
  });
