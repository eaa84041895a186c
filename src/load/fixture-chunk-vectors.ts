/**
 * The demo vaults' transcript chunks and their vectors from an embedder, computed now: what
 * `npm run fixtures:vectors` writes to fixtures/vectors/ (shipped-vectors.ts reads it), and what the test
 * compares that file with. The chunks come from loading the fixtures into a store of their own, exactly as
 * the demo does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../store/db.js';
import { loadFixture } from './load.js';
import { readVaultDir } from '../vault-format/read.js';
import { embedChunkTexts, type EmbedderLike } from '../search/embed-chunks.js';
import { pendingChunks } from '../search/vector-indexing.js';

/** Every transcript chunk of the fixture vaults in `dirs`: its content hash and text. */
export function fixtureChunks(dirs: string[]): { contentHash: string; text: string }[] {
  const dir = mkdtempSync(join(tmpdir(), 'vt-fixture-chunks-'));
  const db = openDb(dir);
  try {
    for (const d of dirs) loadFixture(db, readVaultDir(d), { origin: 'fixture' });
    return pendingChunks(db, '(none)');
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The vectors `embedder` gives the chunks, by content hash. */
export async function embedFixtureChunks(
  embedder: EmbedderLike,
  chunks: { contentHash: string; text: string }[],
): Promise<Map<string, Float32Array>> {
  const vectors = await embedChunkTexts(
    embedder,
    chunks.map((c) => c.text),
  );
  return new Map(chunks.map((c, i) => [c.contentHash, vectors[i]!]));
}
