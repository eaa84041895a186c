/**
 * Vectors shipped with the package for the demo vaults' transcript chunks, so a fresh demo store answers by
 * meaning from its first search, however it was started (a client that starts `demo` over stdio cannot wait
 * the ~20 s the model takes to embed 184 chunks on two cores before `initialize`). The vaults are fixed and
 * their transcripts name no day of the month (days are said relative to the meeting, see
 * docs/fixture-format.md), so their chunk texts are the same in every week the demo moves to.
 *
 * One file per embedder, `fixtures/vectors/<embedder id>.json`: the embedder's id and dims, and each chunk's
 * vector (float32, base64) under the chunk's content hash, the key the embedding cache uses too. A chunk whose
 * text is not in the file (a fixture edited since the file was built) is embedded as usual. Built by
 * `npm run fixtures:vectors`; test/e2e/shipped-vectors.test.ts checks the file covers every chunk and equals
 * what the embedder produces.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from '../package-info.js';
import { safeSegment } from '../safe-path.js';
import type { Db } from '../store/db.js';
import { storeKnownVectors } from './vector-indexing.js';

export interface ShippedVectors {
  embedder: string;
  dims: number;
  /** content hash → float32 vector, base64 */
  vectors: Record<string, string>;
}

export const shippedVectorsPath = (embedderId: string) =>
  join(FIXTURES_DIR, 'vectors', `${safeSegment(embedderId)}.json`);

/** The shipped vectors of this embedder (undefined when none were built for it, e.g. an endpoint embedder). */
export function readShippedVectors(embedder: {
  id: string;
  dims: number;
}): ((contentHash: string) => Float32Array | undefined) | undefined {
  const file = shippedVectorsPath(embedder.id);
  if (!existsSync(file)) return undefined;
  const shipped = JSON.parse(readFileSync(file, 'utf8')) as ShippedVectors;
  if (shipped.embedder !== embedder.id || shipped.dims !== embedder.dims) return undefined;
  return (hash) => {
    const b64 = shipped.vectors[hash];
    if (!b64) return undefined;
    const bytes = Buffer.from(b64, 'base64');
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  };
}

export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

/**
 * Gives every chunk waiting for a vector from `embedder` its shipped vector, where there is one (no model is
 * loaded). Returns how many chunks got one.
 */
export function useShippedVectors(db: Db, embedder: { id: string; dims: number }): number {
  const known = readShippedVectors(embedder);
  return known ? storeKnownVectors(db, embedder, known) : 0;
}
