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
import {
  bumpTableVersion,
  limitParam,
  sql,
  hasVectorExtension,
  tableVersion,
  writeTransaction,
  type Db,
} from '../store/db.js';
import { firstCode, nearestScanned, scanBlocks, type Block } from './hamming-scan.js';
import { bitDims, floats, halfBlob, halfTable, signBits, toBlob } from './vector-codes.js';

export const VECTOR_TABLE = 'chunk_vectors';
/** Float16 vectors by chunk id (migration 4), for re-scoring: one rowid lookup per candidate. */
export const FLOATS = 'chunk_vector_floats';
const SETTING = 'vector_index';
/** The tableVersion every writer of the vector table bumps (the block cache's key). */
export const VECTORS_VERSION = 'vectors';
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

export interface VectorIndexOwner {
  embedder: string;
  dims: number;
  /** VECTOR_LAYOUT, or absent for a float table not converted yet. */
  layout?: string;
}

export function vectorIndexOwner(db: Db): VectorIndexOwner | undefined {
  const raw = sql(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(SETTING) as string | undefined;
  return raw ? (JSON.parse(raw) as VectorIndexOwner) : undefined;
}

function setOwner(db: Db, owner: VectorIndexOwner): void {
  sql(db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    SETTING,
    JSON.stringify(owner),
  );
}

const createTable = (db: Db, dims: number) =>
  db.exec(
    `CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(vault_id text partition key, embedding bit[${bitDims(dims)}])`,
  );

/**
 * The vector table's statement, when `sql` is one this module writes (bits) or wrote (floats, before the
 * bit layout): restore's schema check makes the same table to compare a backup's with.
 */
export function vectorTableSchema(name: string, sql: string | null): string | undefined {
  if (name !== VECTOR_TABLE || !sql) return undefined;
  const forms = [
    new RegExp(
      `^CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0\\(vault_id text partition key, embedding bit\\[\\d{1,5}\\]\\)$`,
    ),
    new RegExp(
      `^CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0\\(vault_id text partition key, embedding float\\[\\d{1,5}\\] distance_metric=cosine\\)$`,
    ),
  ];
  return forms.some((f) => f.test(sql)) ? sql : undefined;
}

/**
 * Makes the vector table belong to this embedder; a different embedder (or dims) starts it afresh, and a float
 * table of this embedder (a store from before the bit layout) is converted without embedding anything again.
 */
export function ensureVectorTable(db: Db, embedder: { id: string; dims: number }): void {
  if (!hasVectorExtension(db))
    throw new Error('sqlite-vec is not available on this platform; search runs on words alone');
  const owner = vectorIndexOwner(db);
  const exists = sql(db, 'SELECT 1 FROM sqlite_master WHERE name = ?').get(VECTOR_TABLE) !== undefined;
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
      ? sql(
          db,
          `SELECT rowid AS id, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH ? AND vault_id = ? AND k = ? AND rowid IN (SELECT value FROM json_each(?))`,
        ).all(toBlob(vector), vaultId, Math.min(k, MAX_K), JSON.stringify(within))
      : sql(
          db,
          `SELECT rowid AS id, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH ? AND vault_id = ? AND k = ?`,
        ).all(toBlob(vector), vaultId, Math.min(k, MAX_K));
    return rows as Neighbour[];
  }
  if (within && within.length <= EXACT_WITHIN) return rescore(db, vector, within, k);
  const n = Math.min(MAX_K, Math.max(k, options.candidates ?? k * OVERSAMPLE));
  const bits = signBits(vector);
  const candidates =
    (blockScanWorks(db, vaultId) ? blockScan(db, vaultId, bits, n, within && new Set(within)) : undefined) ??
    (
      (within
        ? sql(
            db,
            `SELECT rowid FROM ${VECTOR_TABLE} WHERE embedding MATCH vec_bit(?) AND vault_id = ? AND k = ? AND rowid IN (SELECT value FROM json_each(?))`,
          ).all(bits, vaultId, n, JSON.stringify(within))
        : sql(db, `SELECT rowid FROM ${VECTOR_TABLE} WHERE embedding MATCH vec_bit(?) AND vault_id = ? AND k = ?`).all(
            bits,
            vaultId,
            n,
          )) as { rowid: number }[]
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
/** The `n` ids of the vault nearest to `code` by Hamming distance (ties in block order); undefined: use vec0's SQL. */
function blockScan(db: Db, vaultId: string, code: Buffer, n: number, allowed?: Set<number>): number[] | undefined {
  const scanned = scanBlocks(vaultBlocks(db, vaultId), code, allowed);
  return scanned && nearestScanned(scanned, n, code.length * 8);
}

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
    const scanned = scanBlocks(vaultBlocks(db, vaultId), probe);
    const mine = new Map<number, number>();
    for (let i = 0; scanned && i < scanned.count; i++) mine.set(scanned.id(i), scanned.distances[i]!);
    const theirs = sql(
      db,
      `SELECT rowid, distance FROM ${VECTOR_TABLE} WHERE embedding MATCH vec_bit(?) AND vault_id = ? AND k = 10`,
    )
      .raw()
      .all(probe, vaultId) as [number, number][];
    ok = !!scanned && theirs.length > 0 && theirs.every(([id, d]) => mine.get(id) === d);
  } catch {
    ok = false;
  }
  blockChecks.set(db, ok);
  return ok;
}

/** The float16 rows of these chunks that hold `dims` values, by chunk id (a chunk deleted meanwhile has none). */
function halfRows(db: Db, ids: number[], dims: number): [number, Uint16Array][] {
  if (!ids.length) return [];
  const rows = sql(db, `SELECT f.chunk_id, f.vector FROM json_each(?) j JOIN ${FLOATS} f ON f.chunk_id = j.value`)
    .raw()
    .all(JSON.stringify(ids)) as [number, Buffer][];
  return rows
    .filter(([, blob]) => blob.length === dims * 2)
    .map(([id, blob]) => {
      const b = blob.byteOffset % 2 === 0 ? blob : Buffer.from(blob);
      return [id, new Uint16Array(b.buffer, b.byteOffset, dims)]; // little-endian hosts (x64, arm64)
    });
}

/**
 * Cosine distances of these chunks to `vector`, from their float16 vectors (by chunk id: a chunk deleted
 * meanwhile has none and is left out); the `k` nearest.
 */
export function rescore(db: Db, vector: Float32Array, ids: number[], k: number): Neighbour[] {
  let qq = 0;
  for (let d = 0; d < vector.length; d++) qq += vector[d]! * vector[d]!;
  const table = halfTable();
  const out: Neighbour[] = [];
  for (const [id, h] of halfRows(db, ids, vector.length)) {
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

/** The stored vectors of these chunks (float16 widened), in the order given; a chunk without one is left out. */
export function storedVectors(db: Db, ids: number[], dims: number): Float32Array[] {
  const table = halfTable();
  const byId = new Map(halfRows(db, ids, dims));
  return ids.flatMap((id) => {
    const h = byId.get(id);
    return h ? [Float32Array.from(h, (x) => table[x]!)] : [];
  });
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
