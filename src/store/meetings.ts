/** Recorded meetings, their transcript turns and the entities extracted from them. */
import { json, limitParam, sql, type Db } from './db.js';

export interface MeetingRow {
  id: string;
  name: string;
  started_at: string;
  duration_minutes: number | null;
  attendees_json: string;
  extraction_status: string;
  notes_md: string;
  created_at: string;
}

export const toMeetingSummary = (r: MeetingRow) => ({
  id: r.id,
  name: r.name,
  date: r.started_at,
  durationMinutes: r.duration_minutes,
  attendees: json.read(r.attendees_json),
  extractionStatus: r.extraction_status as 'extracted',
  createdAt: r.created_at,
});

export function listMeetingRows(db: Db, vaultId: string): MeetingRow[] {
  return sql(db, 'SELECT * FROM meetings WHERE vault_id = ? ORDER BY started_at DESC, id').all(vaultId) as MeetingRow[];
}

export function getMeetingRow(db: Db, vaultId: string, id: string): MeetingRow | undefined {
  return sql(db, 'SELECT * FROM meetings WHERE vault_id = ? AND id = ?').get(vaultId, id) as MeetingRow | undefined;
}

/** A page of the meetings recorded after a moment, in the order they took place; `after` ends the previous page. */
export function meetingsCreatedSince(
  db: Db,
  vaultId: string,
  since: string,
  limit: number,
  after?: { k: string; id: string },
): MeetingRow[] {
  const next = after ? ' AND (started_at, id) > (@k, @id)' : '';
  return sql(
    db,
    `SELECT * FROM meetings WHERE vault_id = @vault AND created_at > @since${next} ORDER BY started_at, id LIMIT @limit`,
  ).all({ vault: vaultId, since, limit, ...(after ?? {}) }) as MeetingRow[];
}

export const countMeetingsCreatedSince = (db: Db, vaultId: string, since: string) =>
  sql(db, 'SELECT count(*) FROM meetings WHERE vault_id = ? AND created_at > ?').pluck().get(vaultId, since) as number;

export function meetingCounts(db: Db, vaultId: string): { total: number; extracted: number } {
  return sql(
    db,
    "SELECT count(*) AS total, coalesce(sum(extraction_status = 'extracted'), 0) AS extracted FROM meetings WHERE vault_id = ?",
  ).get(vaultId) as { total: number; extracted: number };
}

export interface TurnRow {
  turn_index: number;
  speaker: string;
  text: string;
  at_seconds: number | null;
}

export function turnsOf(db: Db, vaultId: string, meetingId: string): TurnRow[] {
  return sql(
    db,
    'SELECT turn_index, speaker, text, at_seconds FROM transcript_turns WHERE vault_id = ? AND meeting_id = ? ORDER BY turn_index',
  ).all(vaultId, meetingId) as TurnRow[];
}

/** How many transcript turns a meeting has. */
export const countTurns = (db: Db, vaultId: string, meetingId: string): number =>
  sql(db, 'SELECT count(*) FROM transcript_turns WHERE vault_id = ? AND meeting_id = ?')
    .pluck()
    .get(vaultId, meetingId) as number;

/** A meeting's turns `from` to `to` (both included), in order. */
export function turnsBetween(db: Db, vaultId: string, meetingId: string, from: number, to: number): TurnRow[] {
  return sql(
    db,
    'SELECT turn_index, speaker, text, at_seconds FROM transcript_turns WHERE vault_id = ? AND meeting_id = ? AND turn_index BETWEEN ? AND ? ORDER BY turn_index',
  ).all(vaultId, meetingId, from, to) as TurnRow[];
}

/** Meetings held after `after` (every one when null) whose transcripts are not extracted yet, oldest first. */
export function unextractedMeetingsAfter(db: Db, vaultId: string, after: string | null): MeetingRow[] {
  return sql(
    db,
    "SELECT * FROM meetings WHERE vault_id = ? AND extraction_status <> 'extracted' AND started_at > ? ORDER BY started_at, id",
  ).all(vaultId, after ?? '') as MeetingRow[];
}

/** Entities extracted from a meeting, with how often each was mentioned there. */
export function entitiesOfMeeting(db: Db, vaultId: string, meetingId: string) {
  return sql(
    db,
    `SELECT e.id, e.name, e.type, m.count AS mentions FROM entity_mentions m
     JOIN entities e ON e.vault_id = m.vault_id AND e.id = m.entity_id
     WHERE m.vault_id = ? AND m.meeting_id = ? ORDER BY m.count DESC, e.name`,
  ).all(vaultId, meetingId) as { id: string; name: string; type: 'person'; mentions: number }[];
}

