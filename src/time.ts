/** Time helpers: the store keeps UTC ISO strings without milliseconds, so text order is time order. */
export const DAY_MS = 86_400_000;

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
