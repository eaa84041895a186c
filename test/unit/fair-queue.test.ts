/** The queue that shares the query embedder among callers (issue 45, item 14): callers take turns. */
import { expect, it } from 'vitest';
import { FairQueue } from '../../src/core/fair-queue.js';

/** A task that records when it starts and finishes when `release()` is called. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { task: () => (log.push(name), done.then(() => name)), release };
}

it("starts a task at once, in the caller's turn, when nothing waits", () => {
  const queue = new FairQueue(1);
  const log: string[] = [];
  const first = gate(log, 'first');
  void queue.run('a', first.task);
  expect(log).toEqual(['first']); // synchronously: before run() returned
  first.release();
});

it('takes waiting callers in turn: a caller with many tasks does not hold up one with a single task', async () => {
  const queue = new FairQueue(1);
  const log: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  const run = (caller: string, name: string) => {
    const g = gate(log, name);
    gates.set(name, g);
    return queue.run(caller, g.task);
  };
  const answers = [run('busy', 'busy-0')];
  for (let i = 1; i <= 10; i++) answers.push(run('busy', `busy-${i}`));
  answers.push(run('other', 'other-0'));
  expect(queue.pending).toBe(11);
  // Finish whatever runs, one at a time, until all have run.
  for (let step = 0; step < 12; step++) {
    gates.get(log.at(-1)!)!.release();
    await new Promise((r) => setImmediate(r));
  }
  expect(await Promise.all(answers)).toHaveLength(12);
  expect(log.slice(0, 3)).toEqual(['busy-0', 'other-0', 'busy-1']); // the caller served last waits while another does
  expect(log.filter((n) => n.startsWith('busy'))).toEqual(Array.from({ length: 11 }, (_, i) => `busy-${i}`)); // a caller's own order kept
});

it('runs up to its concurrency at once, and a failing task fails alone', async () => {
  const queue = new FairQueue(2);
  const log: string[] = [];
  const a = gate(log, 'a');
  const b = gate(log, 'b');
  const pa = queue.run('x', a.task);
  const pb = queue.run('y', b.task);
  const failing = queue.run('z', () => Promise.reject(new Error('boom')));
  const after = queue.run('z', () => Promise.resolve('after'));
  expect(log).toEqual(['a', 'b']);
  a.release();
  await expect(failing).rejects.toThrow('boom');
  await expect(after).resolves.toBe('after');
  b.release();
  await expect(Promise.all([pa, pb])).resolves.toEqual(['a', 'b']);
  expect(() => new FairQueue(0)).toThrow(RangeError);
});
