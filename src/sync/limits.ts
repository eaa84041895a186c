/**
 * What one sync lets a remote cost. Each number bounds one way a broken or hostile remote could keep sync
 * (and the sync lock, which `serve --sync-every` waits on) busy forever, or fill memory or the data dir.
 * Each has an environment variable to lower or raise it; docs/security.md lists them.
 */
import { quoted } from '../core/errors.js';
import { fingerprint } from './fingerprint.js';
import { formatCount } from '../core/numbers.js';

export interface SyncLimits {
  /** Pages one paginated walk follows (list_findings, changes_since, one meeting's transcript). */
  maxPages: number;
  /** Text of one meeting's transcript held before it lands, bytes. */
  maxTranscriptBytes: number;
  /** Text of public files one vault's pull downloads, bytes (each file is also capped, like any answer). */
  maxFileBytes: number;
  /** One request, from going out to the last byte of its answer, ms (the idle timeouts reset on every byte). */
  requestDeadlineMs: number;
  /** A whole sync, ms. */
  syncDeadlineMs: number;
}

const MiB = 1024 * 1024;

/** Each limit: its environment variable and its default. */
export const LIMIT_SETTINGS: Record<keyof SyncLimits, { env: string; fallback: number }> = {
  // 2,000 pages of 200 entities is 400,000 entities; a vault from meetings has thousands.
  maxPages: { env: 'VAULT_TOOLS_SYNC_MAX_PAGES', fallback: 2_000 },
  // About 19 hours of speech; a batch of transcripts landing together (50 at most) then holds 100 MiB at most.
  maxTranscriptBytes: { env: 'VAULT_TOOLS_SYNC_MAX_TRANSCRIPT_BYTES', fallback: 2 * MiB },
  maxFileBytes: { env: 'VAULT_TOOLS_SYNC_MAX_FILE_BYTES', fallback: 256 * MiB },
  // Long enough for a 512 MiB artifact at 2 MB/s; a tool's answer takes well under a second.
  requestDeadlineMs: { env: 'VAULT_TOOLS_SYNC_REQUEST_DEADLINE_MS', fallback: 5 * 60_000 },
  // A first pull of 10,000 entities takes seconds; a sync past an hour is stopped and resumes next time.
  syncDeadlineMs: { env: 'VAULT_TOOLS_SYNC_DEADLINE_MS', fallback: 60 * 60_000 },
};

/** A positive whole number from the environment, or `fallback` when unset; anything else is refused by name. */
export function numberSetting(env: string, fallback: number): number {
  const raw = process.env[env];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${env} ${quoted(raw)}: expected a whole number above 0`);
  return value;
}

/** The limits of this sync: the environment's, with `overrides` (tests) on top. */
export function syncLimits(overrides: Partial<SyncLimits> = {}): SyncLimits {
  const limits = {} as SyncLimits;
  for (const [name, { env, fallback }] of Object.entries(LIMIT_SETTINGS) as [
    keyof SyncLimits,
    { env: string; fallback: number },
  ][]) {
    limits[name] = overrides[name] ?? numberSetting(env, fallback);
  }
  return limits;
}

/** A limit reached: the message names the limit and its setting. */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

/**
 * One paginated walk, guarded: at most `maxPages` pages, and never the same cursor twice (a server answering
 * in a circle, or one whose cursor never ends, would otherwise be followed for ever).
 */
export class PageWalk {
  private pages = 1;
  private readonly seen = new Set<string>();

  constructor(
    private readonly what: string,
    private readonly maxPages: number,
  ) {}

  /** Called with a page's next cursor (or offset) before it is followed; throws a LimitError instead. */
  follow(cursor: string | number): void {
    if (++this.pages > this.maxPages) {
      throw new LimitError(
        `${this.what}: more than ${formatCount(this.maxPages)} pages (${LIMIT_SETTINGS.maxPages.env}), so the walk stopped there`,
      );
    }
    // Kept as a digest: a cursor is the server's to size.
    const key = fingerprint(cursor);
    if (this.seen.has(key))
      throw new LimitError(
        `${this.what}: page ${this.pages - 1} sends back a cursor already followed, so the walk would never end`,
      );
    this.seen.add(key);
  }
}
