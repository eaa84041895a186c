/**
 * Filling the vector index: every chunk whose text has no vector from the embedder is embedded (or its vector
 * taken from the embedding cache by content hash) and stored, batch by batch, one short transaction each. The
 * table itself and searching it are vectors.ts; together the two modules are the vector index.
 */
import { bumpTableVersion, limitParam, sql, writeTransaction, type Db } from '../store/db.js';
import { embedChunkTexts, type EmbedderLike } from './embed-chunks.js';
import { floats, halfBlob, signBits, toBlob } from './vector-codes.js';
import {
  ensureVectorTable,
  FLOATS,
  VECTOR_LAYOUT,
  VECTOR_TABLE,
  vectorIndexOwner,
  VECTORS_VERSION,
} from './vectors.js';

interface PendingChunk {
  id: number;
  vault_id: string;
  text: string;
  content_hash: string;
}

const PENDING_WHERE = `(@vault IS NULL OR c.vault_id = @vault)
  AND (ce.chunk_id IS NULL OR ce.embedder <> @embedder OR ce.content_hash <> c.content_hash)`;

export function countPending(db: Db, embedderId: string, vaultId?: string): number {
  return sql(
    db,
    `SELECT count(*) FROM transcript_chunks c LEFT JOIN chunk_embeddings ce ON ce.chunk_id = c.id WHERE ${PENDING_WHERE}`,
  )
    .pluck()
    .get({ vault: vaultId ?? null, embedder: embedderId }) as number;
}

/**
 * The highest chunk id ever given out (AUTOINCREMENT keeps it in sqlite_sequence, and ids are never reused):
 * it moves whenever anyone, in any process, adds chunks. One row of a tiny table.
 */
export function chunkHighWater(db: Db): number {
  return (
    (sql(db, "SELECT seq FROM sqlite_sequence WHERE name = 'transcript_chunks'").pluck().get() as number | undefined) ??
    0
  );
}

/** Pending chunks after chunk id `after`, in id order: a pass reads on from where its last batch ended, not from the first chunk again. */
function pendingBatch(db: Db, embedderId: string, limit: number, after: number, vaultId?: string): PendingChunk[] {
  return sql(
    db,
    `SELECT c.id, c.vault_id, c.text, c.content_hash FROM transcript_chunks c LEFT JOIN chunk_embeddings ce ON ce.chunk_id = c.id
     WHERE c.id > @after AND ${PENDING_WHERE} ORDER BY c.id LIMIT ${limitParam('@limit')}`,
  ).all({ vault: vaultId ?? null, embedder: embedderId, limit, after }) as PendingChunk[];
}

/** Vectors whose chunk is gone (a vault re-imported or dropped) would take nearest-neighbour slots: remove them. */
export function pruneOrphanVectors(db: Db): number {
  return writeTransaction(db, () => {
    db.prepare(`DELETE FROM ${FLOATS} WHERE chunk_id NOT IN (SELECT chunk_id FROM chunk_embeddings)`).run();
    const removed = db
      .prepare(`DELETE FROM ${VECTOR_TABLE} WHERE rowid NOT IN (SELECT chunk_id FROM chunk_embeddings)`)
      .run().changes;
    if (removed) bumpTableVersion(db, VECTORS_VERSION);
    return removed;
  });
}

/**
 * Stores chunk vectors (the table must be this embedder's, see ensureVectorTable): sign bits in the table,
 * floats by chunk id and in the embedding cache, and the chunk marked as embedded from its current text.
 * One transaction.
 */
export function storeVectors(
  db: Db,
  embedderId: string,
  items: { chunkId: number; vaultId: string; contentHash: string; vector: Float32Array | Buffer }[],
): void {
  const del = sql(db, `DELETE FROM ${VECTOR_TABLE} WHERE rowid = ?`);
  const ins = sql(db, `INSERT INTO ${VECTOR_TABLE} (rowid, vault_id, embedding) VALUES (?, ?, vec_bit(?))`);
  const mark = sql(
    db,
    'INSERT INTO chunk_embeddings (chunk_id, embedder, content_hash) VALUES (?, ?, ?) ON CONFLICT(chunk_id) DO UPDATE SET embedder = excluded.embedder, content_hash = excluded.content_hash',
  );
  const cache = sql(db, 'INSERT OR IGNORE INTO embedding_cache (embedder, content_hash, vector) VALUES (?, ?, ?)');
  const keep = sql(db, `INSERT OR REPLACE INTO ${FLOATS} (chunk_id, vector) VALUES (?, ?)`);
  writeTransaction(db, () => {
    for (const { chunkId, vaultId, contentHash, vector } of items) {
      const rowid = BigInt(chunkId);
      const v = vector instanceof Float32Array ? vector : floats(vector);
      del.run(rowid);
      ins.run(rowid, vaultId, signBits(v));
      mark.run(chunkId, embedderId, contentHash);
      cache.run(embedderId, contentHash, vector instanceof Float32Array ? toBlob(vector) : vector);
      keep.run(chunkId, halfBlob(v));
    }
    bumpTableVersion(db, VECTORS_VERSION);
  });
}

