/**
 * While a vault is partly embedded, search_transcripts tells the model how many chunks lack vectors and, when the
 * background indexer of this process is at work, about when it will have them (src/search/index-rate.ts), on a
 * real store through the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import type { Principal } from '../../src/core/principal.js';
import { chunksIndexed, indexPassStarted, indexRate, secondsToIndex } from '../../src/search/index-rate.js';
import { indexPending } from '../../src/search/vector-indexing.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { HashEmbedder } from '../hash-embedder.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

let db: Db;
let cleanup: () => void;
let service: Service;
let owner: Principal;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDb(t.dir);
  loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture' });
  const embedder = new HashEmbedder();
  // One batch of 32 chunks, then stop: the vault is partly embedded.
  const stop = new AbortController();
  await indexPending(db, embedder, { batchSize: 32, signal: stop.signal, onProgress: () => stop.abort() });
  owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key);
  service = new Service(db, { dataDir: t.dir, embedder });
});
afterAll(() => {
  db.close();
  cleanup();
});

async function search(): Promise<Record<string, any>> {
  const r = await service.invoke(
    'search_transcripts',
    { vault: 'northwind-logistics', query: 'returns backlog' },
    owner,
  );
  if (!r.ok) throw new Error(`search_transcripts: ${r.code}: ${r.message}`);
  return r.data;
}

describe('search_transcripts while a vault is partly embedded', () => {
  it('says how many chunks wait, and that no indexer is at work here', async () => {
    const r = await search();
    expect(r.vectorCoverage.withVectors).toBe(32);
    expect(r.vectorCoverage.chunks).toBeGreaterThan(32);
    const waiting = r.vectorCoverage.chunks - 32;
    expect(r.vectorsPending.chunks).toBe(waiting);
    expect(r.vectorsPending.estimatedSeconds).toBeUndefined();
    expect(r.vectorsPending.note).toContain(`${waiting} of ${r.vectorCoverage.chunks} transcript chunks`);
    expect(r.vectorsPending.note).toContain('vault-tools reindex');
  });

  it('estimates when the indexer will be done from its rate over the last minute', async () => {
    const t0 = Date.now();
    indexPassStarted(t0 - 4_000);
    chunksIndexed(32, t0 - 2_000);
    chunksIndexed(32, t0);
    expect(indexRate(t0)).toBe(16); // 64 chunks in the 4 s since the pass started
    expect(secondsToIndex(160, t0)).toBe(10);
    expect(indexRate(t0 + 61_000)).toBeUndefined(); // nothing indexed in the last minute: no estimate
    const r = await search();
    const waiting = r.vectorCoverage.chunks - r.vectorCoverage.withVectors;
    expect(r.vectorsPending.estimatedSeconds).toBeGreaterThanOrEqual(Math.ceil(waiting / 16));
    expect(r.vectorsPending.note).toMatch(/background indexer should have them in about \d+ s/);
  });

  it('says nothing of it once every chunk has a vector', async () => {
    await indexPending(db, new HashEmbedder());
    const r = await search();
    expect(r.vectorCoverage.withVectors).toBe(r.vectorCoverage.chunks);
    expect(r).not.toHaveProperty('vectorsPending');
  });
});
