/**
 * Per-key rate limiting with token buckets: each key may burst up to `burst` calls and then make
 * `perSecond` calls a second. A refused request learns when enough tokens will be there (Retry-After).
 */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 50, burst: 100 };

/** Buckets a limiter keeps at most: past this the least recently used is forgotten (it comes back full). */
export const MAX_BUCKETS = 10_000;

export class RateLimiter {
  /** In order of last use, oldest first (a Map keeps insertion order; a use moves the key to the end). */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly limit: RateLimit,
    private readonly maxBuckets = MAX_BUCKETS,
  ) {}

  /**
   * Takes `cost` tokens for `key`, all or none; returns 0 when allowed, else the whole seconds until
   * `cost` tokens are there. A cost above the burst can never be paid: callers refuse it first.
   */
  take(key: string, cost = 1, now = Date.now()): number {
    const b = this.buckets.get(key) ?? { tokens: this.limit.burst, at: now };
    b.tokens = Math.min(this.limit.burst, b.tokens + ((now - b.at) / 1000) * this.limit.perSecond);
    b.at = now;
    this.buckets.delete(key);
    this.buckets.set(key, b);
    // Memory stays bounded whatever keys callers bring (an address per request, say).
    if (this.buckets.size > this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil((cost - b.tokens) / this.limit.perSecond));
  }

  /** How many buckets are kept now. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * The key's budget as the RateLimit headers publish it (the IETF draft's fields): the bucket's size, per
   * how many seconds it refills (`RateLimit-Policy: 100;w=2`), the whole tokens left, and the seconds until
   * it is full again. A client that reads them can wait for a token rather than be refused.
   */

  headers(key: string): Record<string, string> {
    const { perSecond, burst } = this.limit;
    const tokens = this.buckets.get(key)?.tokens ?? burst;
    return {
      'RateLimit-Policy': `${burst};w=${+(burst / perSecond).toFixed(3)}`,
      'RateLimit-Limit': String(burst),
      'RateLimit-Remaining': String(Math.max(0, Math.floor(tokens))),
      'RateLimit-Reset': String(Math.ceil((burst - tokens) / perSecond)),
    };
  }
}
