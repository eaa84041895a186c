/** Recorded meetings, their transcript turns and the entities extracted from them. */
import { json, sql, type Db } from './db.js';

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
export function meetingsCreatedSince(db: Db, vaultId: string, since: string, limit: number, after?: { k: string; id: string }): MeetingRow[] {
  const next = after ? ' AND (started_at, id) > (@k, @id)' : '';
  return sql(db, `SELECT * FROM meetings WHERE vault_id = @vault AND created_at > @since${next} ORDER BY started_at, id LIMIT @limit`).all({ vault: vaultId, since, limit, ...(after ?? {}) }) as MeetingRow[];
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

/** Entities extracted from a meeting, with how often each was mentioned there. */
export function entitiesOfMeeting(db: Db, vaultId: string, meetingId: string) {
  return sql(
    db,
    `SELECT e.id, e.name, e.type, m.count AS mentions FROM entity_mentions m
     JOIN entities e ON e.vault_id = m.vault_id AND e.id = m.entity_id
     WHERE m.vault_id = ? AND m.meeting_id = ? ORDER BY m.count DESC, e.name`,
  ).all(vaultId, meetingId) as { id: string; name: string; type: 'person'; mentions: number }[];
}
