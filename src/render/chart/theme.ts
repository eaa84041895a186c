/**
 * The vault theme (a Vega-Lite `config`) and the rewrite that turns a checked spec into the spec we render:
 * theme applied, title replaced, dates in UTC.
 */
import { FONT_FAMILY } from '../font.js';
import { fieldValues, inlineRows, isObject, type JsonObject } from './json.js';

/** Categorical palette, in the order series receive them. Ten hues chosen to stay apart in print and for the common colour-vision deficiencies at 2× density. */
export const VAULT_PALETTE = [
  '#2f6fdb', // blue
  '#f08c2e', // orange
  '#22a37a', // green
  '#d9475a', // red
  '#8a5cd1', // violet
  '#1fa5c4', // cyan
  '#e0b12b', // gold
  '#c25a9e', // plum
  '#7a8b3c', // olive
  '#8590a0', // slate
] as const;

const INK = '#1f2937'; // titles
const TEXT = '#4b5563'; // labels
const MUTED = '#6b7280'; // subtitles
const GRID = '#e5e7eb';
const RULE = '#9ca3af'; // axis domains and ticks
/** Width of one category on a discrete x axis, in spec pixels. */
const DISCRETE_STEP = 28;
/** Category labels up to this many characters fit level under one step (11 px DejaVu Sans, about 7 px a character). */
const LEVEL_LABEL_CHARS = 3;

/** Vega-Lite config of every chart: white background, 16 px padding, DejaVu Sans everywhere. */
export const VAULT_THEME: JsonObject = {
  background: '#ffffff',
  padding: 16,
  font: FONT_FAMILY,
  view: { continuousWidth: 560, continuousHeight: 320, discreteWidth: { step: DISCRETE_STEP }, discreteHeight: { step: 24 }, stroke: null },
  title: {
    font: FONT_FAMILY,
    fontSize: 16,
    fontWeight: 'bold',
    lineHeight: 21,
    color: INK,
    anchor: 'start',
    frame: 'bounds',
    offset: 14,
    subtitleFont: FONT_FAMILY,
    subtitleFontSize: 12,
    subtitleColor: MUTED,
    subtitleLineHeight: 16,
    subtitlePadding: 4,
  },
  axis: {
    labelFont: FONT_FAMILY,
    labelFontSize: 11,
    labelColor: TEXT,
    labelPadding: 4,
    titleFont: FONT_FAMILY,
    titleFontSize: 11,
    titleFontWeight: 'bold',
    titleColor: INK,
    titlePadding: 10,
    gridColor: GRID,
    gridWidth: 1,
    domainColor: RULE,
    tickColor: RULE,
    tickSize: 4,
  },
  axisQuantitative: { grid: true, domain: false, ticks: false, tickCount: 6 },
  axisBand: { grid: false, ticks: false, labelPadding: 6 },
  axisTemporal: { grid: false },
  legend: {
    labelFont: FONT_FAMILY,
    labelFontSize: 11,
    labelColor: TEXT,
    titleFont: FONT_FAMILY,
    titleFontSize: 11,
    titleFontWeight: 'bold',
    titleColor: INK,
    titlePadding: 6,
    rowPadding: 5,
    symbolType: 'circle',
    symbolSize: 64,
    symbolStrokeWidth: 0,
    gradientLength: 160,
    gradientThickness: 10,
    gradientStrokeWidth: 0,
  },
  header: {
    labelFont: FONT_FAMILY,
    labelFontSize: 12,
    labelColor: INK,
    titleFont: FONT_FAMILY,
    titleFontSize: 12,
    titleFontWeight: 'bold',
    titleColor: INK,
  },
  range: {
    category: [...VAULT_PALETTE],
    ordinal: { scheme: 'blues' },
    ramp: { scheme: 'blues' },
    heatmap: { scheme: 'blues' },
    diverging: { scheme: 'redblue' },
  },
  mark: { color: VAULT_PALETTE[0], font: FONT_FAMILY },
  bar: { binSpacing: 1, discreteBandSize: { band: 0.75 } },
  line: { strokeWidth: 2.5, strokeCap: 'round', strokeJoin: 'round' },
  trail: { strokeCap: 'round' },
  point: { filled: true, size: 48 },
  circle: { size: 48 },
  square: { size: 48 },
  area: { opacity: 0.85 },
  arc: { stroke: '#ffffff', strokeWidth: 1.5 },
  rect: { stroke: '#ffffff', strokeWidth: 0.5 },
  rule: { color: RULE },
  text: { color: INK, fontSize: 11, font: FONT_FAMILY },
  tick: { thickness: 2 },
  boxplot: { median: { color: '#ffffff' } },
};