export interface MeetingRecord {
  id: string;
  name: string;
  startedAt: string;
  durationMinutes: number | null;
  attendees: string[];
  extractionStatus: string;
  createdAt: string;
}

/** Creates or updates a meeting's metadata; its notes, turns and mentions stay (inside the caller's transaction). */
export function upsertMeeting(db: Db, vaultId: string, m: MeetingRecord): void {
  sql(
    db,
    `INSERT INTO meetings (vault_id, id, name, started_at, duration_minutes, attendees_json, extraction_status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (vault_id, id) DO UPDATE SET name = excluded.name, started_at = excluded.started_at, duration_minutes = excluded.duration_minutes,
       attendees_json = excluded.attendees_json, extraction_status = excluded.extraction_status, created_at = excluded.created_at`,
  ).run(
    vaultId,
    m.id,
    m.name,
    m.startedAt,
    m.durationMinutes,
    json.write(m.attendees),
    m.extractionStatus,
    m.createdAt,
  );
}

export function meetingIds(db: Db, vaultId: string): string[] {
  return sql(db, 'SELECT id FROM meetings WHERE vault_id = ?').pluck().all(vaultId) as string[];
}

export function meetingExists(db: Db, vaultId: string, id: string): boolean {
  return sql(db, 'SELECT 1 FROM meetings WHERE vault_id = ? AND id = ?').pluck().get(vaultId, id) !== undefined;
}

/** Removes a meeting; its turns, chunks, evidence and mentions cascade. */
export function deleteMeeting(db: Db, vaultId: string, id: string): void {
  sql(db, 'DELETE FROM meetings WHERE vault_id = ? AND id = ?').run(vaultId, id);
}

export function setMeetingNotes(db: Db, vaultId: string, id: string, notesMd: string): void {
  sql(db, 'UPDATE meetings SET notes_md = ? WHERE vault_id = ? AND id = ?').run(notesMd, vaultId, id);
}

/** The entities mentioned in a meeting become these; one not in the vault is left out. */
export function replaceMeetingMentions(
  db: Db,
  vaultId: string,
  meetingId: string,
  mentions: readonly { entityId: string; count: number }[],
): void {
  sql(db, 'DELETE FROM entity_mentions WHERE vault_id = ? AND meeting_id = ?').run(vaultId, meetingId);
  const exists = sql(db, 'SELECT 1 FROM entities WHERE vault_id = ? AND id = ?').pluck();
  const insert = sql(
    db,
    'INSERT OR REPLACE INTO entity_mentions (vault_id, entity_id, meeting_id, count) VALUES (?, ?, ?, ?)',
  );
  for (const m of mentions) if (exists.get(vaultId, m.entityId)) insert.run(vaultId, m.entityId, meetingId, m.count);
}

/** A meeting's transcript turns become these. */
export function replaceMeetingTurns(
  db: Db,
  vaultId: string,
  meetingId: string,
  turns: Iterable<{ index: number; speaker: string; text: string; atSeconds: number | null }>,
): void {
  sql(db, 'DELETE FROM transcript_turns WHERE vault_id = ? AND meeting_id = ?').run(vaultId, meetingId);
  const insert = sql(
    db,
    'INSERT OR REPLACE INTO transcript_turns (vault_id, meeting_id, turn_index, speaker, text, at_seconds) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const t of turns) insert.run(vaultId, meetingId, t.index, t.speaker, t.text, t.atSeconds);
}

/** Meetings per day (UTC date of their start), oldest first: what a chart of meetings over time needs, in one grouped read. */
export function meetingsPerDay(db: Db, vaultId: string): { day: string; n: number }[] {
  return sql(
    db,
    'SELECT substr(started_at, 1, 10) AS day, count(*) AS n FROM meetings WHERE vault_id = ? GROUP BY day ORDER BY day',
  ).all(vaultId) as { day: string; n: number }[];
}

/** The `limit` latest meetings (name, start, attendees), latest first: a deck's appendix of sources. */
export function latestMeetings(
  db: Db,
  vaultId: string,
  limit: number,
): { id: string; name: string; startedAt: string; attendees: number }[] {
  return sql(
    db,
    `SELECT id, name, started_at AS startedAt, json_array_length(attendees_json) AS attendees FROM meetings WHERE vault_id = ? ORDER BY started_at DESC, id LIMIT ${limitParam('?')}`,
  ).all(vaultId, limit) as { id: string; name: string; startedAt: string; attendees: number }[];
}
