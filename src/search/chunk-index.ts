/**
 * Retrieval chunks of a meeting, kept in the store: built from its turns when a meeting is imported or
 * synced, and indexed for words at once (the vault's FTS5 table, by trigger). Vectors follow in the background, and only
 * for chunks whose text (content hash) has no vector yet.
 */
import { createHash } from 'node:crypto';
import { json, limitParam, sql, type Db } from '../store/db.js';
import { turnsOf } from '../store/meetings.js';
import { CHUNK_MAX_CHARS, CHUNK_TARGET_CHARS, chunkTurns, type Chunk } from './chunking.js';
import { ensureWordIndex, vaultToken } from './word-index.js';

export const contentHash = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Retrieval chunk sizes, chosen by measurement (`npm run bench:search`, docs/search.md): the reading size of
 * get_transcript did better than 450-character chunks on both labelled sets (the vectors cover a whole
 * chunk through window averaging, see vectors.ts). Env overrides exist for the bench.
 */
export const RETRIEVAL_CHUNK = {
  target: Number(process.env.VAULT_TOOLS_CHUNK_TARGET ?? CHUNK_TARGET_CHARS),
  max: Number(process.env.VAULT_TOOLS_CHUNK_MAX ?? CHUNK_MAX_CHARS),
};

/** Rebuilds the chunks of one meeting from its stored turns; call inside the transaction that wrote them. */
export function indexMeetingChunks(db: Db, vaultId: string, meetingId: string): number {
  const chunks = chunkTurns(
    turnsOf(db, vaultId, meetingId).map((t) => ({ index: t.turn_index, speaker: t.speaker, text: t.text, atSeconds: t.at_seconds })),
    RETRIEVAL_CHUNK.target,
    RETRIEVAL_CHUNK.max,
  );
  return writeMeetingChunks(db, vaultId, meetingId, chunks);
}

/** A chunk as stored: built here by chunkTurns, or pulled as it is by sync. */
export type StoredChunk = Chunk;

/**
 * Replaces a meeting's chunks with these (built here, or pulled as they are from upstream by sync); the word
 * index follows by trigger, vectors come back from the embedding cache for unchanged text.
 */
export function writeMeetingChunks(db: Db, vaultId: string, meetingId: string, chunks: readonly StoredChunk[]): number {
  ensureWordIndex(db, vaultId); // its triggers then index these rows (a vault's first chunks create it)
  sql(db, 'DELETE FROM transcript_chunks WHERE vault_id = ? AND meeting_id = ?').run(vaultId, meetingId);
  const insert = sql(
    db,
    `INSERT INTO transcript_chunks (vault_id, meeting_id, chunk_index, turn_start, turn_end, speakers_json, start_seconds, text, content_hash, vault_token)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const token = vaultToken(vaultId);
  for (const c of chunks) {
    insert.run(vaultId, meetingId, c.index, c.turnStart, c.turnEnd, json.write(c.speakers), c.startSeconds, c.text, contentHash(c.text), token);
  }
  return chunks.length;
}

/** A page of a meeting's stored chunks, in order, with the meeting's chunk count. */
export function meetingChunks(db: Db, vaultId: string, meetingId: string, offset: number, limit: number) {
  const rows = sql(
    db,
    `SELECT chunk_index, speakers_json, text, turn_start, turn_end, start_seconds FROM transcript_chunks
     WHERE vault_id = ? AND meeting_id = ? ORDER BY chunk_index LIMIT ${limitParam('?')} OFFSET ${limitParam('?')}`,
  ).all(vaultId, meetingId, limit, offset) as { chunk_index: number; speakers_json: string; text: string; turn_start: number; turn_end: number; start_seconds: number | null }[];
  const total = sql(db, 'SELECT count(*) FROM transcript_chunks WHERE vault_id = ? AND meeting_id = ?').pluck().get(vaultId, meetingId) as number;
  return {
    total,
    chunks: rows.map((r) => ({
      index: r.chunk_index,
      speakers: json.read(r.speakers_json),
      text: r.text,
      turnStart: r.turn_start,
      turnEnd: r.turn_end,
      startSeconds: r.start_seconds,
    })),
  };
}
