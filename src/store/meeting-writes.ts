/**
 * Writes of the meeting family (a recorded meeting and its transcript). Kept apart from meetings.ts, which
 * holds the family's reads, while that file is being reworked elsewhere.
 */
import { json, sql, type Db } from './db.js';

export function insertMeeting(
  db: Db,
  vaultId: string,
  m: { id: string; name: string; startedAt: string; durationMinutes: number | null; attendees: string[]; extractionStatus: string; notesMd: string; createdAt: string },
): void {
  sql(
    db,
    `INSERT INTO meetings (vault_id, id, name, started_at, duration_minutes, attendees_json, extraction_status, notes_md, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(vaultId, m.id, m.name, m.startedAt, m.durationMinutes, json.write(m.attendees), m.extractionStatus, m.notesMd, m.createdAt);
}

/** A meeting's transcript turns, numbered from 0 in the order given. */
export function insertTranscript(db: Db, vaultId: string, meetingId: string, turns: { speaker: string; text: string; at: number | null }[]): void {
  const turn = sql(db, 'INSERT INTO transcript_turns (vault_id, meeting_id, turn_index, speaker, text, at_seconds) VALUES (?, ?, ?, ?, ?, ?)');
  turns.forEach((t, i) => turn.run(vaultId, meetingId, i, t.speaker, t.text, t.at));
}
