/**
 * The chart view (render_chart): the same Vega-Lite spec, drawn live by vega-embed with the vault's palette and
 * the host's theme, a tooltip on every mark, and the data as a table one click away. The PNG stays in the result.
 */
import embed from 'vega-embed';
import { GRID, INK, MUTED, RULE, TEXT, VAULT_PALETTE } from '../src/render/chart/style.js';
import { h, isDark, plain, show, startView, type Json } from './common.js';

let spec: Json | undefined;
let title = '';
let warnings: string[] = [];

/** The vault theme as the PNG has it, in the host's light or dark. Fonts are the host's. */
function themeConfig(): Json {
  const dark = isDark();
  const ink = dark ? '#f3f4f6' : INK;
  const text = dark ? '#d1d5db' : TEXT;
  const grid = dark ? '#374151' : GRID;
  return {
    background: null,
    padding: 12,
    font: 'var(--font-sans, system-ui, sans-serif)',
    range: { category: [...VAULT_PALETTE] },
    title: { color: ink, subtitleColor: MUTED, anchor: 'start', fontSize: 16 },
    axis: { labelColor: text, titleColor: ink, gridColor: grid, domainColor: RULE, tickColor: RULE, labelLimit: 240 },
    axisQuantitative: { tickCount: 6 },
    axisBand: { ticks: false, domain: false },
    legend: { labelColor: text, titleColor: ink },
    view: { stroke: null },
    // One colour for a single series, as in the PNG; every mark answers hover with its encoded fields.
    mark: { color: VAULT_PALETTE[0], tooltip: true },
  };
}

/**
 * The spec as the view draws it: without `usermeta`, whose `embedOptions` vega-embed would merge over the
 * options below (a spec could turn the actions menu back on and have "View Source" write its own script into a
 * new window), and with every string's bidi controls made visible (labels are text from the vault).
 */
export function drawableSpec(s: Json): Json {
  const { usermeta: _ignored, ...rest } = s;
  return plainStrings(rest) as Json;
}

function plainStrings(value: unknown): unknown {
  if (typeof value === 'string') return plain(value);
  if (Array.isArray(value)) return value.map(plainStrings);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainStrings(v)]));
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
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return h(
    'table',
    { 'data-role': 'data-table' },
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', {}, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...columns.map((c) => h('td', { class: typeof r[c] === 'number' ? 'num' : undefined }, r[c] === undefined ? '' : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c])))))),
  );
}

async function draw(): Promise<void> {
  if (!spec) return;
  const rows = rowsOf(spec);
  const chart = h('div', { id: 'chart', style: 'width:100%' });
  const table = dataTable(rows);
  table.hidden = true;
  const toggle = h('button', { 'data-role': 'toggle-data', onclick: () => ((table.hidden = !table.hidden), (toggle.textContent = table.hidden ? `Show data (${rows.length} rows)` : 'Hide data')) }, `Show data (${rows.length} rows)`);
  show(h('div', { class: 'bar' }, toggle), chart, table, ...warnings.map((w) => h('p', { class: 'muted' }, w)));
  const live = { ...drawableSpec(spec), title: plain(title), config: themeConfig() } as Json;
  // Fill the frame's width unless the spec is a composition (which sizes its own views).
  if (!('facet' in live || 'concat' in live || 'hconcat' in live || 'vconcat' in live || 'repeat' in live)) Object.assign(live, { width: 'container', height: 320, autosize: { type: 'fit', contains: 'padding' } });
  try {
    await embed(chart, live as never, { actions: false, renderer: 'svg', tooltip: { theme: isDark() ? 'dark' : 'light' } });
  } catch (err) {
    chart.replaceChildren(h('p', { class: 'error' }, `The chart could not be drawn here: ${(err as Error).message}`));
  }
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
