/**
 * How far a fixture's dates move when it loads (whole weeks, from its referenceDate to this week), and which
 * of them would leave the four-digit years every reader of the store expects once moved: checked when a folder
 * is read (read.ts), so `import --check` and `import` refuse the same dates, by field, before anything loads.
 */
import { DAY_MS } from '../time.js';
import { LIMITS } from './schema.js';

/** The fields that hold a date or datetime (they move with the shift). */
export const DATE_FIELDS = new Set([
  'startedAt',
  'firstSeenAt',
  'createdAt',
  'updatedAt',
  'startAt',
  'targetDate',
  'dueDate',
  'startDate',
  'sentAt',
  'at',
]);

/**
 * The days to move a fixture by: whole weeks, so "Friday 20 November" stays a Friday, and the most that
 * leaves its reference day on or before `now`'s day (UTC), so the vault's "today" is at most six days old
 * and never in the future where its text says it is past.
 */
export function shiftDaysFor(referenceDate: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days = Math.round((today - Date.parse(`${referenceDate}T00:00:00Z`)) / DAY_MS);
  return Math.floor(days / 7) * 7 || 0;
}

export interface DateIssue {
  path: (string | number)[];
  message: string;
}

/** Every date field that the shift to `now`'s week would move outside the years the format allows. */
export function shiftedDateIssues(
  fixture: { vault: { referenceDate: string; shiftDates?: boolean } },
  now: Date,
): DateIssue[] {
  const days = fixture.vault.shiftDates === false ? 0 : shiftDaysFor(fixture.vault.referenceDate, now);
  if (!days) return [];
  const issues: DateIssue[] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]));
      return;
    }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
      return;
    }
    const key = path.at(-1);
    if (typeof v !== 'string' || typeof key !== 'string' || !DATE_FIELDS.has(key)) return;
    const year = new Date(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) + days * DAY_MS).getUTCFullYear();
    if (!(year >= LIMITS.firstYear && year <= LIMITS.lastYear)) {
      issues.push({
        path,
        message: `${v} moves ${days.toLocaleString('en-US')} days with referenceDate ${fixture.vault.referenceDate} (to this week) into the year ${Number.isNaN(year) ? 'beyond any calendar' : year}; dates load within ${LIMITS.firstYear}-${LIMITS.lastYear}`,
      });
    }
  };
  walk(fixture, []);
  return issues;
}
