/**
 * How long to wait before trying a request again, for every client that calls out (sync's remote client, the
 * OpenAI-compatible embedder): what the server asked for (Retry-After), else exponential backoff with jitter.
 */

/**
 * Retry-After (RFC 9110: delay-seconds or an HTTP date) in ms from `now`; `exactMs`, a header some APIs add in
 * milliseconds (OpenAI's retry-after-ms), wins when given. Undefined when absent or unreadable; never negative.
 */
export function retryAfterMs(
  header: string | readonly string[] | null | undefined,
  exactMs?: string | null,
  now = Date.now(),
): number | undefined {
  if (exactMs != null && exactMs.trim() !== '' && Number.isFinite(Number(exactMs))) return Math.max(0, Number(exactMs));
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with jitter: `unitMs` × 2^(attempt-1), capped at `maxMs`, then from half to all of it. */
export function backoffMs(attempt: number, unitMs: number, maxMs: number): number {
  return Math.min(maxMs, unitMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
}
