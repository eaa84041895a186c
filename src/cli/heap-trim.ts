/**
 * A long-running server gives back, once it is idle, the memory its garbage took. Measured (bench/soak.ts and the
 * rss bench, with the inspector's heap after a full collection): the JavaScript heap a server keeps stays flat at
 * ~24 MB over thousands of read calls, but V8 lets garbage pile up in the old generation and grows the heap to hold
 * it (RSS 118 -> 330 MB over 2,000 calls on the small bench store, 1.25x the RSS after the first 200), and it does
 * not hand those pages back while the server sits idle. So when the heap has stood still for a tick (no request
 * is allocating) with at least 16 MB of garbage on it (or the resident set 32 MB above what the last one left),
 * one full collection runs and returns the freed pages. Busy stretches are left to V8 (no collection is forced
 * under load); an idle server with nothing to free does nothing but read a counter every 2 s.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

const CHECK_EVERY_MS = 2_000;
/** Heap change between two checks below which the server is taken to be idle. */
const QUIET_BYTES = 2 ** 20;
const MIN_GARBAGE_BYTES = 16 * 2 ** 20;
/** Growth of the resident set since the last collection that is worth one too (buffers and strings JS objects hold outside the heap). */
const MIN_RSS_GROWTH_BYTES = 32 * 2 ** 20;

/** Starts the check (unref'd: it never keeps the process up); returns how to stop it. */
export function startHeapTrim(): () => void {
  // The collector is reachable from JavaScript only with --expose-gc; setting the flag at run time exposes it
  // to contexts made afterwards, such as this one.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  const used = () => v8.getHeapStatistics().used_heap_size;
  let live = used();
  let last = live;
  let rssAfter = process.memoryUsage.rss();
  const timer = setInterval(() => {
    const now = used();
    const quiet = Math.abs(now - last) < QUIET_BYTES;
    last = now;
    if (!quiet || (now - live < MIN_GARBAGE_BYTES && process.memoryUsage.rss() - rssAfter < MIN_RSS_GROWTH_BYTES))
      return;
    // 'last-resort' is the collection a low-memory notification runs: repeated until nothing more is freed, with
    // the freed pages given back to the system (after a plain gc() V8 keeps them for reuse: RSS stays).
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    live = last = used();
    rssAfter = process.memoryUsage.rss();
  }, CHECK_EVERY_MS).unref();
  return () => clearInterval(timer);
}
