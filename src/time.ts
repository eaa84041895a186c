/** Time helpers: the store keeps UTC ISO strings without milliseconds, so text order is time order. */
export const DAY_MS = 86_400_000;

/** `promise`, or the error `onTimeout` makes if it has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const utcDate = (iso: string | null | undefined): Date | undefined => (iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso) : undefined);

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
