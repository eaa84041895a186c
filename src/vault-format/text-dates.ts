/**
 * Dates written in a vault's prose ("Friday 20 November", "Wed 11 Nov", "16-20 November", "w/e 6 Nov 2026",
 * "Mon 23, 13:00", "2026-11-17") moved by the same days as the records' date fields, so a loaded vault's
 * words and records agree. Each date keeps its style (full or short names, with or without a year) and its
 * weekday is recomputed. A date more than half a year from the reference day is a fact outside the
 * engagement's calendar (a contract's end, "support ends 31 Dec 2027") and stays as written. Dates spelled in
 * words ("the twenty-eighth of October") and bare month names ("in September") are not recognised.
 */
import { DAY_MS, MONTHS } from '../time.js';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH = `(?:${MONTHS.map((m) => `${m.slice(0, 3)}(?:${m.slice(3)})?`).join('|')})`;
const WEEKDAY = `(?:${WEEKDAYS.map((d) => `${d.slice(0, 3)}(?:${d.slice(3)})?`).join('|')})`;

/** Half a year: a text date further than this from the reference day is not part of the engagement's calendar. */
const CALENDAR_REACH_DAYS = 183;

/**
 * One pattern, three forms, tried in this order at each position:
 * 1. [weekday] day[-day] month [year]   "Friday 20 November", "16-20 November", "Wed 11 Nov", "6 Nov 2026"
 * 2. weekday day (no month)             "Mon 23, 13:00", "Fri 27: sign-off" (a week plan's own days)
 * 3. ISO date                           "2026-11-17", also inside "Notice_2026-11-02"
 */
export const TEXT_DATE = new RegExp(
  [
    `(?<![\\w-])(?:(?<wd>${WEEKDAY}),? )?(?<d1>\\d{1,2})(?:-(?<d2>\\d{1,2}))? (?<mon>${MONTH})(?: (?<year>\\d{4}))?(?![\\w-])`,
    // a time ("Thu 07:00") is not a day, but a list's "Fri 27: sign-off" is
    `(?<![\\w-])(?<wd2>${WEEKDAY}) (?<day>\\d{1,2})(?![\\w.]|:\\d)`,
    `(?<!\\d)(?<iy>\\d{4})-(?<im>\\d{2})-(?<id>\\d{2})(?!\\d)`,
  ].join('|'),
  'g',
);

const monthIndex = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.slice(0, 3)));
const weekdayIndex = (name: string) => WEEKDAYS.findIndex((d) => d.startsWith(name.slice(0, 3)));
const utcDay = (y: number, m: number, d: number) => Date.UTC(y, m, d);
const isRealDay = (ms: number, m: number, d: number) =>
  new Date(ms).getUTCMonth() === m && new Date(ms).getUTCDate() === d;
const nameAs = (full: string, written: string) => (written.length <= 3 ? full.slice(0, 3) : full);

/** The day `day month` nearest the reference day (its year is not written). */
function nearestYear(ref: number, month: number, day: number): number | undefined {
  const year = new Date(ref).getUTCFullYear();
  const candidates = [year - 1, year, year + 1]
    .map((y) => utcDay(y, month, day))
    .filter((ms) => isRealDay(ms, month, day));
  return candidates.sort((a, b) => Math.abs(a - ref) - Math.abs(b - ref))[0];
}

/** The day with this day of the month and weekday nearest the reference day, within a month either side. */
function nearestWeekday(ref: number, weekday: number, day: number): number | undefined {
  for (let offset = 0; offset <= 31; offset++) {
    for (const ms of [ref - offset * DAY_MS, ref + offset * DAY_MS]) {
      const d = new Date(ms);
      if (d.getUTCDate() === day && d.getUTCDay() === weekday) return ms;
    }
  }
  return undefined;
}

interface Written {
  weekday?: string;
  month: string;
  year: boolean;
}

function render(ms: number, w: Written, withMonth = true): string {
  const d = new Date(ms);
  const weekday = w.weekday ? `${nameAs(WEEKDAYS[d.getUTCDay()]!, w.weekday)} ` : '';
  const month = withMonth ? ` ${nameAs(MONTHS[d.getUTCMonth()]!, w.month)}` : '';
  return `${weekday}${d.getUTCDate()}${month}${w.year ? ` ${d.getUTCFullYear()}` : ''}`;
}

/** `text` with every date it writes moved by `days`; `referenceDate` (YYYY-MM-DD) settles years not written. */
export function shiftTextDates(text: string, days: number, referenceDate: string): string {
  if (days === 0) return text;
  const ref = Date.parse(`${referenceDate}T00:00:00Z`);
  const within = (ms: number | undefined): ms is number =>
    ms !== undefined && Math.abs(ms - ref) <= CALENDAR_REACH_DAYS * DAY_MS;
  const shift = days * DAY_MS;
  return text.replace(TEXT_DATE, (match, ...args) => {
    const g = args.at(-1) as Record<string, string | undefined>;
    if (g.iy) {
      const [y, m, d] = [Number(g.iy), Number(g.im) - 1, Number(g.id)];
      const ms = utcDay(y, m, d);
      return isRealDay(ms, m, d) && within(ms) ? new Date(ms + shift).toISOString().slice(0, 10) : match;
    }
    if (g.wd2) {
      const ms = nearestWeekday(ref, weekdayIndex(g.wd2), Number(g.day));
      return within(ms) ? render(ms + shift, { weekday: g.wd2, month: '', year: false }, false) : match;
    }
    const month = monthIndex(g.mon!);
    const written: Written = { weekday: g.wd, month: g.mon!, year: !!g.year };
    const first = g.year ? utcDay(Number(g.year), month, Number(g.d1)) : nearestYear(ref, month, Number(g.d1));
    if (!within(first) || !isRealDay(first, month, Number(g.d1))) return match;
    if (!g.d2) return render(first + shift, written);
    // A range "16-20 November": both ends move; a range that comes to span two months names both.
    const last = first + (Number(g.d2) - Number(g.d1)) * DAY_MS;
    const [a, b] = [new Date(first + shift), new Date(last + shift)];
    if (a.getUTCMonth() === b.getUTCMonth())
      return `${a.getUTCDate()}-${render(last + shift, { ...written, weekday: undefined })}`;
    return `${render(first + shift, { ...written, year: false })}-${render(last + shift, { ...written, weekday: undefined })}`;
  });
}
