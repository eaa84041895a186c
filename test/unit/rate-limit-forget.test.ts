/** A limiter keyed by caller address forgets the buckets that refilled, once there are many (issue 36). */
import { expect, it } from 'vitest';
import { RateLimiter } from '../../src/auth/rate-limit.js';

it('forgets refilled buckets only, and only past the threshold', () => {
  const limiter = new RateLimiter({ perSecond: 1, burst: 2 });
  const t = 1_000_000;
  limiter.take('spent', 2, t);
  limiter.take('used-once', 1, t);
  limiter.take('fresh', 0, t);
  limiter.forgetFull(t, 10);
  expect(limiter.take('spent', 1, t)).toBeGreaterThan(0); // under the threshold nothing is forgotten
  limiter.forgetFull(t, 3);
  // 'fresh' was full and is gone (a new bucket is full too); 'spent' is still empty.
  expect(limiter.take('spent', 1, t)).toBeGreaterThan(0);
  expect(limiter.take('fresh', 2, t)).toBe(0);
  limiter.forgetFull(t + 2000, 3); // two seconds on, every bucket has refilled
  expect(limiter.take('spent', 2, t + 2000)).toBe(0);
});
