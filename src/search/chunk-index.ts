/**
 * Retrieval chunks of a meeting, kept in the store: built from its turns when a meeting is imported or
 * synced, and indexed for words at once (the vault's FTS5 table, by trigger). Vectors follow in the background, and only
 * for chunks whose text (content hash) has no vector yet.
 */
import { cachedRead, json, limitParam, sql, type Db } from '../store/db.js';
import { normalize } from '../store/text.js';
import { turnsOf } from '../store/meetings.js';
import { contentHash } from '../store/embedding-text.js';
import { CHUNK_MAX_CHARS, CHUNK_TARGET_CHARS, chunkTurns, type Chunk } from './chunking.js';
import { ensureWordIndex, vaultToken } from './word-index.js';

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
    turnsOf(db, vaultId, meetingId).map((t) => ({
      index: t.turn_index,
      speaker: t.speaker,
      text: t.text,
      atSeconds: t.at_seconds,
    })),
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
  return writeChunksOfMeetings(db, vaultId, [{ meetingId, chunks }]);
}

/**
 * Replaces the chunks of several meetings, all inserted by ONE statement. FTS5 writes the words it holds in
 * memory to disk as a new segment at every savepoint, and every statement with triggers or foreign keys opens
 * one: a statement per chunk wrote a segment per chunk, then merged them (10,000 chunks of a sync: ~1.1 s,
 * against ~0.45 s in statements of 500, measured on this machine). Rows go in as one JSON array, in order,
 * so chunk ids are assigned as one insert per chunk would assign them.
 */
export function writeChunksOfMeetings(
  db: Db,
  vaultId: string,
  meetings: readonly { meetingId: string; chunks: readonly StoredChunk[] }[],
): number {
  ensureWordIndex(db, vaultId); // its triggers then index these rows (a vault's first chunks create it)
  const remove = sql(db, 'DELETE FROM transcript_chunks WHERE vault_id = ? AND meeting_id = ?');
  for (const m of meetings) remove.run(vaultId, m.meetingId);
  // A lone surrogate would reach SQLite through the JSON as its three CESU-8 bytes (read back as three U+FFFD),
  // where a bound parameter stores one U+FFFD: the text is made well-formed first, so both paths store the same.
  const rows = meetings.flatMap(({ meetingId, chunks }) =>
    chunks.map((c) => {
      const text = (c.text as string & { toWellFormed(): string }).toWellFormed(); // Node 20+; lib ES2023 lacks its type
      return [
        meetingId,
        c.index,
        c.turnStart,
        c.turnEnd,
        json.write(c.speakers),
        c.startSeconds,
        text,
        contentHash(text),
      ];
    }),
  );
  if (!rows.length) return 0;
  sql(
    db,
    `INSERT INTO transcript_chunks (vault_id, meeting_id, chunk_index, turn_start, turn_end, speakers_json, start_seconds, text, content_hash, vault_token)
     SELECT ?, r->>0, r->>1, r->>2, r->>3, r->>4, r->>5, r->>6, r->>7, ? FROM (SELECT value AS r FROM json_each(?) ORDER BY key)`,
  ).run(vaultId, vaultToken(vaultId), JSON.stringify(rows));
  return rows.length;
}

