/**
 * Issue 45, item 14: one key cannot take the query embedder from the others. Through the service on a real store:
 * an embedder that, like USE lite's one query worker, embeds one batch at a time in the order batches reach it;
 * one key queues ten searches with alternatives, another key asks once, and its query is embedded next, not
 * eleventh.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import { indexPending } from '../../src/search/vector-indexing.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { HashEmbedder } from '../hash-embedder.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

/** One batch at a time, first come first served, each finished when the test says so. */
class OneWorker extends HashEmbedder {
  readonly queryLanes = 1;
  readonly order: string[] = [];
  private readonly queue: { texts: string[]; done: () => void }[] = [];
  private busy = false;

  override embed(texts: string[]) {
    return new Promise<void>((done) => {
      this.queue.push({ texts, done });
      this.startNext();
    }).then(() => super.embed(texts));
  }

  /** The batch the worker is on, if any. */
  get current(): string | undefined {
    return this.busy ? this.order.at(-1) : undefined;
  }

  /** Finishes the batch in hand; the next one starts. */
  finish(): void {
    const job = this.queue.shift()!;
    this.busy = false;
    job.done();
    this.startNext();
  }

  private startNext(): void {
    if (this.busy || !this.queue.length) return;
    this.busy = true;
    this.order.push(this.queue[0]!.texts[0]!);
  }
}

let db: Db;
let cleanup: () => void;
beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDb(t.dir);
  loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture', now: new Date('2026-11-28T00:00:00Z') });
  await indexPending(db, new HashEmbedder());
});
afterAll(() => {
  db.close();
  cleanup();
});

it("embeds another key's query next while one key has ten searches with alternatives waiting", async () => {
  const embedder = new OneWorker();
  const service = new Service(db, { embedder });
  const busy = authenticate(db, createKey(db, { name: 'busy', role: 'member', vaults: ['northwind-logistics'] }).key);
  const other = authenticate(db, createKey(db, { name: 'other', role: 'member', vaults: ['northwind-logistics'] }).key);
  const calls = Array.from({ length: 10 }, (_, i) =>
    service.invoke(
      'search_transcripts',
      { query: `busy ${i}`, alternatives: ['dock doors', 'lorries waiting', 'carrier detention'] },
      busy,
    ),
  );
  await vi.waitFor(() => expect(embedder.current).toBe('busy 0'));
  const answer = service.invoke('search_transcripts', { query: 'other key', limit: 3 }, other);
  for (let step = 0; step < 11; step++) {
    await vi.waitFor(() => expect(embedder.current).toBeDefined());
    embedder.finish();
  }
  const results = await Promise.all([...calls, answer]);
  expect(results.every((r) => r.ok)).toBe(true);
  expect(embedder.order).toHaveLength(11);
  expect(embedder.order.slice(0, 3)).toEqual(['busy 0', 'other key', 'busy 1']);
  expect(embedder.order.filter((t) => t.startsWith('busy'))).toEqual(Array.from({ length: 10 }, (_, i) => `busy ${i}`));
});
