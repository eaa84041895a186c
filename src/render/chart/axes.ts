/**
 * Axes a consultant would paste without fixing them first: titles that read as words rather than field
 * names ("total_findings" → "Total findings", "month (year-month)" → "Month"), and a value axis whose last
 * tick is at or above the largest value (a bar of 11 no longer runs past a last tick of 10).
 * A title or scale the spec sets itself is left alone.
 */
import { isObject, type JsonObject } from './json.js';
import { VALUE_TICKS } from './style.js';

/** Channels whose title is shown: axes, legends and facet headers. */
const TITLED_CHANNELS = [
  'x',
  'y',
  'color',
  'fill',
  'stroke',
  'shape',
  'size',
  'opacity',
  'strokeDash',
  'row',
  'column',
  'facet',
] as const;
/** Where each channel's title may be set besides `title`. */
const GUIDE_KEY: Record<string, 'axis' | 'legend' | 'header'> = {
  x: 'axis',
  y: 'axis',
  row: 'header',
  column: 'header',
  facet: 'header',
};
/** Aggregates whose title says what they do better than Vega-Lite's "Sum of …". */
const AGGREGATE_TITLES: Record<string, string> = {
  sum: 'Total',
  mean: 'Average',
  average: 'Average',
  median: 'Median',
  min: 'Lowest',
  max: 'Highest',
  count: 'Number of',
  distinct: 'Distinct',
};

/** Rewrites every view of the spec (in place): human titles, nice value domains. */
export function humanizeAxes(spec: JsonObject): void {
  walk(spec, 0);
}

function walk(node: JsonObject, depth: number): void {
  if (depth > 50) return;
  if (isObject(node.encoding)) {
    for (const channel of TITLED_CHANNELS) {
      const def = node.encoding[channel];
      if (!isObject(def)) continue;
      giveTitle(def, GUIDE_KEY[channel] ?? 'legend');
      if (channel === 'x' || channel === 'y') niceDomain(def);
    }
  }
  for (const key of ['layer', 'hconcat', 'vconcat', 'concat'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) if (isObject(child)) walk(child, depth + 1);
  }
  if (isObject(node.spec)) walk(node.spec, depth + 1);
}

/** A title made from the field name, when neither the definition nor its guide has one. */
function giveTitle(def: JsonObject, guide: 'axis' | 'legend' | 'header'): void {
  if (def.title !== undefined || typeof def.field !== 'string' || def[guide] === null) return;
  if (isObject(def[guide]) && (def[guide] as JsonObject).title !== undefined) return;
  const name = humanFieldName(def.field);
  if (!name) return;
  const aggregate = typeof def.aggregate === 'string' ? AGGREGATE_TITLES[def.aggregate] : undefined;
  if (def.aggregate !== undefined && aggregate === undefined) return; // Vega-Lite's own wording ("Q1 of …")
  def.title = aggregate ? `${aggregate} ${lowerFirst(name)}` : name;
}

/**
 * A field name as words: separators become spaces, camelCase splits, the first letter is capitalised.
 * Words in capitals (WMS, SKU) keep them: `onTimeRate` → "On time rate", `sku_count` → "Sku count",
 * `WMS_errors` → "WMS errors".
 */
function humanFieldName(field: string): string {
  const words = field
    .replace(/\\(.)/g, '$1')
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w, i) => (i > 0 && /^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);

/**
 * A quantitative position scale made nice for the ticks the axis draws: Vega makes the domain nice for 10
 * ticks (0-11 stays 0-11) while the theme draws 6 (0, 2, …, 10), so the largest bar ran past the last tick.
 * Nice for the same count, the domain ends on a tick (0-12).
 */
function niceDomain(def: JsonObject): void {
  if (def.type !== 'quantitative' || (def.bin !== undefined && def.bin !== false)) return;
  const scale = isObject(def.scale) ? def.scale : def.scale === undefined ? {} : undefined;
  if (
    !scale ||
    scale.nice !== undefined ||
    scale.domain !== undefined ||
    scale.domainMax !== undefined ||
    scale.domainMin !== undefined
  )
    return;
  if (scale.type !== undefined && scale.type !== 'linear') return;
  const axis = isObject(def.axis) ? def.axis : {};
  const ticks = typeof axis.tickCount === 'number' ? axis.tickCount : VALUE_TICKS;
  def.scale = { ...scale, nice: ticks };
}