/** The chunks that wait for a vector from `embedderId`: their text and content hash (what a vector is kept under). */
export function pendingChunks(db: Db, embedderId: string): { text: string; contentHash: string }[] {
  return (pendingBatch(db, embedderId, Number.MAX_SAFE_INTEGER, 0) as PendingChunk[]).map((c) => ({
    text: c.text,
    contentHash: c.content_hash,
  }));
}

/**
 * Stores, for every chunk waiting for a vector from `embedder`, the vector `known` has for its content hash
 * (vectors computed ahead, e.g. the demo vaults' shipped ones); chunks it has none for keep waiting. No model
 * is loaded. Returns how many chunks got their vector.
 */
export function storeKnownVectors(
  db: Db,
  embedder: { id: string; dims: number },
  known: (contentHash: string) => Float32Array | undefined,
): number {
  ensureVectorTable(db, embedder);
  let stored = 0;
  for (let after = 0; ; ) {
    const batch = pendingBatch(db, embedder.id, 256, after);
    if (!batch.length) break;
    after = batch.at(-1)!.id;
    const items = batch.flatMap((c) => {
      const vector = known(c.content_hash);
      return vector && vector.length === embedder.dims
        ? [{ chunkId: c.id, vaultId: c.vault_id, contentHash: c.content_hash, vector }]
        : [];
    });
    if (items.length) storeVectors(db, embedder.id, items);
    stored += items.length;
  }
  return stored;
}

export interface IndexProgress {
  done: number;
  total: number;
  embedded: number;
  reused: number;
}

/**
 * Embeds every chunk that lacks a vector from `embedder` (optionally of one vault), in batches, reusing
 * cached vectors for unchanged text. Each batch is its own transaction, so a stop loses at most one batch.
 */
/** The vector table is this embedder's, in the current layout, and no chunk waits for a vector. */
function upToDate(db: Db, embedder: EmbedderLike, vaultId?: string): boolean {
  let id: string;
  let dims: number;
  try {
    ({ id, dims } = embedder); // an endpoint embedder knows neither before its first answer
  } catch {
    return false;
  }
  const owner = vectorIndexOwner(db);
  const exists = sql(db, 'SELECT 1 FROM sqlite_master WHERE name = ?').get(VECTOR_TABLE) !== undefined;
  return (
    exists &&
    owner?.embedder === id &&
    owner.dims === dims &&
    owner.layout === VECTOR_LAYOUT &&
    countPending(db, id, vaultId) === 0
  );
}

export async function indexPending(
  db: Db,
  embedder: EmbedderLike,
  options: {
    vaultId?: string;
    batchSize?: number;
    signal?: AbortSignal;
    onProgress?: (p: IndexProgress) => void;
    /** Embed as background work (see EmbedOptions.background): serve's indexer, which runs beside queries. */
    background?: boolean;
  } = {},
): Promise<IndexProgress> {
  // With nothing to embed, the model is not loaded at all (serve starts this pass every time).
  if (upToDate(db, embedder, options.vaultId)) {
    pruneOrphanVectors(db);
    return { done: 0, total: 0, embedded: 0, reused: 0 };
  }
  // Loads the model (needed anyway) and settles an endpoint embedder's dims before the table is made.
  await embedder.embed(['warm-up'], { background: options.background });
  ensureVectorTable(db, embedder);
  pruneOrphanVectors(db);
  const progress: IndexProgress = {
    done: 0,
    total: countPending(db, embedder.id, options.vaultId),
    embedded: 0,
    reused: 0,
  };
  const cached = sql(db, 'SELECT vector FROM embedding_cache WHERE embedder = ? AND content_hash = ?').pluck();
  for (let after = 0; ; ) {
    if (options.signal?.aborted) break;
    const batch = pendingBatch(db, embedder.id, options.batchSize ?? 32, after, options.vaultId);
    if (!batch.length) break;
    after = batch.at(-1)!.id;
    const known = batch.map((c) => cached.get(embedder.id, c.content_hash) as Buffer | undefined);
    const missing = batch.filter((_, i) => !known[i]);
    const vectors = missing.length
      ? await embedChunkTexts(
          embedder,
          missing.map((c) => c.text),
          options.signal,
          options.background,
        )
      : [];
    let next = 0;
    storeVectors(
      db,
      embedder.id,
      batch.map((chunk, i) => ({
        chunkId: chunk.id,
        vaultId: chunk.vault_id,
        contentHash: chunk.content_hash,
        vector: known[i] ?? vectors[next++]!,
      })),
    );
    progress.done += batch.length;
    progress.reused += batch.length - missing.length;
    progress.embedded += missing.length;
    options.onProgress?.({ ...progress });
  }
  return progress;
}
