/**
 * A pie or donut is read by its shares: its legend lists the slices largest first, each with its percentage,
 * and the slices run in that order from twelve o'clock, instead of an alphabetical legend and no numbers. For a
 * one-mark arc chart whose slices the inline data gives (theta a quantitative field, summed per colour category;
 * no transform, no sort of the author's own); `"usermeta": {"valueLabels": false}` turns it off, as for bars.
 */
import { fieldValues, inlineRows, isObject, type JsonObject } from './json.js';
import { naturalCompare } from './order.js';

const COLOUR_CHANNELS = ['color', 'fill'] as const;

/** A share as a legend says it: whole percents, "<1%" for a sliver that is not zero. */
export function percentLabel(share: number): string {
  return share > 0 && share < 0.005 ? '<1%' : `${Math.round(share * 100)}%`;
}

/** Orders a pie's legend and slices by value and puts each slice's percentage in its legend label, in place. */
export function labelPieShares(spec: JsonObject): void {
  if (isObject(spec.usermeta) && spec.usermeta.valueLabels === false) return;
  const type = typeof spec.mark === 'string' ? spec.mark : isObject(spec.mark) ? spec.mark.type : undefined;
  if (type !== 'arc' || spec.layer !== undefined || spec.transform !== undefined || !isObject(spec.encoding)) return;
  const encoding = spec.encoding;
  const theta = encoding.theta;
  const channel = COLOUR_CHANNELS.find((c) => isObject(encoding[c]));
  const colour = channel ? (encoding[channel] as JsonObject) : undefined;
  if (!isObject(theta) || !colour || encoding.order !== undefined) return;
  if (
    theta.type !== 'quantitative' ||
    typeof theta.field !== 'string' ||
    (theta.aggregate !== undefined && theta.aggregate !== 'sum')
  )
    return;
  if (
    typeof colour.field !== 'string' ||
    (colour.type !== 'nominal' && colour.type !== 'ordinal') ||
    colour.sort !== undefined ||
    colour.legend === null
  )
    return;
  const rows = inlineRows(spec.data, isObject(spec.datasets) ? spec.datasets : {});
  const categories = fieldValues(rows, colour.field);
  const values = fieldValues(rows, theta.field);
  if (!rows || !categories || !values || categories.length !== rows.length || values.length !== rows.length) return;
  if (!categories.every((c) => typeof c === 'string' || typeof c === 'number' || typeof c === 'boolean')) return; // written into an expression below

  const sums = new Map<string, { category: unknown; sum: number }>();
  for (const [i, category] of categories.entries()) {
    const v = Number(values[i]);
    if (!Number.isFinite(v) || v < 0) return; // a negative or missing share: not a part of a whole
    const key = JSON.stringify(category);
    const entry = sums.get(key) ?? { category, sum: 0 };
    entry.sum += v;
    sums.set(key, entry);
  }
  const total = [...sums.values()].reduce((n, e) => n + e.sum, 0);
  if (!(total > 0)) return;
  const slices = [...sums.values()].sort((a, b) => b.sum - a.sum || naturalCompare(a.category, b.category));

  colour.sort = slices.map((s) => s.category) as JsonObject[keyof JsonObject];
  encoding.order = {
    field: theta.field,
    type: 'quantitative',
    sort: 'descending',
    ...(theta.aggregate === 'sum' ? { aggregate: 'sum' } : {}),
  };
  // The legend's label, then its share: "Leeds  42%". Matched on the raw value, as the data holds it.
  const labelled = slices.reduceRight(
    (rest, s) =>
      `datum.value === ${JSON.stringify(s.category)} ? datum.label + '  ${percentLabel(s.sum / total)}' : ${rest}`,
    'datum.label',
  );
  colour.legend = { ...(isObject(colour.legend) ? colour.legend : {}), labelExpr: labelled };
}
