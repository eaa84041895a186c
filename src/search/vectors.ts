/**
 * The vector index: a sqlite-vec `vec0` table partitioned by vault, holding one vector per transcript chunk
 * from ONE embedder (its id and dims are recorded in settings; another embedder rebuilds the table).
 * Indexing embeds only chunks whose text has no vector yet: vectors are cached by content hash, so a
 * re-import or re-sync of unchanged text costs nothing.
 *
 * The table holds each vector's SIGN BITS (`bit[dims]`, binary quantisation), searched by Hamming distance;
 * the vectors are also kept by chunk id in `chunk_vector_floats` as float16 (float32 stays in `embedding_cache`,
 * by text hash, as before) and re-score the Hamming candidates (cosine; float16 ranks them as float32 did on
 * the recall bench, at half the bytes: one 2 KB float32 row filled a 4 KB page, three float16 rows do). At 50,000 chunks in a vault (docs/search.md)
 * the float scan took 45-60 ms; the bit scan plus the re-scoring of its candidates takes a few ms, with the
 * recall of the exact top 50 measured there. A store whose table still holds floats (before this layout) is
 * searched the old way until `ensureVectorTable` converts it (serve's background indexing or `reindex` do).
 */
import { bumpTableVersion, limitParam, sql, hasVectorExtension, tableVersion, writeTransaction, type Db } from '../store/db.js';

export const VECTOR_TABLE = 'chunk_vectors';
/** Float16 vectors by chunk id (migration 4), for re-scoring: one rowid lookup per candidate. */
const FLOATS = 'chunk_vector_floats';
const SETTING = 'vector_index';
/** The tableVersion every writer of the vector table bumps (the block cache's key). */
const VECTORS_VERSION = 'vectors';
/** The table's layout (recorded in the setting): sign bits + float re-score. Stores without it hold float[dims]. */
export const VECTOR_LAYOUT = 'bits';

/**
 * Hamming candidates re-scored per wanted neighbour: 400 for search's top 50. Chosen on real USE-lite vectors
 * (bench/search-recall.ts, docs/search.md): 200 candidates kept ~0.92 of the exact top 50, 400 ~0.97; the
 * extra 200 floats cost ~1.5 ms at 50,000 chunks (the bit scan itself does not depend on the count).
 */
export const OVERSAMPLE = 8;
/** vec0's limit on k. */
const MAX_K = 4096;

export interface EmbedderLike {
  readonly id: string;
  readonly dims: number;
  readonly windowChars?: number;
  embed(texts: string[], options?: { signal?: AbortSignal; background?: boolean }): Promise<Float32Array[]>;
}

export interface VectorIndexOwner {
  embedder: string;
  dims: number;
  /** VECTOR_LAYOUT, or absent for a float table not converted yet. */
  layout?: string;
}

const toBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** A stored float vector as a Float32Array (copied when the blob is not 4-byte aligned). */
function floats(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(Uint8Array.from(blob).buffer);
}

const bitDims = (dims: number) => Math.ceil(dims / 8) * 8;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The IEEE float16 bits of a number (round to nearest even; subnormals; overflow to infinity). */
export function toHalf(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | h;
}

let halves: Float32Array | undefined;
/** float16 bits → value, for all 65,536 of them (256 KB, built on first use). */
function halfTable(): Float32Array {
  if (!halves) {
    halves = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const e = (h >>> 10) & 0x1f;
      const m = h & 0x3ff;
      halves[h] = e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
    }
  }
  return halves;
}

/** A vector as float16, little-endian. */
function halfBlob(v: Float32Array): Buffer {
  const out = Buffer.alloc(v.length * 2);
  for (let i = 0; i < v.length; i++) out.writeUInt16LE(toHalf(v[i]!), i * 2);
  return out;
}

