/**
 * The chart view (render_chart): the same Vega-Lite spec, drawn live by vega-embed with the vault's palette and
 * the host's theme, a tooltip on every mark, and the data as a table one click away. The PNG stays in the result.
 *
 * It draws what the PNG draws: the spec goes through the PNG's own rewrites (human axis titles, a value domain
 * that ends on a tick, value labels on a ranking, categories in natural order, dates in UTC). Only the canvas
 * differs: the view fills the frame's width instead of a slide.
 *
 * Vega runs through its expression interpreter (`ast: true`), never `new Function`, so the view draws under the
 * MCP Apps default CSP, which has no 'unsafe-eval'.
 */
import embed from 'vega-embed';
import { humanizeAxes } from '../src/render/chart/axes.js';
import { orderCategoriesNaturally } from '../src/render/chart/order.js';
import { labelPieShares } from '../src/render/chart/pie.js';
import { GRID, INK, MUTED, RULE, TEXT, VALUE_TICKS, VAULT_PALETTE } from '../src/render/chart/style.js';
import { toUtc } from '../src/render/chart/utc.js';
import { labelRankingBars } from '../src/render/chart/value-labels.js';
import { h, isDark, plain, show, startView, type Json } from './common.js';

let spec: Json | undefined;
let title = '';
let warnings: string[] = [];

/**
 * The font the page uses, as a family list Vega can measure with: a CSS `var()` is not a font to the canvas Vega
 * measures labels with, so the layout was computed for another font than the SVG drew (the longest label was
 * clipped at the left edge).
 */
const pageFont = (): string => getComputedStyle(document.body).fontFamily || 'system-ui, sans-serif';

/** The vault theme as the PNG has it, in the host's light or dark. Fonts are the host's. */
function themeConfig(): Json {
  const dark = isDark();
  const ink = dark ? '#f3f4f6' : INK;
  const text = dark ? '#d1d5db' : TEXT;
  const grid = dark ? '#374151' : GRID;
  const font = pageFont();
  return {
    background: null,
    padding: { left: 16, right: 24, top: 8, bottom: 8 },
    font,
    range: { category: [...VAULT_PALETTE] },
    title: { color: ink, subtitleColor: MUTED, anchor: 'start', fontSize: 16, font, offset: 12 },
    axis: {
      labelColor: text,
      titleColor: ink,
      gridColor: grid,
      domainColor: RULE,
      tickColor: RULE,
      labelLimit: 260,
      labelFontSize: 12,
      titleFontSize: 12,
      titleFontWeight: 'bold',
      titlePadding: 10,
      labelFont: font,
      titleFont: font,
    },
    // As the PNG: grid lines for the values, no axis line or ticks, the zero line stronger than the grid.
    axisQuantitative: {
      tickCount: VALUE_TICKS,
      grid: true,
      domain: false,
      ticks: false,
      gridColor: { condition: { test: 'datum.value === 0', value: RULE }, value: grid },
    },
    axisBand: { ticks: false, domain: false, labelPadding: 6 },
    legend: { labelColor: text, titleColor: ink, labelFont: font, titleFont: font },
    view: { stroke: null },
    scale: { bandPaddingInner: 0.25 },
    // One colour for a single series, as in the PNG; every mark answers hover with its encoded fields.
    mark: { color: VAULT_PALETTE[0], tooltip: true },
    text: { color: ink, fontSize: 12, font, tooltip: false },
  };
}

/**
 * The spec as the view draws it: the PNG's rewrites applied, then without `usermeta`, whose `embedOptions`
 * vega-embed would merge over the options below (a spec could turn the actions menu back on and have "View
 * Source" write its own script into a window), and with every string's bidi controls made visible (labels are
 * text from the vault).
 */
export function drawableSpec(s: Json): Json {
  const copy = structuredClone(s);
  humanizeAxes(copy);
  labelPieShares(copy); // as the PNG: slices and legend by value, with percentages
  orderCategoriesNaturally(copy);
  labelRankingBars(copy); // reads usermeta.valueLabels, so before usermeta goes
  toUtc(copy);
  delete copy.usermeta;
  return plainStrings(copy) as Json;
}

