/**
 * Chart lint: advice returned with a rendered chart, never a refusal. The rules follow the catalog's
 * guidance (time series → line, ranking → sorted horizontal bar, part-of-whole → arc, month buckets →
 * `timeUnit: "yearmonth"`) and stay modest: each fires only on a clear pattern.
 */
import { fieldValues, inlineRows, isObject, joinPath, type JsonObject } from './json.js';
import { VAULT_PALETTE } from './style.js';

/** Distinct colours a legend can show: the palette's; beyond them colours repeat. */
export const MAX_LEGEND_CATEGORIES = VAULT_PALETTE.length;
/** Slices a pie or donut can have before they stop being comparable. */
export const MAX_ARC_SLICES = 7;

interface Channel {
  def: JsonObject;
  path: string;
}

interface Unit {
  path: string;
  mark: string;
  encoding: Record<string, Channel>;
  /** Inline rows, when the unit's data is inline objects (undefined when unknown). */
  rows: JsonObject[] | undefined;
  /** Units of one layer stack share a group. */
  group: number;
}

const LINE_MARKS = new Set(['line', 'area', 'trail']);
const DISCRETE_TIME_MARKS = new Set(['bar', 'point', 'circle', 'square', 'tick']);
const COLOUR_CHANNELS = ['color', 'fill', 'stroke'] as const;

/** Returns the lint warnings for a checked spec, as sentences, in a stable order. */
export function lintChartSpec(spec: JsonObject): string[] {
  const warnings: string[] = [];
  const add = (w: string) => {
    if (!warnings.includes(w)) warnings.push(w);
  };
  const units: Unit[] = [];
  const datasets = isObject(spec.datasets) ? spec.datasets : {};
  let groups = 0;

  const visit = (
    node: JsonObject,
    path: string,
    data: unknown,
    inherited: Record<string, Channel>,
    group: number,
    depth: number,
  ) => {
    if (depth > 50) return;
    const ownData = node.data !== undefined ? node.data : data;
    const encoding: Record<string, Channel> = { ...inherited };
    if (isObject(node.encoding)) {
      for (const [channel, def] of Object.entries(node.encoding)) {
        if (isObject(def)) encoding[channel] = { def, path: joinPath(joinPath(path, 'encoding'), channel) };
      }
    }
    if (Array.isArray(node.transform)) {
      node.transform.forEach((t, i) => {
        if (isObject(t) && timeUnitName(t.timeUnit) === 'month')
          add(monthWarning(joinPath(joinPath(joinPath(path, 'transform'), i), 'timeUnit')));
      });
    }
    if (Array.isArray(node.layer)) {
      const g = ++groups;
      node.layer.forEach((child, i) => {
        if (isObject(child)) visit(child, joinPath(joinPath(path, 'layer'), i), ownData, encoding, g, depth + 1);
      });
      return;
    }
    for (const key of ['hconcat', 'vconcat', 'concat'] as const) {
      const list = node[key];
      if (Array.isArray(list)) {
        list.forEach((child, i) => {
          if (isObject(child)) visit(child, joinPath(joinPath(path, key), i), ownData, {}, ++groups, depth + 1);
        });
      }
    }
    if (isObject(node.spec)) visit(node.spec, joinPath(path, 'spec'), ownData, {}, ++groups, depth + 1);
    const mark =
      typeof node.mark === 'string'
        ? node.mark
        : isObject(node.mark) && typeof node.mark.type === 'string'
          ? node.mark.type
          : undefined;
    if (mark !== undefined) units.push({ path, mark, encoding, rows: inlineRows(ownData, datasets), group });
  };
  visit(spec, '', undefined, {}, 0, 0);

  for (const unit of units) {
    for (const { def, path } of Object.values(unit.encoding)) {
      if (timeUnitName(def.timeUnit) === 'month') add(monthWarning(joinPath(path, 'timeUnit')));
    }
    monthlyWithoutTimeUnit(unit, add);
    ranking(unit, add);
    legend(unit, add);
    pie(unit, add);
  }
  timeSeries(units, add);
  return warnings;
}

function monthWarning(path: string): string {
  return `${path} is "month", which drops the year: the same month of different years falls into one bucket and the axis shows no year. Use "timeUnit": "yearmonth" for monthly buckets.`;
}

