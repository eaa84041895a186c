/**
 * mapInLanes, which sync uses to fetch meeting details a few at a time (so the entity inventory's pages do not
 * queue behind hundreds of them) and the embedder to share batches over its workers: never more than the limit in
 * flight, answers in order, nothing more asked after a failure.
 */
import { expect, it, vi } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { mapInLanes } from '../../src/core/lanes.js';

it('keeps at most `limit` fetches in flight and answers in the order of the items', async () => {
  let inFlight = 0;
  let most = 0;
  const busy = new Set<number>();
  const answers = await mapInLanes([5, 1, 4, 2, 3, 0, 6], 3, async (n, lane) => {
    most = Math.max(most, ++inFlight);
    expect(busy.has(lane)).toBe(false); // a lane runs one item at a time
    busy.add(lane);
    await sleep(n);
    busy.delete(lane);
    inFlight--;
    return n * 10;
  });
  expect(answers).toEqual([50, 10, 40, 20, 30, 0, 60]);
  expect(most).toBe(3);
});

it('throws the first failure and asks for nothing after it', async () => {
  const asked: number[] = [];
  let finished = 0;
  const run = mapInLanes([1, 2, 3, 4, 5, 6], 2, async (n) => {
    asked.push(n);
    try {
      await sleep(1);
      if (n === 2) throw new Error('no 2');
      return n;
    } finally {
      finished++;
    }
  });
  await expect(run).rejects.toThrow('no 2');
  // Once every item asked for has finished, and a turn of the event loop later, nothing more can be asked.
  await vi.waitFor(() => expect(finished).toBe(asked.length));
  await new Promise((r) => setImmediate(r));
  expect(asked).toEqual([1, 2, 3]);
});

it('answers an empty list at once', async () => {
  expect(await mapInLanes([], 4, async () => 1)).toEqual([]);
});
