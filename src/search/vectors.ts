/**
 * The vector index: a sqlite-vec `vec0` table partitioned by vault, holding one vector per transcript chunk
 * from ONE embedder (its id and dims are recorded in settings; another embedder rebuilds the table).
 * Indexing embeds only chunks whose text has no vector yet: vectors are cached by content hash, so a
 * re-import or re-sync of unchanged text costs nothing.
 */
import { sql, hasVectorExtension, type Db } from '../store/db.js';

export const VECTOR_TABLE = 'chunk_vectors';
const SETTING = 'vector_index';

export interface EmbedderLike {
  readonly id: string;
  readonly dims: number;
  readonly windowChars?: number;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

const toBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

export function vectorIndexOwner(db: Db): { embedder: string; dims: number } | undefined {
  const raw = sql(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(SETTING) as string | undefined;
  return raw ? (JSON.parse(raw) as { embedder: string; dims: number }) : undefined;
}

/** Makes the vector table belong to this embedder; a different embedder (or dims) starts it afresh. */
export function ensureVectorTable(db: Db, embedder: { id: string; dims: number }): void {
  if (!hasVectorExtension(db)) throw new Error('sqlite-vec is not available on this platform; search runs on words alone');
  const owner = vectorIndexOwner(db);
  const exists = sql(db, "SELECT 1 FROM sqlite_master WHERE name = ?").get(VECTOR_TABLE) !== undefined;
  if (exists && owner?.embedder === embedder.id && owner.dims === embedder.dims) return;
  db.transaction(() => {
    db.exec(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`);
    db.exec('DELETE FROM chunk_embeddings');
    db.exec(
      `CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(vault_id text partition key, embedding float[${embedder.dims}] distance_metric=cosine)`,
    );
    sql(db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
      SETTING,
      JSON.stringify({ embedder: embedder.id, dims: embedder.dims }),
    );
  })();
}

/** Forgets every vector of this embedder (index and cache): the next indexing embeds everything again. */
export function resetVectorIndex(db: Db, embedder: { id: string; dims: number }): void {
  db.transaction(() => {
    sql(db, 'DELETE FROM embedding_cache WHERE embedder = ?').run(embedder.id);
    db.exec(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`);
    sql(db, 'DELETE FROM settings WHERE key = ?').run(SETTING);
  })();
  ensureVectorTable(db, embedder);
}

interface PendingChunk {
  id: number;
  vault_id: string;
  text: string;
  content_hash: string;
}

const PENDING_WHERE = `(@vault IS NULL OR c.vault_id = @vault)
  AND (ce.chunk_id IS NULL OR ce.embedder <> @embedder OR ce.content_hash <> c.content_hash)`;

export function countPending(db: Db, embedderId: string, vaultId?: string): number {
  return sql(db, `SELECT count(*) FROM transcript_chunks c LEFT JOIN chunk_embeddings ce ON ce.chunk_id = c.id WHERE ${PENDING_WHERE}`)
    .pluck()
    .get({ vault: vaultId ?? null, embedder: embedderId }) as number;
}

function pendingBatch(db: Db, embedderId: string, limit: number, vaultId?: string): PendingChunk[] {
  return sql(
    db,
    `SELECT c.id, c.vault_id, c.text, c.content_hash FROM transcript_chunks c LEFT JOIN chunk_embeddings ce ON ce.chunk_id = c.id
     WHERE ${PENDING_WHERE} ORDER BY c.id LIMIT @limit`,
  ).all({ vault: vaultId ?? null, embedder: embedderId, limit }) as PendingChunk[];
}

/** A chunk cut into windows the model reads whole: whole "Speaker: words" lines where they fit, at most 8. */
export function embeddingWindows(text: string, windowChars: number): string[] {
  const windows: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    for (let rest = line; rest.length; ) {
      let piece = rest;
      if (piece.length > windowChars) {
        const cut = rest.lastIndexOf(' ', windowChars);
        piece = rest.slice(0, cut > windowChars / 2 ? cut : windowChars);
      }
      rest = rest.slice(piece.length).trimStart();
      if (current && current.length + piece.length + 1 > windowChars) {
        windows.push(current);
        current = '';
      }
      current = current ? `${current}\n${piece}` : piece;
    }
  }
  if (current) windows.push(current);
  return windows.slice(0, 8);
}

/**
 * Vectors for chunk texts. A text longer than the model reads is embedded window by window and the
 * windows' vectors averaged (then normalised), so the whole chunk counts, not just its start.
 */
export async function embedChunkTexts(embedder: EmbedderLike, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const windowChars = embedder.windowChars;
  if (!windowChars) return embedder.embed(texts, { signal });
  const parts = texts.map((t) => embeddingWindows(t, windowChars));
  const flat = await embedder.embed(parts.flat(), { signal });
  let next = 0;
  return parts.map((p) => {
    const mean = new Float32Array(embedder.dims);
    for (let i = 0; i < p.length; i++) {
      const v = flat[next++]!;
      for (let d = 0; d < mean.length; d++) mean[d]! += v[d]!;
    }
    const norm = Math.hypot(...mean) || 1;
    for (let d = 0; d < mean.length; d++) mean[d]! /= norm;
    return mean;
  });
}

/** Vectors whose chunk is gone (a vault re-imported or dropped) would take nearest-neighbour slots: remove them. */
export function pruneOrphanVectors(db: Db): number {
  return db.prepare(`DELETE FROM ${VECTOR_TABLE} WHERE rowid NOT IN (SELECT chunk_id FROM chunk_embeddings)`).run().changes;
}

function storeVectors(db: Db, embedderId: string, items: { chunk: PendingChunk; vector: Buffer }[]): void {
  const del = sql(db, `DELETE FROM ${VECTOR_TABLE} WHERE rowid = ?`);
  const ins = sql(db, `INSERT INTO ${VECTOR_TABLE} (rowid, vault_id, embedding) VALUES (?, ?, ?)`);
  const mark = sql(db, 'INSERT INTO chunk_embeddings (chunk_id, embedder, content_hash) VALUES (?, ?, ?) ON CONFLICT(chunk_id) DO UPDATE SET embedder = excluded.embedder, content_hash = excluded.content_hash');
  const cache = sql(db, 'INSERT OR IGNORE INTO embedding_cache (embedder, content_hash, vector) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const { chunk, vector } of items) {
      const rowid = BigInt(chunk.id);
      del.run(rowid);
      ins.run(rowid, chunk.vault_id, vector);
      mark.run(chunk.id, embedderId, chunk.content_hash);
      cache.run(embedderId, chunk.content_hash, vector);
    }
  })();
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
export async function indexPending(
  db: Db,
  embedder: EmbedderLike,
  options: { vaultId?: string; batchSize?: number; signal?: AbortSignal; onProgress?: (p: IndexProgress) => void } = {},
): Promise<IndexProgress> {
  // Loads the model (needed anyway) and settles an endpoint embedder's dims before the table is made.
  await embedder.embed(['warm-up']);
  ensureVectorTable(db, embedder);
  pruneOrphanVectors(db);
  const progress: IndexProgress = { done: 0, total: countPending(db, embedder.id, options.vaultId), embedded: 0, reused: 0 };
  const cached = sql(db, 'SELECT vector FROM embedding_cache WHERE embedder = ? AND content_hash = ?').pluck();
  for (;;) {
    if (options.signal?.aborted) break;
    const batch = pendingBatch(db, embedder.id, options.batchSize ?? 32, options.vaultId);
    if (!batch.length) break;
    const known = batch.map((c) => cached.get(embedder.id, c.content_hash) as Buffer | undefined);
    const missing = batch.filter((_, i) => !known[i]);
    const vectors = missing.length ? await embedChunkTexts(embedder, missing.map((c) => c.text), options.signal) : [];
    let next = 0;
    storeVectors(
      db,
      embedder.id,
      batch.map((chunk, i) => ({ chunk, vector: known[i] ?? toBlob(vectors[next++]!) })),
    );
    progress.done += batch.length;
    progress.reused += batch.length - missing.length;
    progress.embedded += missing.length;
    options.onProgress?.({ ...progress });
  }
  return progress;
}

