/**
 * Value labels on a ranking: each bar of a chart of one value per category gets its number at its end, so a
 * reader of the slide need not read it off the grid. On by default for a plain bar chart (one bar per
 * category, no colours, no stacks, no layers of its own); `"usermeta": {"valueLabels": false}` turns it off.
 */
import { isObject, type JsonObject } from './json.js';

/** Space between the end of a bar and its label. */
const LABEL_OFFSET = 4;
/** Channels a ranking may have besides its category and its value. */
const HARMLESS_CHANNELS = new Set(['x', 'y', 'tooltip', 'description', 'key']);

/** Turns a ranking (a one-mark bar chart, after layout) into bars plus a layer of value labels, in place. */
export function labelRankingBars(spec: JsonObject): void {
  if (isObject(spec.usermeta) && spec.usermeta.valueLabels === false) return;
  const mark = spec.mark;
  const type = typeof mark === 'string' ? mark : isObject(mark) ? mark.type : undefined;
  if (type !== 'bar' || spec.layer !== undefined || spec.params !== undefined || !isObject(spec.encoding)) return;
  const encoding = spec.encoding;
  if (Object.keys(encoding).some((channel) => !HARMLESS_CHANNELS.has(channel))) return;
  const { x, y } = encoding;
  if (!isObject(x) || !isObject(y)) return;
  const horizontal = isCategory(y) && isValue(x);
  if (!horizontal && !(isCategory(x) && isValue(y))) return;
  const value = horizontal ? x : y;
  const field = value.field as string;
  if (/[.\\[\]]/.test(field)) return; // nested fields: the datum name below would not find them

  // Where the aggregated value sits in the datum (Vega-Lite names it `sum_v`), to put a negative bar's label past its end.
  const name = typeof value.aggregate === 'string' ? `${value.aggregate}_${field}` : field;
  const negative = `datum[${JSON.stringify(name)}] < 0`;
  const axis = isObject(value.axis) ? value.axis : {};
  const text: JsonObject = { field, type: 'quantitative' };
  if (value.aggregate !== undefined) text.aggregate = value.aggregate;
  if (typeof axis.format === 'string') text.format = axis.format;
  if (typeof axis.formatType === 'string') text.formatType = axis.formatType;
  const label: JsonObject = horizontal
    ? {
        type: 'text',
        baseline: 'middle',
        align: { expr: `${negative} ? 'right' : 'left'` },
        dx: { expr: `${negative} ? ${-LABEL_OFFSET} : ${LABEL_OFFSET}` },
      }
    : {
        type: 'text',
        align: 'center',
        baseline: { expr: `${negative} ? 'top' : 'bottom'` },
        dy: { expr: `${negative} ? ${LABEL_OFFSET} : ${-LABEL_OFFSET}` },
      };
  delete spec.mark;
  spec.layer = [{ mark }, { mark: label, encoding: { text } }];
}

const isCategory = (def: JsonObject) =>
  typeof def.field === 'string' &&
  (def.type === 'nominal' || def.type === 'ordinal') &&
  def.timeUnit === undefined &&
  def.bin === undefined;
const isValue = (def: JsonObject) =>
  typeof def.field === 'string' &&
  def.type === 'quantitative' &&
  (def.bin === undefined || def.bin === false) &&
  (def.aggregate === undefined || typeof def.aggregate === 'string');