/** A page of a meeting's stored chunks, in order, with the meeting's chunk count. */
export function meetingChunks(db: Db, vaultId: string, meetingId: string, offset: number, limit: number) {
  const rows = sql(
    db,
    `SELECT chunk_index, speakers_json, text, turn_start, turn_end, start_seconds FROM transcript_chunks
     WHERE vault_id = ? AND meeting_id = ? ORDER BY chunk_index LIMIT ${limitParam('?')} OFFSET ${limitParam('?')}`,
  ).all(vaultId, meetingId, limit, offset) as {
    chunk_index: number;
    speakers_json: string;
    text: string;
    turn_start: number;
    turn_end: number;
    start_seconds: number | null;
  }[];
  const total = sql(db, 'SELECT count(*) FROM transcript_chunks WHERE vault_id = ? AND meeting_id = ?')
    .pluck()
    .get(vaultId, meetingId) as number;
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

export interface SearchFilters {
  meetingId?: string;
  speaker?: string;
  /** ISO datetimes bounding the meeting's start */
  after?: string;
  before?: string;
}

export const isFiltered = (f: SearchFilters) => Boolean(f.meetingId || f.speaker || f.after || f.before);

/**
 * The speaker lists (`speakers_json` values) of the vault's chunks in which one speaker's name contains `speaker`,
 * compared as every other name match compares names (normalize: case, accents and punctuation ignored, so "Jose
 * Ibanez" finds "José Ibáñez"). A vault has few distinct lists (the combinations of people who talk in one
 * chunk), read once per store version from the filter index; chunks are then picked by list in that index. On
 * 50,000 chunks: the lists ~7 ms with 2 distinct lists, ~32 ms with 1,800 (synthetic); the pick as fast as the
 * case-insensitive LIKE it replaces (~30 ms both, measured on a shared 2-core machine).
 */
function speakerLists(db: Db, vaultId: string, speaker: string): string[] {
  const lists = cachedRead(db, `speakerLists:${vaultId}`, () =>
    (
      sql(db, 'SELECT DISTINCT speakers_json FROM transcript_chunks WHERE vault_id = ?')
        .pluck()
        .all(vaultId) as string[]
    ).map((text) => ({
      text,
      names: json.read<string[]>(text).map(normalize),
    })),
  );
  const wanted = normalize(speaker);
  if (!wanted) return []; // only punctuation: no name holds it
  return lists.filter((l) => l.names.some((name) => name.includes(wanted))).map((l) => l.text);
}

/**
 * The ids of the vault's chunks that pass the filters, computed once per search and used by both halves.
 * Every filter reads indexes only: chunks by (vault_id, meeting_id, speakers_json) (migration 4), which gives a
 * meeting's chunks and the speakers a speaker filter tests, and date bounds through the vault's meetings.
 * Over 50,000 chunks: meeting or dates ~1 ms, speaker ~10 ms (30-45 ms when it read every chunk row).
 */
export function filteredChunks(db: Db, vaultId: string, filters: SearchFilters): Set<number> {
  const where = ['c.vault_id = @vault'];
  const params: Record<string, string> = { vault: vaultId };
  if (filters.meetingId) {
    where.push('c.meeting_id = @meeting');
    params.meeting = filters.meetingId;
  }
  if (filters.speaker) {
    where.push('c.speakers_json IN (SELECT value FROM json_each(@speakerLists))');
    params.speakerLists = JSON.stringify(speakerLists(db, vaultId, filters.speaker));
  }
  if (filters.after) {
    where.push('m.started_at >= @after');
    params.after = filters.after;
  }
  if (filters.before) {
    where.push('m.started_at < @before');
    params.before = filters.before;
  }
  const dates = Boolean(filters.after || filters.before);
  const from = !dates
    ? 'transcript_chunks c'
    : filters.meetingId || filters.speaker
      ? 'transcript_chunks c JOIN meetings m ON m.vault_id = c.vault_id AND m.id = c.meeting_id'
      : // dates alone: the vault's meetings in range first, then their chunks by index
        'meetings m CROSS JOIN transcript_chunks c ON c.vault_id = m.vault_id AND c.meeting_id = m.id';
  return new Set(
    sql(db, `SELECT c.id FROM ${from} WHERE ${where.join(' AND ')}`)
      .pluck()
      .all(params) as number[],
  );
}

export interface ChunkRow {
  id: number;
  meeting_id: string;
  meeting_name: string;
  started_at: string;
  turn_start: number;
  turn_end: number;
  speakers_json: string;
  start_seconds: number | null;
  text: string;
}

export function chunkRows(db: Db, ids: number[]): Map<number, ChunkRow & { speakers: string[] }> {
  const rows = sql(
    db,
    `SELECT c.id, c.meeting_id, m.name AS meeting_name, m.started_at, c.turn_start, c.turn_end, c.speakers_json, c.start_seconds, c.text
     FROM transcript_chunks c JOIN meetings m ON m.vault_id = c.vault_id AND m.id = c.meeting_id
     WHERE c.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids)) as ChunkRow[];
  return new Map(rows.map((r) => [r.id, { ...r, speakers: json.read(r.speakers_json) }]));
}

/** Where chunks are: their meeting and turn range, by id (what merging overlapping excerpts needs). */
export function chunkSpans(
  db: Db,
  ids: number[],
): Map<number, { meetingId: string; turnStart: number; turnEnd: number }> {
  const rows = sql(
    db,
    `SELECT id, meeting_id AS meetingId, turn_start AS turnStart, turn_end AS turnEnd FROM transcript_chunks WHERE id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids)) as { id: number; meetingId: string; turnStart: number; turnEnd: number }[];
  return new Map(rows.map(({ id, ...span }) => [id, span]));
}
