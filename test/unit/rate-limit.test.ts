/** The token-bucket limiter: costs, refill, and a bounded number of buckets whatever keys callers bring (issue 45). */
import { expect, it } from 'vitest';
import { RateLimiter } from '../../src/auth/rate-limit.js';

it('takes a cost all or none and says how long until it can be paid', () => {
  const limiter = new RateLimiter({ perSecond: 2, burst: 10 });
  const t = 1_000_000;
  expect(limiter.take('k', 6, t)).toBe(0);
  expect(limiter.take('k', 6, t)).toBe(1); // 4 left: two more tokens come in one second
  expect(limiter.take('k', 4, t)).toBe(0); // the refused take spent nothing
  expect(limiter.take('k', 1, t + 499)).toBe(1);
  expect(limiter.take('k', 1, t + 500)).toBe(0);
});

it('keeps at most its bound of buckets, forgetting the least recently used', () => {
  const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, 3);
  const t = 1_000_000;
  limiter.take('a', 2, t);
  limiter.take('b', 2, t);
  limiter.take('c', 2, t);
  limiter.take('a', 0, t); // a is used again: b is now the oldest
  limiter.take('d', 2, t);
  expect(limiter.size).toBe(3);
  expect(limiter.take('a', 1, t)).toBeGreaterThan(0); // kept, still empty
  expect(limiter.take('b', 2, t)).toBe(0); // forgotten: back full
  for (let i = 0; i < 50_000; i++) limiter.take(`address-${i}`, 1, t);
  expect(limiter.size).toBe(3);
});
