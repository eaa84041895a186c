/**
 * How fast this process's background indexer has been embedding chunks, for search_transcripts to tell the model
 * when a partly embedded vault will be complete. The indexer (background.ts) records each batch; the rate is over
 * the last minute of batches, so it follows the machine's load. No indexer in this process (a `vault-tools call`,
 * serve --no-index), or none at work in the last minute: no estimate.
 */
const WINDOW_MS = 60_000;

const batches: { at: number; chunks: number }[] = [];
let passStarted: number | undefined;

/** A pass of the indexer starts (its first batch's time counts from here, model loading included). */
export function indexPassStarted(now = Date.now()): void {
  passStarted = now;
}

/** The indexer stored `chunks` vectors (embedded or from the cache). */
export function chunksIndexed(chunks: number, now = Date.now()): void {
  batches.push({ at: now, chunks });
  while (batches.length && batches[0]!.at < now - WINDOW_MS) batches.shift();
}

/** Chunks per second over the last minute of indexing, or undefined when there was none. */
export function indexRate(now = Date.now()): number | undefined {
  const recent = batches.filter((b) => b.at >= now - WINDOW_MS);
  if (!recent.length) return undefined;
  const since = Math.max(now - WINDOW_MS, Math.min(recent[0]!.at, passStarted ?? recent[0]!.at));
  const seconds = (recent.at(-1)!.at - since) / 1000;
  const chunks = recent.reduce((n, b) => n + b.chunks, 0);
  return seconds > 0 ? chunks / seconds : undefined;
}

/** Seconds until `pending` chunks have vectors at the recent rate, or undefined without one. */
export function secondsToIndex(pending: number, now = Date.now()): number | undefined {
  const rate = indexRate(now);
  return rate ? Math.ceil(pending / rate) : undefined;
}
