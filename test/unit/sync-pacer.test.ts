/**
 * The pacer believes a server's published budget only within bounds: `RateLimit-Policy: 1;w=86400` (a request
 * a day) or a negative `RateLimit-Remaining` must not hold sync, and its lock, for a day. The race against a
 * 10 s timer is a hang guard, not a speed target: the old code waited a day for the second request.
 */
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pacer } from '../../src/sync/pacer.js';

async function twoRequests(headers: Record<string, string>): Promise<'sent' | 'stuck'> {
  const pacer = new Pacer(4);
  const first = await pacer.acquire();
  pacer.observe(headers); // as the first answer arrives, its request still in flight
  pacer.release();
  void first;
  const guard = new AbortController();
  const outcome = await Promise.race([
    (async () => {
      await pacer.acquire();
      await pacer.acquire();
      return 'sent' as const;
    })(),
    sleep(10_000, 'stuck' as const, { signal: guard.signal }).catch(() => 'stuck' as const),
  ]);
  guard.abort();
  return outcome;
}

describe('pacer', () => {
  it('takes a published rate below the floor as the floor', async () => {
    expect(await twoRequests({ 'ratelimit-policy': '1;w=86400', 'ratelimit-remaining': '0' })).toBe('sent');
  }, 20_000);

  it('takes a negative remaining budget as none left', async () => {
    expect(await twoRequests({ 'ratelimit-policy': '10;w=1', 'ratelimit-remaining': '-1000000' })).toBe('sent');
  }, 20_000);
});