/** A temporal x or y whose dates are all first-of-month, with no timeUnit: the axis is labelled by day. */
function monthlyWithoutTimeUnit(unit: Unit, add: (w: string) => void): void {
  for (const channel of ['x', 'y'] as const) {
    const c = unit.encoding[channel];
    if (c?.def.type !== 'temporal' || c.def.timeUnit !== undefined || typeof c.def.field !== 'string') continue;
    const values = fieldValues(unit.rows, c.def.field);
    if (values && isMonthly(values)) {
      add(
        `${c.path}: the dates in field "${c.def.field}" are months, but without a timeUnit the axis is labelled by day. Add "timeUnit": "yearmonth".`,
      );
    }
  }
}

/** Temporal x (with the year in it) drawn only as bars or points, with no line or area in the same layer stack. */
function timeSeries(units: Unit[], add: (w: string) => void): void {
  const byGroup = new Map<number, Unit[]>();
  for (const u of units) byGroup.set(u.group, [...(byGroup.get(u.group) ?? []), u]);
  for (const group of byGroup.values()) {
    if (group.some((u) => LINE_MARKS.has(u.mark))) continue;
    const offender = group.find((u) => DISCRETE_TIME_MARKS.has(u.mark) && isTimeSeriesAxis(u.encoding.x?.def));
    if (!offender) continue;
    const x = offender.encoding.x?.def;
    const field = typeof x?.field === 'string' ? ` of "${x.field}"` : '';
    add(
      `${joinPath(offender.path, 'mark')}: a time series (a time axis${field} on x) is drawn with "${offender.mark}" marks; draw it as a line ("mark": "line"), or an area for totals.`,
    );
  }
}

function isTimeSeriesAxis(def: JsonObject | undefined): boolean {
  if (!def) return false;
  const unit = timeUnitName(def.timeUnit);
  const temporal = def.type === 'temporal' || (def.type === undefined && unit !== undefined);
  return temporal && (unit === undefined || unit.includes('year'));
}

/** A bar chart of a quantity per nominal category: should be horizontal and sorted by value. */
function ranking(unit: Unit, add: (w: string) => void): void {
  if (unit.mark !== 'bar' || unit.encoding.xOffset || unit.encoding.yOffset) return;
  const x = unit.encoding.x;
  const y = unit.encoding.y;
  if (!x || !y) return;
  const nominalOn =
    isNominal(x.def) && isQuantity(y.def) ? 'x' : isNominal(y.def) && isQuantity(x.def) ? 'y' : undefined;
  if (!nominalOn) return;
  const cat = nominalOn === 'x' ? x : y;
  const valueChannel = nominalOn === 'x' ? 'y' : 'x';
  const value = nominalOn === 'x' ? y : x;
  const catField = typeof cat.def.field === 'string' ? cat.def.field : undefined;
  if (catField) {
    const values = fieldValues(unit.rows, catField);
    if (values && (new Set(values.map(String)).size <= 2 || values.every(looksLikeTime))) return;
  }
  const sorted = sortedByValue(cat.def.sort, valueChannel, value.def);
  const vertical = nominalOn === 'x';
  if (sorted && !vertical) return;
  const what = `bars of ${typeof value.def.field === 'string' ? `"${value.def.field}"` : 'a value'} per ${catField ? `"${catField}"` : 'category'}`;
  if (vertical && !sorted) {
    add(
      `${cat.path}: this ranking (${what}) uses unsorted vertical bars; draw it as horizontal bars sorted by value: categories on y, values on x, and "sort": "-x" on y.`,
    );
  } else if (vertical) {
    add(
      `${cat.path}: this ranking (${what}) uses vertical bars; horizontal bars (categories on y, values on x) keep the labels readable.`,
    );
  } else {
    add(
      `${cat.path}: the ${what} are not sorted by value; add "sort": "-${valueChannel}" so the ranking reads from largest to smallest.`,
    );
  }
}

function isNominal(def: JsonObject): boolean {
  if (def.type !== undefined) return def.type === 'nominal';
  return (
    typeof def.field === 'string' && def.timeUnit === undefined && def.bin === undefined && def.aggregate === undefined
  );
}

function isQuantity(def: JsonObject): boolean {
  if (def.bin !== undefined && def.bin !== false) return false;
  return def.type === 'quantitative' || (def.type === undefined && def.aggregate !== undefined);
}