/** The sign bits of a vector, packed low bit first (as sqlite-vec's vec_quantize_binary), padded to whole bytes. */
export function signBits(v: Float32Array): Buffer {
  const out = Buffer.alloc(bitDims(v.length) / 8);
  for (let i = 0; i < v.length; i++) if (v[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

export function vectorIndexOwner(db: Db): VectorIndexOwner | undefined {
  const raw = sql(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(SETTING) as string | undefined;
  return raw ? (JSON.parse(raw) as VectorIndexOwner) : undefined;
}

function setOwner(db: Db, owner: VectorIndexOwner): void {
  sql(db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(SETTING, JSON.stringify(owner));
}

const createTable = (db: Db, dims: number) =>
  db.exec(`CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(vault_id text partition key, embedding bit[${bitDims(dims)}])`);

/**
 * Makes the vector table belong to this embedder; a different embedder (or dims) starts it afresh, and a float
 * table of this embedder (a store from before the bit layout) is converted without embedding anything again.
 */
export function ensureVectorTable(db: Db, embedder: { id: string; dims: number }): void {
  if (!hasVectorExtension(db)) throw new Error('sqlite-vec is not available on this platform; search runs on words alone');
  const owner = vectorIndexOwner(db);
  const exists = sql(db, "SELECT 1 FROM sqlite_master WHERE name = ?").get(VECTOR_TABLE) !== undefined;
  if (exists && owner?.embedder === embedder.id && owner.dims === embedder.dims) {
    if (owner.layout !== VECTOR_LAYOUT) convertToBits(db, owner);
    return;
  }
  writeTransaction(db, () => {
    db.exec(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`);
    db.exec('DELETE FROM chunk_embeddings');
    db.exec(`DELETE FROM ${FLOATS}`);
    createTable(db, embedder.dims);
    setOwner(db, { embedder: embedder.id, dims: embedder.dims, layout: VECTOR_LAYOUT });
    bumpTableVersion(db, VECTORS_VERSION);
  });
}

/**
 * Float table → bit table (+ floats by chunk id), in one transaction. The floats come from the embedding
 * cache; a vector missing there is copied into it from the old table first (slow: vec0 reads one vector at a
 * time; only stores written around the cache, like an old bench store, have such vectors), and a chunk whose
 * vector is found nowhere goes back to pending (its chunk_embeddings row is removed): the store stays
 * consistent either way.
 */
function convertToBits(db: Db, owner: VectorIndexOwner): void {
  const PAGE = 2000;
  writeTransaction(db, () => {
    const missing = sql(
      db,
      `SELECT ce.chunk_id, ce.content_hash FROM chunk_embeddings ce
       LEFT JOIN embedding_cache e ON e.embedder = ce.embedder AND e.content_hash = ce.content_hash
       WHERE ce.embedder = ? AND e.vector IS NULL AND ce.chunk_id > ? ORDER BY ce.chunk_id LIMIT ${limitParam('?')}`,
    ).raw();
    const oldVector = db.prepare(`SELECT embedding FROM ${VECTOR_TABLE} WHERE rowid = ?`).pluck();
    const cache = sql(db, 'INSERT OR IGNORE INTO embedding_cache (embedder, content_hash, vector) VALUES (?, ?, ?)');
    const unmark = sql(db, 'DELETE FROM chunk_embeddings WHERE chunk_id = ?');
    for (let last = 0; ; ) {
      const page = missing.all(owner.embedder, last, PAGE) as [number, string][];
      if (!page.length) break;
      for (const [id, hash] of page) {
        const v = oldVector.get(BigInt(id)) as Buffer | undefined;
        if (v) cache.run(owner.embedder, hash, v);
        else unmark.run(id);
      }
      last = page.at(-1)![0];
    }
    db.exec(`DROP TABLE ${VECTOR_TABLE}`);
    createTable(db, owner.dims);
    const rows = sql(
      db,
      `SELECT ce.chunk_id, c.vault_id, e.vector FROM chunk_embeddings ce
       JOIN transcript_chunks c ON c.id = ce.chunk_id
       JOIN embedding_cache e ON e.embedder = ce.embedder AND e.content_hash = ce.content_hash
       WHERE ce.embedder = ? AND ce.chunk_id > ? ORDER BY ce.chunk_id LIMIT ${limitParam('?')}`,
    ).raw();
    const ins = sql(db, `INSERT INTO ${VECTOR_TABLE} (rowid, vault_id, embedding) VALUES (?, ?, vec_bit(?))`);
    const keep = sql(db, `INSERT OR REPLACE INTO ${FLOATS} (chunk_id, vector) VALUES (?, ?)`);
    db.exec(`DELETE FROM ${FLOATS}`);
    for (let last = 0; ; ) {
      const page = rows.all(owner.embedder, last, PAGE) as [number, string, Buffer][];
      if (!page.length) break;
      for (const [id, vault, vector] of page) {
        const v = floats(vector);
        ins.run(BigInt(id), vault, signBits(v));
        keep.run(id, halfBlob(v));
      }
      last = page.at(-1)![0];
    }
    setOwner(db, { ...owner, layout: VECTOR_LAYOUT });
    bumpTableVersion(db, VECTORS_VERSION);
  });
}

/** Forgets every vector of this embedder (index and cache): the next indexing embeds everything again. */
export function resetVectorIndex(db: Db, embedder: { id: string; dims: number }): void {
  writeTransaction(db, () => {
    sql(db, 'DELETE FROM embedding_cache WHERE embedder = ?').run(embedder.id);
    db.exec(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`);
    sql(db, 'DELETE FROM settings WHERE key = ?').run(SETTING);
    bumpTableVersion(db, VECTORS_VERSION);
  });
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

/** Pending chunks after chunk id `after`, in id order: a pass reads on from where its last batch ended, not from the first chunk again. */
function pendingBatch(db: Db, embedderId: string, limit: number, after: number, vaultId?: string): PendingChunk[] {
  return sql(
    db,
    `SELECT c.id, c.vault_id, c.text, c.content_hash FROM transcript_chunks c LEFT JOIN chunk_embeddings ce ON ce.chunk_id = c.id
     WHERE c.id > @after AND ${PENDING_WHERE} ORDER BY c.id LIMIT ${limitParam('@limit')}`,
  ).all({ vault: vaultId ?? null, embedder: embedderId, limit, after }) as PendingChunk[];
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
export async function embedChunkTexts(embedder: EmbedderLike, texts: string[], signal?: AbortSignal, background = false): Promise<Float32Array[]> {
  const windowChars = embedder.windowChars;
  if (!windowChars) return embedder.embed(texts, { signal, background });
  const parts = texts.map((t) => embeddingWindows(t, windowChars));
  const flat = await embedder.embed(parts.flat(), { signal, background });
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
  return writeTransaction(db, () => {
    db.prepare(`DELETE FROM ${FLOATS} WHERE chunk_id NOT IN (SELECT chunk_id FROM chunk_embeddings)`).run();
    const removed = db.prepare(`DELETE FROM ${VECTOR_TABLE} WHERE rowid NOT IN (SELECT chunk_id FROM chunk_embeddings)`).run().changes;
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
  const mark = sql(db, 'INSERT INTO chunk_embeddings (chunk_id, embedder, content_hash) VALUES (?, ?, ?) ON CONFLICT(chunk_id) DO UPDATE SET embedder = excluded.embedder, content_hash = excluded.content_hash');
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
  return exists && owner?.embedder === id && owner.dims === dims && owner.layout === VECTOR_LAYOUT && countPending(db, id, vaultId) === 0;
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
  const progress: IndexProgress = { done: 0, total: countPending(db, embedder.id, options.vaultId), embedded: 0, reused: 0 };
  const cached = sql(db, 'SELECT vector FROM embedding_cache WHERE embedder = ? AND content_hash = ?').pluck();
  for (let after = 0; ; ) {
    if (options.signal?.aborted) break;
    const batch = pendingBatch(db, embedder.id, options.batchSize ?? 32, after, options.vaultId);
    if (!batch.length) break;
    after = batch.at(-1)!.id;
    const known = batch.map((c) => cached.get(embedder.id, c.content_hash) as Buffer | undefined);
    const missing = batch.filter((_, i) => !known[i]);
    const vectors = missing.length ? await embedChunkTexts(embedder, missing.map((c) => c.text), options.signal, options.background) : [];
    let next = 0;
    storeVectors(
      db,
      embedder.id,
      batch.map((chunk, i) => ({ chunkId: chunk.id, vaultId: chunk.vault_id, contentHash: chunk.content_hash, vector: known[i] ?? vectors[next++]! })),
    );
    progress.done += batch.length;
    progress.reused += batch.length - missing.length;
    progress.embedded += missing.length;
    options.onProgress?.({ ...progress });
  }
  return progress;
}

export interface Neighbour {
  id: number;
  /** cosine distance (1 - cosine similarity): smaller is nearer */
  distance: number;
}

/** Within this many allowed chunks (a filter), `nearestChunks` scores them all exactly instead of scanning bits. */
export const EXACT_WITHIN = 1000;

/**
 * The `k` chunks of a vault nearest to `vector` (cosine distance, smaller is nearer). The bit table yields
 * `k × OVERSAMPLE` candidates by Hamming distance, re-scored by cosine with their float16 vectors. `within`
 * restricts the search to these chunk ids (filters): a small set is scored exactly, a large one prefilters the
 * bit scan. A float table not converted yet (see ensureVectorTable) is scanned exactly, as before.
 */
export function nearestChunks(
  db: Db,
  vaultId: string,
  vector: Float32Array,
  k: number,
  options: { within?: number[]; candidates?: number } = {},
): Neighbour[] {
  const owner = vectorIndexOwner(db);
  if (!owner || k <= 0) return [];
  const within = options.within;
  if (within && !within.length) return [];
  if (owner.layout !== VECTOR_LAYOUT) {
    const rows = within
      ? sql(db, `SELECT rowid AS id, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH ? AND vault_id = ? AND k = ? AND rowid IN (SELECT value FROM json_each(?))`).all(
          toBlob(vector),
          vaultId,
          Math.min(k, MAX_K),
          JSON.stringify(within),
        )
      : sql(db, `SELECT rowid AS id, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH ? AND vault_id = ? AND k = ?`).all(toBlob(vector), vaultId, Math.min(k, MAX_K));
    return rows as Neighbour[];
  }
  if (within && within.length <= EXACT_WITHIN) return rescore(db, vector, within, k);
  const n = Math.min(MAX_K, Math.max(k, options.candidates ?? k * OVERSAMPLE));
  const bits = signBits(vector);
  const candidates =
    (blockScanWorks(db, vaultId) ? blockScan(db, vaultId, bits, n, within && new Set(within)) : undefined) ??
    (
      (within
        ? sql(db, `SELECT rowid FROM ${VECTOR_TABLE} WHERE embedding MATCH vec_bit(?) AND vault_id = ? AND k = ? AND rowid IN (SELECT value FROM json_each(?))`).all(
            bits,
            vaultId,
            n,
            JSON.stringify(within),
          )
        : sql(db, `SELECT rowid FROM ${VECTOR_TABLE} WHERE embedding MATCH vec_bit(?) AND vault_id = ? AND k = ?`).all(bits, vaultId, n)) as { rowid: number }[]
    ).map((c) => c.rowid);
  return rescore(db, vector, candidates, k);
}

/*
 * The Hamming scan in JS. vec0 keeps a partition's vectors in blocks (its shadow tables `<table>_chunks`:
 * validity bitmap and rowids of a block, and `<table>_vector_chunks00`: the block's codes back to back; see
 * ARCHITECTURE.md of sqlite-vec), and its own KNN selects the top k of every block in O(block size × k): ~11 ms
 * for 200 candidates at 50,000 vectors and ~25 ms for 400, against ~2-4 ms to read the blocks and count bits
 * here, whatever the candidate count. Those tables are sqlite-vec's internals, so this path is used only after a self-check per
 * connection (its distances must equal vec0's own KNN on a probe) and any block of an unexpected shape sends
 * the query back to vec0's SQL: a later sqlite-vec with another layout costs speed, never results.
 */
const blockChecks = new WeakMap<Db, boolean>();
// CROSS JOIN: blocks of the partition first, then each block's codes by (real) rowid, which is how vec0 reads them.
const BLOCKS_SQL = `SELECT b.validity, b.rowids, v.vectors FROM ${VECTOR_TABLE}_chunks b
  CROSS JOIN ${VECTOR_TABLE}_vector_chunks00 v ON v._rowid_ = b.chunk_id WHERE b.partition00 = ?`;

/**
 * The vault's blocks, kept for the last few vaults searched until the vector table changes (its tableVersion,
 * bumped by every writer of the table, here or in another process): a search does not copy ~3.5 MB of blocks
 * out of SQLite again after a write elsewhere (a task, a chart), only after vectors were written.
 */
const BLOCK_CACHE_VAULTS = 4;
const blockCache = new WeakMap<Db, Map<string, { version: number; blocks: Block[] }>>();
function vaultBlocks(db: Db, vaultId: string): Block[] {
  let cache = blockCache.get(db);
  if (!cache) blockCache.set(db, (cache = new Map()));
  const version = tableVersion(db, VECTORS_VERSION);
  const hit = cache.get(vaultId);
  cache.delete(vaultId);
  const blocks = hit && hit.version === version ? hit.blocks : (sql(db, BLOCKS_SQL).raw().all(vaultId) as Block[]);
  cache.set(vaultId, { version, blocks });
  if (cache.size > BLOCK_CACHE_VAULTS) cache.delete(cache.keys().next().value!);
  return blocks;
}

/** Whether the JS scan of vec0's blocks gives vec0's own answers on this connection (checked once). */
function blockScanWorks(db: Db, vaultId: string): boolean {
  const known = blockChecks.get(db);
  if (known !== undefined) return known;
  let ok = false;
  try {
    const blocks = sql(db, BLOCKS_SQL).raw().all(vaultId) as Block[];
    const probe = blocks.length ? firstCode(blocks[0]!) : undefined;
    if (!probe) return true; // nothing stored in this vault yet: decide on a vault that has vectors
    const scanned = scanBlocks(db, vaultId, probe);
    const mine = new Map<number, number>();
    for (let i = 0; scanned && i < scanned.count; i++) mine.set(scanned.id(i), scanned.distances[i]!);
    const theirs = sql(db, `SELECT rowid, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH vec_bit(?) AND vault_id = ? AND k = 10`).raw().all(probe, vaultId) as [
      number,
      number,
    ][];
    ok = !!scanned && theirs.length > 0 && theirs.every(([id, d]) => mine.get(id) === d);
  } catch {
    ok = false;
  }
  blockChecks.set(db, ok);
  return ok;
}

/** A vec0 block: validity bitmap, rowids (int64 LE), codes back to back. */
type Block = [Buffer, Buffer, Buffer];

function firstCode([validity, , vectors]: Block): Buffer | undefined {
  const slots = validity.length * 8;
  const bytes = vectors.length / slots;
  for (let i = 0; i < slots; i++) if ((validity[i >> 3]! >> (i & 7)) & 1) return vectors.subarray(i * bytes, (i + 1) * bytes);
  return undefined;
}

const POPCOUNT8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = 0;
  for (let x = i; x; x >>= 1) c += x & 1;
  return c;
});

const aligned32 = (b: Buffer) => (b.byteOffset % 4 === 0 ? b : Buffer.from(b));

/**
 * Hamming distance of `code` to every stored code of the vault (optionally among `allowed` ids only), with
 * a function that gives the id of the i-th distance; undefined when a block does not have the expected shape.
 * Ids are read only for the few that `id()` is asked for (unless `allowed` needs them all).
 */
function scanBlocks(
  db: Db,
  vaultId: string,
  code: Buffer,
  allowed?: Set<number>,
): { distances: Uint16Array; count: number; id: (i: number) => number } | undefined {
  const blocks = vaultBlocks(db, vaultId);
  const bytes = code.length;
  let slotsTotal = 0;
  for (const [validity] of blocks) slotsTotal += validity.length * 8;
  const distances = new Uint16Array(slotsTotal);
  /** position of each distance: block index × 2^16 + slot */
  const where = new Uint32Array(slotsTotal);
  const views: DataView[] = [];
  const words = bytes % 4 === 0 ? bytes / 4 : 0;
  const q = aligned32(code);
  const q32 = words ? new Uint32Array(q.buffer, q.byteOffset, words) : undefined;
  const idAt = (block: number, slot: number) => views[block]!.getUint32(slot * 8, true) + views[block]!.getInt32(slot * 8 + 4, true) * 4294967296; // int64 LE
  let count = 0;
  for (let b = 0; b < blocks.length; b++) {
    const [validity, rowidBlob, vectorBlob] = blocks[b]!;
    const slots = validity.length * 8;
    if (slots > 65536 || rowidBlob.length !== slots * 8 || vectorBlob.length !== slots * bytes) return undefined;
    views.push(new DataView(rowidBlob.buffer, rowidBlob.byteOffset, rowidBlob.byteLength));
    const v = aligned32(vectorBlob);
    const v32 = q32 ? new Uint32Array(v.buffer, v.byteOffset, v.length / 4) : undefined;
    for (let i = 0; i < slots; i++) {
      if (!((validity[i >> 3]! >> (i & 7)) & 1)) continue;
      if (allowed && !allowed.has(idAt(b, i))) continue;
      let d = 0;
      if (v32 && q32) {
        for (let w = 0, o = i * words; w < words; w++) {
          let x = v32[o + w]! ^ q32[w]!;
          x -= (x >>> 1) & 0x55555555;
          x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
          d += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
        }
      } else {
        for (let k = 0, o = i * bytes; k < bytes; k++) d += POPCOUNT8[vectorBlob[o + k]! ^ code[k]!]!;
      }
      where[count] = b * 65536 + i;
      distances[count++] = d;
    }
  }
  return { distances, count, id: (i) => idAt(Math.floor(where[i]! / 65536), where[i]! % 65536) };
}

/** The `n` ids of the vault nearest to `code` by Hamming distance (ties in block order); undefined: use vec0's SQL. */
function blockScan(db: Db, vaultId: string, code: Buffer, n: number, allowed?: Set<number>): number[] | undefined {
  const scanned = scanBlocks(db, vaultId, code, allowed);
  if (!scanned) return undefined;
  const { distances, count } = scanned;
  // Counting selection: distances are small integers (0 … bits).
  const histogram = new Uint32Array(code.length * 8 + 2);
  for (let i = 0; i < count; i++) histogram[distances[i]!]!++;
  let cut = 0;
  let below = 0;
  while (cut < histogram.length - 1 && below + histogram[cut]! < n) below += histogram[cut++]!;
  let atCut = n - below;
  const picked: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const d = distances[i]!;
    if (d < cut || (d === cut && atCut-- > 0)) picked.push([d, scanned.id(i)]);
  }
  return picked.sort((a, b) => a[0] - b[0]).map(([, id]) => id);
}

/**
 * Cosine distances of these chunks to `vector`, from their float16 vectors (by chunk id: a chunk deleted
 * meanwhile has none and is left out); the `k` nearest.
 */
export function rescore(db: Db, vector: Float32Array, ids: number[], k: number): Neighbour[] {
  if (!ids.length) return [];
  const rows = sql(db, `SELECT f.chunk_id, f.vector FROM json_each(?) j JOIN ${FLOATS} f ON f.chunk_id = j.value`)
    .raw()
    .all(JSON.stringify(ids)) as [number, Buffer][];
  let qq = 0;
  for (let d = 0; d < vector.length; d++) qq += vector[d]! * vector[d]!;
  const table = halfTable();
  const out: Neighbour[] = [];
  for (const [id, blob] of rows) {
    if (blob.length !== vector.length * 2) continue;
    const b = blob.byteOffset % 2 === 0 ? blob : Buffer.from(blob);
    const h = new Uint16Array(b.buffer, b.byteOffset, vector.length); // little-endian hosts (x64, arm64)
    let dot = 0;
    let vv = 0;
    for (let d = 0; d < h.length; d++) {
      const x = table[h[d]!]!;
      dot += x * vector[d]!;
      vv += x * x;
    }
    out.push({ id, distance: 1 - dot / (Math.sqrt(qq * vv) || 1) });
  }
  return out.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
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

/**
 * How many of a vault's chunks have vectors from this embedder (all, some, or none yet): two rows that
 * migration 7's triggers keep current with every chunk and vector written or removed, so no write (of this
 * or anything else) makes a search recount the vault.
 */
export function vectorCoverage(db: Db, vaultId: string, embedderId: string): { chunks: number; withVectors: number } {
  return sql(
    db,
    `SELECT coalesce(sum(n) FILTER (WHERE embedder = ''), 0) AS chunks, coalesce(sum(n) FILTER (WHERE embedder = @embedder AND @embedder <> ''), 0) AS withVectors
     FROM search_counts WHERE vault_id = @vault AND embedder IN ('', @embedder)`,
  ).get({ vault: vaultId, embedder: embedderId }) as { chunks: number; withVectors: number };
}