/** The `k` chunks of a vault nearest to `vector` (cosine distance, smaller is nearer). */
export function nearestChunks(db: Db, vaultId: string, vector: Float32Array, k: number): { id: number; distance: number }[] {
  return sql(db, `SELECT rowid AS id, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH ? AND vault_id = ? AND k = ?`).all(
    toBlob(vector),
    vaultId,
    k,
  ) as { id: number; distance: number }[];
}

/** Whether any chunk of the vault has a current vector from this embedder (a cheap probe for every query). */
export function hasVectors(db: Db, vaultId: string, embedderId: string): boolean {
  return (
    sql(
      db,
      `SELECT 1 FROM transcript_chunks c JOIN chunk_embeddings ce ON ce.chunk_id = c.id AND ce.embedder = ? AND ce.content_hash = c.content_hash
       WHERE c.vault_id = ? LIMIT 1`,
    ).get(embedderId, vaultId) !== undefined
  );
}

/** How many of a vault's chunks have vectors from this embedder (all, some, or none yet). */
export function vectorCoverage(db: Db, vaultId: string, embedderId: string): { chunks: number; withVectors: number } {
  return sql(
    db,
    `SELECT count(*) AS chunks, count(ce.chunk_id) AS withVectors FROM transcript_chunks c
     LEFT JOIN chunk_embeddings ce ON ce.chunk_id = c.id AND ce.embedder = ? AND ce.content_hash = c.content_hash
     WHERE c.vault_id = ?`,
  ).get(embedderId, vaultId) as { chunks: number; withVectors: number };
}
