/** Timing and summary statistics for the bench. */

export const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** Nearest-rank percentile (p in 0..1) of a sample. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

export const median = (xs: number[]) => percentile(xs, 0.5);

/** `calls` timed runs of `f(i)` after `warmup` untimed ones, one at a time; milliseconds. */
export async function timeCalls(calls: number, warmup: number, f: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await f(i);
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await f(warmup + i);
    times.push(ms(t0));
  }
  return times;
}

/**
 * `calls` timed runs each of `f(i)` and `g(i)`, interleaved one by one (which goes first alternates), after
 * `warmup` untimed pairs: both see the same state of the server, the machine and the JIT, so their ratio is
 * not skewed by what ran before. Milliseconds, [f's, g's].
 */
export async function timeInterleaved(
  calls: number,
  warmup: number,
  f: (i: number) => Promise<unknown>,
  g: (i: number) => Promise<unknown>,
): Promise<[number[], number[]]> {
  for (let i = 0; i < warmup; i++) {
    await f(i);
    await g(i);
  }
  const fs: number[] = [];
  const gs: number[] = [];
  const time = async (h: (i: number) => Promise<unknown>, i: number, into: number[]) => {
    const t0 = process.hrtime.bigint();
    await h(i);
    into.push(ms(t0));
  };
  for (let i = 0; i < calls; i++) {
    if (i % 2 === 0) {
      await time(f, warmup + i, fs);
      await time(g, warmup + i, gs);
    } else {
      await time(g, warmup + i, gs);
      await time(f, warmup + i, fs);
    }
  }
  return [fs, gs];
}

export const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));