function plainStrings(value: unknown): unknown {
  if (typeof value === 'string') return plain(value);
  if (Array.isArray(value)) return value.map(plainStrings);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainStrings(v)]));
  return value;
}

/** The rows the spec carries inline (data.values, or its datasets). */
function rowsOf(s: Json): Json[] {
  const data = s.data as Json | undefined;
  if (Array.isArray(data?.values)) return data.values as Json[];
  const datasets = s.datasets as Record<string, Json[]> | undefined;
  const named = typeof data?.name === 'string' ? datasets?.[data.name] : undefined;
  return Array.isArray(named) ? named : [];
}

function dataTable(rows: Json[]): HTMLElement {
  const columns = [...new Set(rows.flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : [])))];
  // A column of numbers is right-aligned, its header with it.
  const numeric = new Set(
    columns.filter(
      (c) =>
        rows.some((r) => typeof r[c] === 'number') &&
        rows.every((r) => r[c] === undefined || r[c] === null || typeof r[c] === 'number'),
    ),
  );
  const cell = (v: unknown) =>
    v === undefined || v === null
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : typeof v === 'number'
          ? v.toLocaleString('en-US')
          : String(v);
  return h(
    'table',
    { 'data-role': 'data-table' },
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { class: numeric.has(c) ? 'num' : undefined }, c)))),
    h(
      'tbody',
      {},
      ...rows.map((r) =>
        h('tr', {}, ...columns.map((c) => h('td', { class: numeric.has(c) ? 'num' : undefined }, cell(r[c])))),
      ),
    ),
  );
}

async function draw(): Promise<void> {
  if (!spec) return;
  const rows = rowsOf(spec);
  const chart = h('div', { id: 'chart', style: 'width:100%' });
  const table = dataTable(rows);
  table.hidden = true;
  const label = () => (table.hidden ? `Show data (${rows.length} ${rows.length === 1 ? 'row' : 'rows'})` : 'Hide data');
  const toggle = h(
    'button',
    { 'data-role': 'toggle-data', onclick: () => ((table.hidden = !table.hidden), (toggle.textContent = label())) },
    label(),
  );
  // The chart first (its title is the view's heading), then what is under it: the data, the advice.
  show(
    chart,
    rows.length ? h('div', { class: 'bar' }, toggle) : null,
    table,
    ...warnings.map((w) => h('p', { class: 'muted' }, w)),
  );
  const live = { ...drawableSpec(spec), title: plain(title), config: themeConfig() } as Json;
  // Fill the frame's width unless the spec is a composition (which sizes its own views).
  if (!('facet' in live || 'concat' in live || 'hconcat' in live || 'vconcat' in live || 'repeat' in live)) {
    Object.assign(live, { width: 'container', autosize: { type: 'fit-x', contains: 'padding' } });
    if (live.height === undefined) live.height = barRows(live) ? { step: 28 } : 300;
  }
  try {
    await embed(chart, live as never, {
      actions: false,
      ast: true,
      renderer: 'svg',
      tooltip: { theme: isDark() ? 'dark' : 'light' },
    });
  } catch (err) {
    chart.replaceChildren(h('p', { class: 'error' }, `The chart could not be drawn here: ${(err as Error).message}`));
  }
}

/** A horizontal ranking (categories down the y axis): as tall as its bars need, a row per category. */
function barRows(s: Json): boolean {
  const layers = Array.isArray(s.layer) ? (s.layer as Json[]) : [s];
  const encoding = (s.encoding ?? layers[0]?.encoding) as Json | undefined;
  const y = encoding?.y as Json | undefined;
  return !!y && (y.type === 'nominal' || y.type === 'ordinal');
}

startView('chart', {
  input(args) {
    if (args.vega_lite_spec && typeof args.vega_lite_spec === 'object') spec = args.vega_lite_spec as Json;
    title = typeof args.title === 'string' ? args.title : '';
    void draw();
  },
  result(data) {
    warnings = Array.isArray(data.warnings) ? (data.warnings as string[]) : [];
    if (!title && typeof data.title === 'string') title = data.title;
    if (spec) void draw();
    else show(h('p', { class: 'muted' }, `${title}: the chart is in the image above.`));
  },
  theme: () => void draw(),
});