function sortedByValue(sort: unknown, valueChannel: string, valueDef: JsonObject): boolean {
  if (sort === undefined) return false;
  if (sort === null || Array.isArray(sort)) return true; // data order or an explicit order: deliberate
  if (typeof sort === 'string') return sort === valueChannel || sort === `-${valueChannel}`;
  if (isObject(sort)) {
    if (sort.encoding !== undefined) return sort.encoding === valueChannel;
    return (
      sort.field !== undefined || (sort.op !== undefined && (sort.op !== 'count' || valueDef.aggregate === 'count'))
    );
  }
  return false;
}

const MONTH_NAMES =
  /^(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\.?$/i;

/** Years, ISO dates, quarters and month names: categories with an order of their own, not a ranking. */
function looksLikeTime(v: unknown): boolean {
  const s = String(v).trim();
  return (
    /^(19|20)\d\d([-/.]\d{1,2}([-/.]\d{1,2})?)?$/.test(s) ||
    /^(Q[1-4]|H[12])([ -]?(19|20)\d\d)?$/i.test(s) ||
    /^(19|20)\d\d[ -]?(Q[1-4]|H[12])$/i.test(s) ||
    MONTH_NAMES.test(s) ||
    MONTH_NAMES.test(s.split(/[ -]/)[0] ?? '')
  );
}

/** More colour categories than the palette has colours. */
function legend(unit: Unit, add: (w: string) => void): void {
  for (const channel of COLOUR_CHANNELS) {
    const c = unit.encoding[channel];
    if (!c || typeof c.def.field !== 'string') continue;
    const type =
      c.def.type ??
      (c.def.timeUnit === undefined && c.def.aggregate === undefined && c.def.bin === undefined
        ? 'nominal'
        : undefined);
    if (type !== 'nominal' && type !== 'ordinal') continue;
    const values = fieldValues(unit.rows, c.def.field);
    const n = values ? new Set(values.map((v) => JSON.stringify(v))).size : 0;
    if (n > MAX_LEGEND_CATEGORIES) {
      add(
        `${c.path}: the colour legend has ${n} categories of "${c.def.field}", and the palette has ${MAX_LEGEND_CATEGORIES} distinct colours, so colours repeat. Keep the largest ${MAX_LEGEND_CATEGORIES - 1} and group the rest as "Other", or use a bar chart.`,
      );
    }
  }
}

/** A pie or donut with more slices than the eye can compare. */
function pie(unit: Unit, add: (w: string) => void): void {
  if (unit.mark !== 'arc') return;
  const colour = COLOUR_CHANNELS.map((ch) => unit.encoding[ch]).find((c) => c && typeof c.def.field === 'string');
  let slices: number | undefined;
  if (colour) {
    const values = fieldValues(unit.rows, colour.def.field as string);
    if (values) slices = new Set(values.map((v) => JSON.stringify(v))).size;
  } else if (unit.rows) {
    slices = unit.rows.length;
  }
  if (slices !== undefined && slices > MAX_ARC_SLICES) {
    add(
      `${joinPath(unit.path, 'mark')}: the pie has ${slices} slices; beyond ${MAX_ARC_SLICES} they are hard to compare. Group the small ones as "Other", or use a sorted horizontal bar chart.`,
    );
  }
}

/** A time unit's name in lower case, without `utc` or `binned`: `"utcYearMonth"` → `"yearmonth"`. */
export function timeUnitName(timeUnit: unknown): string | undefined {
  const name =
    typeof timeUnit === 'string'
      ? timeUnit
      : isObject(timeUnit) && typeof timeUnit.unit === 'string'
        ? timeUnit.unit
        : undefined;
  if (name === undefined) return undefined;
  const lower = name.toLowerCase();
  return lower.startsWith('utc') ? lower.slice(3) : lower.startsWith('binned') ? lower.slice(6) : lower;
}

const MONTH_START = /^(\d{4})-(\d{2})(?:-01)?(?:[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?)?$/;

/** At least two distinct dates, every one the first day of a month at midnight. */
function isMonthly(values: unknown[]): boolean {
  const months = new Set<string>();
  for (const v of values) {
    if (typeof v === 'string') {
      const m = MONTH_START.exec(v.trim());
      if (!m) return false;
      months.add(`${m[1]}-${m[2]}`);
    } else if (typeof v === 'number' && v > 1e11) {
      const d = new Date(v);
      if (d.getUTCDate() !== 1 || d.getUTCHours() !== 0 || d.getUTCMinutes() !== 0) return false;
      months.add(`${d.getUTCFullYear()}-${d.getUTCMonth()}`);
    } else {
      return false;
    }
  }
  return months.size >= 2;
}
