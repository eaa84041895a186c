/**
 * Time helpers. The store keeps every moment as a UTC ISO string to the whole second ("2026-11-26T12:40:00Z", as
 * fixtures and the hosted service write them), written through isoUtc: one format, so text order is time order
 * ("…:05.123Z" would sort before "…:05Z", and a `since` at a whole second would skip a write made in it).
 */
export const DAY_MS = 86_400_000;

/** `promise`, or the error `onTimeout` makes if it has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A moment (ms since the epoch, or a Date: the call's clock) as the store keeps it: UTC, whole seconds. */
export function isoUtc(at: number | Date): string {
  return `${new Date(typeof at === 'number' ? at : at.getTime()).toISOString().slice(0, 19)}Z`;
}

const ISO_DATETIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/;

/** A date-time from outside (upstream records) as the store keeps it (isoUtc); anything else comes back unchanged. */
export function storedTimeOf(text: string): string {
  const ms = ISO_DATETIME.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(ms) ? text : isoUtc(ms);
}

/** English month names, January first (dates written for a person, and the ones the demo's text moves). */
export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const utcDate = (iso: string | null | undefined): Date | undefined =>
  iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso) : undefined;

/** "19 Nov 2026" (UTC) from an ISO date or date-time, as reports and decks write a day; '' when there is none. */
export function shortDate(iso: string | null | undefined): string {
  const d = utcDate(iso);
  return d ? `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]!.slice(0, 3)} ${d.getUTCFullYear()}` : '';
}

/** "19 November 2026" (UTC). */
export const longDate = (d: Date): string => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

/** "19 Nov" (UTC): a day within a year that is clear from context (a chart's weeks). */
export const dayMonth = (iso: string): string => shortDate(iso).replace(/ \d+$/, '');

/** "Nov 2026" (UTC). */
export const monthYear = (iso: string): string => shortDate(iso).replace(/^\d+ /, '');