/** What the renderer needs beyond the spec itself. */
export interface PreparedSpec {
  spec: JsonObject;
  /** Adjustments made to the spec that the caller should know about. */
  notes: string[];
}

/**
 * The spec we render: a copy of the (already checked) spec with the vault theme as its config (the spec's own
 * config, which cannot set colours, is merged over it), `title` as the chart title, and dates handled in UTC
 * so the image does not depend on the machine's time zone.
 */
export function prepareChartSpec(checked: JsonObject, title: string): PreparedSpec {
  const spec = structuredClone(checked);
  const notes: string[] = [];

  const text = title.trim();
  const old = spec.title;
  const subtitle = isObject(old) && (typeof old.subtitle === 'string' || Array.isArray(old.subtitle)) ? old.subtitle : undefined;
  if (text || subtitle !== undefined) {
    const lines = text.split(/\r?\n/).flatMap((line) => wrap(line.trim(), TITLE_LINE_CHARS));
    spec.title = { text: lines.length > 1 ? lines : text, ...(subtitle !== undefined ? { subtitle } : {}) };
  } else {
    delete spec.title;
  }

  spec.config = mergeConfig(VAULT_THEME, isObject(spec.config) ? spec.config : {});

  for (const key of ['width', 'height'] as const) {
    if (spec[key] === 'container') {
      delete spec[key];
      notes.push(`"${key}": "container" needs a web page to size against; the chart uses the default ${key} instead.`);
    }
  }

  // A pie or donut in the default 560 × 320 view floats in empty space: make its view square.
  if (isArcChart(spec)) {
    const side = typeof spec.width === 'number' ? spec.width : typeof spec.height === 'number' ? spec.height : ARC_SIDE;
    spec.width ??= side;
    spec.height ??= side;
  }

  levelShortLabels(spec, undefined, isObject(spec.datasets) ? spec.datasets : {}, 0);
  toUtc(spec, 0);
  return { spec, notes };
}

/** A title line longer than this (about the width of a default chart at 16 px bold) wraps at a space. */
const TITLE_LINE_CHARS = 56;

function wrap(line: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of line.split(/\s+/)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  lines.push(current);
  return lines;
}

const ARC_SIDE = 320;

/**
 * Vega-Lite turns every category label on a discrete x axis on its side. Short ones (months, weekdays,
 * codes) read better level, so when the inline data shows that all labels are short they stay level.
 */
function levelShortLabels(node: JsonObject, data: unknown, datasets: JsonObject, depth: number): void {
  if (depth > 50) return;
  const own = node.data !== undefined ? node.data : data;
  const x = isObject(node.encoding) ? node.encoding.x : undefined;
  if (isObject(x) && (x.type === 'nominal' || x.type === 'ordinal') && x.timeUnit === undefined && typeof x.field === 'string') {
    const axis = x.axis;
    const values = fieldValues(inlineRows(own, datasets), x.field);
    if (axis !== null && (axis === undefined || (isObject(axis) && axis.labelAngle === undefined)) && values?.every((v) => String(v).length <= LEVEL_LABEL_CHARS)) {
      x.axis = { ...(isObject(axis) ? axis : {}), labelAngle: 0 };
    }
  }
  for (const key of ['layer', 'hconcat', 'vconcat', 'concat'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) if (isObject(child)) levelShortLabels(child, own, datasets, depth + 1);
  }
  if (isObject(node.spec)) levelShortLabels(node.spec, own, datasets, depth + 1);
}

