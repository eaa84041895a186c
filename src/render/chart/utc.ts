/**
 * Dates in UTC: local time makes the same spec draw different months on machines in different time zones. Used
 * by the PNG (theme.ts) and by the chart view, so both draw the same months. Pure: no Node, no DOM.
 */
import { isObject, type JsonObject } from './json.js';

/** Rewrites the spec in place so every date is handled in UTC (see utcNode). */
export function toUtc(spec: JsonObject): void {
  utcNode(spec, 0);
}

const DATE_TIME_KEYS = new Set([
  'year',
  'quarter',
  'month',
  'date',
  'day',
  'hours',
  'minutes',
  'seconds',
  'milliseconds',
  'utc',
]);
const SKIP = new Set(['datasets', 'usermeta', 'config']);

/**
 * Local time makes the same spec draw different months on machines in different time zones (a date such
 * as "2024-03-01" is UTC midnight, which is still February west of Greenwich). Every time unit, temporal
 * scale, date parse pattern and DateTime object is switched to UTC.
 */
function utcNode(node: unknown, depth: number): void {
  if (depth > 200) return;
  if (Array.isArray(node)) {
    for (const item of node) utcNode(item, depth + 1);
    return;
  }
  if (!isObject(node)) return;

  const keys = Object.keys(node);
  if (
    keys.length > 0 &&
    keys.every((k) => DATE_TIME_KEYS.has(k)) &&
    keys.some((k) => k !== 'utc') &&
    node.utc === undefined
  ) {
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
    utcNode(value, depth + 1);
  }
}

/** Keys whose string values are Vega expressions. */
const EXPRESSION_KEYS = new Set(['calculate', 'filter', 'expr', 'labelExpr', 'test']);
const LOCAL_TIME_FUNCTIONS =
  /(?<![\w.$])(year|quarter|month|date|day|dayofyear|week|hours|minutes|seconds|milliseconds|time(Format|Parse|Offset|Sequence))\s*\(/g;

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
  const temporal =
    def.type === 'temporal' ||
    (def.type === undefined && def.timeUnit !== undefined && (def.field !== undefined || def.datum !== undefined));
  if (!temporal) return;
  if (def.scale === undefined) def.scale = { type: 'utc' };
  else if (isObject(def.scale) && (def.scale.type === undefined || def.scale.type === 'time')) def.scale.type = 'utc';
}
