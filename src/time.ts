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
