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

export const sleep = (msec: number) => new Promise((resolve) => setTimeout(resolve, msec));
