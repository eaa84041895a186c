/**
 * How fast sync sends, set by the server's answers rather than by a fixed number:
 * - a shared gate: after a 429 (or a 503) nothing goes out before its Retry-After has passed, so the
 *   requests queued behind it do not each collect a refusal of their own;
 * - a concurrency window and a send rate, both halved on a 429 and grown back slowly on success (AIMD,
 *   as TCP does with its window), so a client that does not know the server's limit settles just below it;
 * - when the server publishes its budget (`RateLimit-Policy: <quota>;w=<seconds>` and
 *   `RateLimit-Remaining`), a copy of its token bucket here: requests wait for a token instead of being
 *   refused for the lack of one.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The slowest the rate is cut to, requests per second: a server that keeps refusing still hears from us, and
 * one that publishes a tiny budget (`RateLimit-Policy: 1;w=86400`, a request a day) cannot hold sync, and the
 * sync lock, for a day: its rate is taken as this floor.
 */
export const MIN_RATE = 0.5;
/** The longest one wait for the gate lasts, whatever a server's Retry-After says. */
export const MAX_WAIT_MS = 30_000;

/** One request's slot: released when its answer is in. */
export interface Ticket {
  sentAt: number;
}

export class Pacer {
  private window: number;
  private active = 0;
  private successes = 0;
  private readonly waiting: (() => void)[] = [];
  /** Requests per second; unbounded until the server pushes back or says its rate. */
  private rate = Infinity;
  /** The server's own sustained rate, when it says it (RateLimit-Policy); the rate never grows past it. */
  private ceiling = Infinity;
  private tokens = Infinity;
  private capacity = Infinity;
  private refilledAt = performance.now();
  private notBefore = 0;
  /** The last cut: refusals of requests sent before it belong to the same episode and do not cut again. */
  private cutAt = -Infinity;
  /** Send times of the last second, to know the rate actually reached when the first refusal comes. */
  private readonly recent: number[] = [];

  constructor(
    private readonly maxWindow: number,
    private readonly signal?: AbortSignal,
  ) {
    this.window = maxWindow;
  }

  /** Waits for a free slot in the window, the gate and a token; then the request may go out. */
  async acquire(): Promise<Ticket> {
    if (this.active < this.window) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // the slot is handed over by release()
    try {
      for (;;) {
        this.signal?.throwIfAborted();
        const now = performance.now();
        this.refill(now);
        const wait =
          now < this.notBefore ? this.notBefore - now : this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.rate) * 1000;
        if (wait <= 0) break;
        await sleep(Math.ceil(wait), undefined, { signal: this.signal });
      }
    } catch (err) {
      this.release();
      throw err;
    }
    this.tokens -= 1;
    const sentAt = performance.now();
    this.recent.push(sentAt);
    while (this.recent[0]! < sentAt - 1000) this.recent.shift();
    return { sentAt };
  }

  release(): void {
    const next = this.active <= this.window ? this.waiting.shift() : undefined;
    if (next) next();
    else this.active--;
  }

  /** An answer that was not a refusal: the window and the rate grow a little. */
  succeeded(): void {
    if (++this.successes >= this.window) {
      this.successes = 0;
      if (this.window < this.maxWindow) {
        this.window++;
        const next = this.active < this.window ? this.waiting.shift() : undefined;
        if (next) {
          this.active++;
          next();
        }
      }
    }
    // +1 request/s for every second at this rate: slow, so the next cut comes late.
    if (Number.isFinite(this.rate)) this.rate = Math.min(this.ceiling, this.rate + 1 / this.rate);
  }

  /**
   * A refusal (429, or a 503 with Retry-After): everyone waits `waitMs`; the first refusal of an episode
   * halves the window and the rate (to half of what was reached, when there was no rate yet).
   */
  throttled(ticket: Ticket, waitMs: number): void {
    const now = performance.now();
    this.notBefore = Math.max(this.notBefore, now + Math.min(MAX_WAIT_MS, waitMs));
    this.tokens = Math.min(this.tokens, 0);
    this.refilledAt = Math.max(now, this.notBefore);
    if (ticket.sentAt < this.cutAt) return;
    this.cutAt = now;
    this.window = Math.max(1, Math.floor(this.window / 2));
    this.successes = 0;
    if (Number.isFinite(this.ceiling)) return; // the server said its rate: the bucket copy is right, only late
    const reached = Number.isFinite(this.rate) ? this.rate : this.recent.filter((t) => t >= now - 1000).length;
    this.rate = Math.max(MIN_RATE, reached / 2);
    this.capacity = Math.max(1, this.rate);
  }

  /**
   * The server's budget, when its answer carries one: `RateLimit-Policy: <quota>;w=<seconds>` gives the
   * bucket's size and refill rate, `RateLimit-Remaining` the tokens it had when this request was charged
   * (less those of the requests still in flight, charged after it).
   */
  observe(headers: Record<string, string | string[] | undefined>): void {
    const policy = /^\s*(\d+)\s*;\s*w=(\d+(?:\.\d+)?)/.exec(first(headers['ratelimit-policy']) ?? '');
    if (policy && Number(policy[1]) > 0 && Number(policy[2]) > 0) {
      this.capacity = Number(policy[1]);
      this.ceiling = Math.max(MIN_RATE, Number(policy[1]) / Number(policy[2]));
      this.rate = this.ceiling;
    }
    // Never below zero: a made-up debt would be a wait as long as the server likes.
    const remaining = Math.max(0, Number(first(headers['ratelimit-remaining']) ?? NaN));
    if (Number.isFinite(remaining) && Number.isFinite(this.capacity)) {
      this.refill(performance.now());
      this.tokens = Math.min(this.tokens, remaining - (this.active - 1));
    }
  }

  private refill(now: number): void {
    if (now > this.refilledAt && Number.isFinite(this.rate)) {
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
      this.refilledAt = now;
    } else if (!Number.isFinite(this.rate)) {
      this.tokens = Infinity;
    }
  }
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
