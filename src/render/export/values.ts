/**
 * Cell values: one normalisation for every format, and the text forms used where a format has no types
 * (csv, pdf).
 *
 * - `number` columns: numbers stay numbers; numeric strings ('12', '-3.5e2') become numbers; NaN and
 *   ±Infinity become empty cells.
 * - `date` / `datetime` columns: Dates stay Dates; ISO 8601 strings become Dates ('2024-03-05' is that day,
 *   a date-time without an offset is read as UTC, the way SQLite writes `datetime('now')`).
 * - `text` columns: everything becomes text (a Date as ISO 8601).
 * - no type: strings, numbers, booleans and Dates keep their own type.
 * Every Date is shown in UTC (Excel has no time zones; a report must not depend on the server's zone).
 */
import type { CellValue, Column } from './types.js';

export type ColumnType = NonNullable<Column['type']>;

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** An ISO 8601 date or date-time as a Date, or undefined when the string is not one. */
export function parseIsoDate(text: string): Date | undefined {
  const s = text.trim();
  let m = ISO_DATE.exec(s);
  if (m) return utc(+m[1]!, +m[2]!, +m[3]!, 0, 0, 0, 0);
  m = ISO_DATETIME.exec(s);
  if (!m) return undefined;
  const ms = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  const date = utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, m[6] ? +m[6] : 0, ms);
  if (!date) return undefined;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
    return new Date(date.getTime() - offset * 60_000);
  }
  return date;
}

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): Date | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 60) return undefined;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  // Date.UTC rolls 2024-02-31 over to March: refuse instead.
  if (date.getUTCDate() !== d && h < 24) return undefined;
  return date;
}

const isValidDate = (v: unknown): v is Date => v instanceof Date && !Number.isNaN(v.getTime());

/** The value a cell holds, after the column's type is applied (see the module comment). */
export function normalizeValue(value: unknown, type: ColumnType | undefined): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') value = Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) {
    if (!isValidDate(value)) return null;
    return type === 'text' ? isoDateTime(value) : value;
  }
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) return null;
      return type === 'text' ? String(value) : value;
    case 'boolean':
      return type === 'text' ? String(value) : value;
    case 'string':
      if (type === 'number') {
        const t = value.trim();
        if (NUMERIC.test(t)) {
          const n = Number(t);
          if (Number.isFinite(n)) return n;
        }
      } else if (type === 'date' || type === 'datetime') {
        const d = parseIsoDate(value);
        if (d) return d;
      }
      return value;
    default:
      // Not a CellValue at all (an object from an untyped caller): show it rather than crash.
      try {
        return typeof value === 'object' ? JSON.stringify(value) : String(value);
      } catch {
        return String(value);
      }
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export const isoDate = (d: Date) => `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

/** RFC 3339 in UTC, milliseconds only when there are some: 2024-03-05T14:30:00Z. */
export function isoDateTime(d: Date): string {
  const ms = d.getUTCMilliseconds();
  return `${isoDate(d)}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ''}Z`;
}

const isMidnightUtc = (d: Date) =>
  d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0;

/** Whether a Date shows as a date alone: in a `date` column, or in an untyped one at exactly midnight UTC. */
export const showsAsDate = (d: Date, type: ColumnType | undefined) =>
  type === 'date' || (type !== 'datetime' && isMidnightUtc(d));

/** Excel number formats for dates (shown in UTC, since that is what is stored). */
export const DATE_FORMAT = 'yyyy-mm-dd';
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm';

/** Whether an Excel number format shows a date or time (ignoring quoted literals and [colour] parts). */
export function isDateFormat(numFmt: string | undefined): boolean {
  if (!numFmt) return false;
  const bare = numFmt
    .split(';')[0]!
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\\./g, '');
  return /[ymdhs]/i.test(bare) && !/[0#?]/.test(bare);
}

interface NumberStyle {
  minDecimals: number;
  maxDecimals: number;
  grouping: boolean;
  percent: boolean;
}

/** The parts of an Excel number format that a text rendering can honour: decimals, grouping, percent. */
function numberStyle(numFmt: string | undefined): NumberStyle {
  if (!numFmt || /^general$/i.test(numFmt.trim()))
    return { minDecimals: 0, maxDecimals: 6, grouping: false, percent: false };
  const bare = numFmt
    .split(';')[0]!
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\\./g, '');
  const dot = bare.indexOf('.');
  const intPart = dot >= 0 ? bare.slice(0, dot) : bare;
  const fraction = dot >= 0 ? (bare.slice(dot + 1).match(/^[0#?]*/)?.[0] ?? '') : '';
  const minDecimals = (fraction.match(/0/g) ?? []).length;
  return {
    minDecimals,
    maxDecimals: fraction.length,
    grouping: /[0#?],[0#?]/.test(intPart),
    percent: bare.includes('%'),
  };
}

const formatters = new Map<string, Intl.NumberFormat>();

/** A number as text, following the column's Excel number format as far as decimals, grouping and % go. */
export function formatNumber(n: number, numFmt: string | undefined): string {
  const key = numFmt ?? '';
  let f = formatters.get(key);
  if (!f) {
    const s = numberStyle(numFmt);
    f = new Intl.NumberFormat('en-US', {
      minimumFractionDigits: s.minDecimals,
      maximumFractionDigits: Math.max(s.minDecimals, s.maxDecimals),
      useGrouping: s.grouping,
      style: s.percent ? 'percent' : 'decimal',
    });
    formatters.set(key, f);
  }
  return f.format(n);
}

/** How a normalised value reads in a report (pdf): dates in UTC (the title page says so), numbers per numFmt, Yes / No. */
export function displayText(value: CellValue, column: Pick<Column, 'type' | 'numFmt'>): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    if (showsAsDate(value, column.type)) return isoDate(value);
    return `${isoDate(value)} ${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())}`;
  }
  if (typeof value === 'number') return formatNumber(value, column.numFmt);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return value;
}

/** Length in characters (code points) of the longest line of a text, for width estimates. */
export function longestLine(text: string): number {
  let longest = 0;
  for (const line of text.split('\n')) {
    let n = 0;
    for (const _ of line) n++;
    if (n > longest) longest = n;
  }
  return longest;
}
