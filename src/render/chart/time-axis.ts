/**
 * A time axis of months or quarters labels every period when the labels fit: Vega picks its ticks for the
 * width and then drops labels that would touch, so twelve months on a slide came out as every other month.
 * Here the axis gets a tick per period and the longest label that fits under it: "Jan 2025", or "Jan" with
 * the year under the first month and under each January. When not even that fits, Vega's choice stays.
 */
import { fieldValues, isObject, type JsonObject } from './json.js';
import { timeUnitName } from './lint.js';
import type { Measure } from './text.js';

interface Period {
  /** Vega's tick interval and step for one period. */
  interval: 'month' | 'year';
  step: number;
  /** Labels: the whole one, and the one without the year (the year goes on a second line). */
  full: string;
  short?: string;
  /** Index of a date's period, counted in periods since year 0. */
  index(date: Date): number;
  /** The widest whole label and widest short label, as text to measure. */
  widest: { full: string; short?: string };
}

const PERIODS: Record<string, Period> = {
  yearmonth: {
    interval: 'month',
    step: 1,
    full: '%b %Y',
    short: '%b',
    index: (d) => d.getUTCFullYear() * 12 + d.getUTCMonth(),
    widest: { full: 'May 2000', short: 'May' },
  },
  yearquarter: {
    interval: 'month',
    step: 3,
    full: 'Q%q %Y',
    short: 'Q%q',
    index: (d) => d.getUTCFullYear() * 4 + Math.floor(d.getUTCMonth() / 3),
    widest: { full: 'Q4 2000', short: 'Q4' },
  },
  year: { interval: 'year', step: 1, full: '%Y', index: (d) => d.getUTCFullYear(), widest: { full: '2000' } },
};
/** Marks drawn at a point in time (bars of a period span it, and Vega labels them its own way). */
const POINT_MARKS = new Set(['line', 'area', 'point', 'circle', 'square', 'trail']);
/** More periods than this are never labelled one by one. */
const MAX_PERIODS = 60;
/** Room between two labels. */
const LABEL_GAP = 6;

/**
 * Sets the x axis of `def` (a temporal channel of a view drawn with `mark`) to label every period, when its
 * labels fit `plotWidth`. `rows` are the view's inline rows.
 */
export function labelEveryPeriod(
  def: JsonObject,
  mark: string | undefined,
  rows: JsonObject[] | undefined,
  plotWidth: number,
  size: number,
  measure: Measure,
): void {
  if (!mark || !POINT_MARKS.has(mark) || typeof def.field !== 'string' || def.axis === null) return;
  const period = PERIODS[timeUnitName(def.timeUnit) ?? ''];
  const axis = isObject(def.axis) ? def.axis : {};
  if (!period || ['format', 'labelExpr', 'tickCount', 'values', 'labelAngle'].some((k) => axis[k] !== undefined))
    return;
  const dates = (fieldValues(rows, def.field) ?? [])
    .map((v) => new Date(typeof v === 'number' ? v : String(v)))
    .filter((d) => !Number.isNaN(d.getTime()));
  if (dates.length < 2) return;
  let first = Infinity;
  let last = -Infinity;
  for (const d of dates) {
    const i = period.index(d);
    first = Math.min(first, i);
    last = Math.max(last, i);
  }
  const count = last - first + 1;
  if (count < 2 || count > MAX_PERIODS) return;
  // The first and last ticks sit at the ends of the axis: the periods share the width between them.
  const step = plotWidth / (count - 1);
  // Every label centred on its tick: flush end labels (Vega's default) leaned the last one into the one before.
  const ticks = { tickCount: { interval: period.interval, step: period.step }, labelOverlap: false, labelFlush: false };
  if (measure(period.widest.full, size) + LABEL_GAP <= step) {
    def.axis = { ...axis, ...ticks, format: period.full };
  } else if (period.short && measure(period.widest.short!, size) + LABEL_GAP <= step) {
    // The year under the first period and under each year's first period.
    const label = `utcFormat(datum.value, ${JSON.stringify(period.short)})`;
    const newYear = `datum.index === 0 || utcmonth(datum.value) < ${period.step}`;
    def.axis = { ...axis, ...ticks, labelExpr: `[${label}, ${newYear} ? utcFormat(datum.value, '%Y') : '']` };
  }
}
