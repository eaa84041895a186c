/**
 * Natural order for categories: Vega sorts strings by code unit, so a legend of "Series 1" … "Series 12"
 * reads 1, 10, 11, 12, 2. A discrete channel with no sort of its own, whose values the inline data shows,
 * gets them as an explicit order compared the way people read numbers (1, 2, …, 10, 11, 12).
 */
import { fieldValues, inlineRows, isObject, type JsonObject } from './json.js';
import { MAX_SORT_VALUES } from './limits.js';

const collator = new Intl.Collator('en', { numeric: true });

/** Natural comparison of two category values (numbers inside strings by value); total, so sorting is stable across machines. */
export function naturalCompare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return collator.compare(x, y) || (x < y ? -1 : x > y ? 1 : 0);
}

/** Channels whose categories are listed in order on an axis, a legend or a header. */
const ORDERED_CHANNELS = [
  'x',
  'y',
  'xOffset',
  'yOffset',
  'color',
  'fill',
  'stroke',
  'shape',
  'strokeDash',
  'row',
  'column',
  'facet',
] as const;

/** Walks the spec and gives each discrete channel without a sort its values in natural order, where that differs from Vega's. */
export function orderCategoriesNaturally(spec: JsonObject): void {
  const datasets = isObject(spec.datasets) ? spec.datasets : {};
  const visit = (node: JsonObject, data: unknown, depth: number) => {
    if (depth > 50) return;
    const own = node.data !== undefined ? node.data : data;
    const encoding = isObject(node.encoding) ? node.encoding : undefined;
    const rows = encoding ? inlineRows(own, datasets) : undefined;
    if (encoding && rows) {
      for (const channel of ORDERED_CHANNELS) {
        const def = encoding[channel];
        if (isObject(def)) orderChannel(def, rows);
      }
    }
    for (const key of ['layer', 'hconcat', 'vconcat', 'concat'] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const child of list) if (isObject(child)) visit(child, own, depth + 1);
    }
    if (isObject(node.spec)) visit(node.spec, own, depth + 1);
  };
  visit(spec, undefined, 0);
}

function orderChannel(def: JsonObject, rows: JsonObject[]): void {
  if (def.sort !== undefined || typeof def.field !== 'string' || (def.type !== 'nominal' && def.type !== 'ordinal'))
    return;
  if (def.timeUnit !== undefined || def.bin !== undefined || def.aggregate !== undefined) return;
  const values = fieldValues(rows, def.field);
  if (!values) return;
  const distinct = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
  if (distinct.length > MAX_SORT_VALUES) return; // Vega-Lite cannot compile a longer order (see MAX_SORT_VALUES)
  const natural = [...distinct].sort(naturalCompare);
  const vega = [...distinct].sort(vegaAscending);
  if (natural.some((v, i) => v !== vega[i])) def.sort = natural;
}

/** Vega's ascending order: JavaScript's `<` on the raw values (strings by code unit). */
function vegaAscending(a: unknown, b: unknown): number {
  const x = a as string | number;
  const y = b as string | number;
  return x < y ? -1 : x > y ? 1 : 0;
}