/** A single view (or layer stack) drawn with arcs, such as a pie or donut with its labels. */
function isArcChart(spec: JsonObject): boolean {
  const markType = (m: unknown) => (typeof m === 'string' ? m : isObject(m) ? m.type : undefined);
  if (spec.mark !== undefined) return markType(spec.mark) === 'arc';
  if (!Array.isArray(spec.layer)) return false;
  const marks = spec.layer.map((l) => (isObject(l) ? markType(l.mark) : undefined));
  return marks.includes('arc') && marks.every((m) => m === 'arc' || m === 'text');
}

function mergeConfig(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? mergeConfig(current, value) : value;
  }
  return out;
}

const DATE_TIME_KEYS = new Set(['year', 'quarter', 'month', 'date', 'day', 'hours', 'minutes', 'seconds', 'milliseconds', 'utc']);
const SKIP = new Set(['datasets', 'usermeta', 'config']);

/**
 * Local time makes the same spec draw different months on machines in different time zones (a date such
 * as "2024-03-01" is UTC midnight, which is still February west of Greenwich). Every time unit, temporal
 * scale, date parse pattern and DateTime object is switched to UTC.
 */
function toUtc(node: unknown, depth: number): void {
  if (depth > 200) return;
  if (Array.isArray(node)) {
    for (const item of node) toUtc(item, depth + 1);
    return;
  }
  if (!isObject(node)) return;

  const keys = Object.keys(node);
  if (keys.length > 0 && keys.every((k) => DATE_TIME_KEYS.has(k)) && keys.some((k) => k !== 'utc') && node.utc === undefined) {
    node.utc = true;
    return;
  }

  for (const key of keys) {
    const value = node[key];
    if (SKIP.has(key)) continue;
    if (key === 'data') {
      // Inline rows are data, not spec: only the parse instructions are rewritten.
      const parse = isObject(value) && isObject(value.format) ? value.format.parse : undefined;
      if (isObject(parse)) utcParse(parse);
      continue;
    }
    if (key === 'timeUnit') {
      if (typeof value === 'string' && !value.startsWith('utc')) node[key] = `utc${value}`;
      else if (isObject(value) && value.utc === undefined) value.utc = true;
      continue;
    }
    if (EXPRESSION_KEYS.has(key) && typeof value === 'string') {
      node[key] = utcExpression(value);
      continue;
    }
    if (key === 'formatType' && value === 'time') {
      node[key] = 'utc';
      continue;
    }
    if (key === 'encoding' && isObject(value)) {
      for (const def of Object.values(value)) {
        for (const d of Array.isArray(def) ? def : [def]) utcScale(d);
      }
    }
    toUtc(value, depth + 1);
  }
}

/** Keys whose string values are Vega expressions. */
const EXPRESSION_KEYS = new Set(['calculate', 'filter', 'expr', 'labelExpr', 'test']);
const LOCAL_TIME_FUNCTIONS = /(?<![\w.$])(year|quarter|month|date|day|dayofyear|week|hours|minutes|seconds|milliseconds|time(Format|Parse|Offset|Sequence))\s*\(/g;

/** `month(datum.d)` → `utcmonth(datum.d)`, `timeFormat(…)` → `utcFormat(…)`, `datetime(…)` → `utc(…)`. */
export function utcExpression(expr: string): string {
  return expr
    .replace(LOCAL_TIME_FUNCTIONS, (_, name: string, time?: string) => (time ? `utc${time}(` : `utc${name}(`))
    .replace(/(?<![\w.$])datetime\s*\(/g, 'utc(');
}

function utcParse(parse: JsonObject): void {
  for (const [field, type] of Object.entries(parse)) {
    if (typeof type === 'string' && type.startsWith('date:')) parse[field] = `utc:${type.slice(5)}`;
  }
}

function utcScale(def: unknown): void {
  if (!isObject(def)) return;
  const temporal = def.type === 'temporal' || (def.type === undefined && def.timeUnit !== undefined && (def.field !== undefined || def.datum !== undefined));
  if (!temporal) return;
  if (def.scale === undefined) def.scale = { type: 'utc' };
  else if (isObject(def.scale) && (def.scale.type === undefined || def.scale.type === 'time')) def.scale.type = 'utc';
}
