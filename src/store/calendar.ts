/** Calendar events (booked), as opposed to recorded meetings (what happened). */
import { json, sql, type Db } from './db.js';

interface EventRow {
  id: string;
  title: string;
  start_at: string;
  end_at: string;
  attendees_json: string;
  video_link: string | null;
  description: string | null;
  meeting_id: string | null;
}

const toEvent = (r: EventRow, now: Date) => ({
  id: r.id,
  title: r.title,
  start: r.start_at,
  end: r.end_at,
  durationMinutes: Math.round((Date.parse(r.end_at) - Date.parse(r.start_at)) / 60_000),
  happened: Date.parse(r.end_at) <= now.getTime(),
  attendees: json.read(r.attendees_json),
  videoLink: r.video_link,
  description: r.description,
  meetingId: r.meeting_id,
});

/** Events starting at or after `from`, in time order. */
export function eventsFrom(db: Db, vaultId: string, from: string, now: Date) {
  const rows = sql(db, 'SELECT * FROM calendar_events WHERE vault_id = ? AND start_at >= ? ORDER BY start_at, id').all(
    vaultId,
    from,
  ) as EventRow[];
  return rows.map((r) => toEvent(r, now));
}

/** Events starting at or after `from` and before `to`, in time order. */
export function eventsBetween(db: Db, vaultId: string, from: string, to: string, now: Date) {
  const rows = sql(
    db,
    'SELECT * FROM calendar_events WHERE vault_id = ? AND start_at >= ? AND start_at < ? ORDER BY start_at, id',
  ).all(vaultId, from, to) as EventRow[];
  return rows.map((r) => toEvent(r, now));
}

export function getEvent(db: Db, vaultId: string, id: string, now: Date) {
  const row = sql(db, 'SELECT * FROM calendar_events WHERE vault_id = ? AND id = ?').get(vaultId, id) as
    | EventRow
    | undefined;
  return row && toEvent(row, now);
}

/** A booked event; `meetingId` links it to the recorded meeting it became. */
export function insertEvent(
  db: Db,
  vaultId: string,
  e: {
    id: string;
    title: string;
    startAt: string;
    endAt: string;
    attendees: string[];
    videoLink: string;
    description: string | null;
    meetingId?: string | null;
    createdAt: string;
  },
): void {
  sql(
    db,
    `INSERT INTO calendar_events (vault_id, id, title, start_at, end_at, attendees_json, video_link, description, meeting_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    vaultId,
    e.id,
    e.title,
    e.startAt,
    e.endAt,
    json.write(e.attendees),
    e.videoLink,
    e.description,
    e.meetingId ?? null,
    e.createdAt,
  );
}

export interface UpstreamEvent {
  id: string;
  title: string;
  start: string;
  end: string;
  attendees: string[];
  videoLink: string | null;
  description: string | null;
  meetingId: string | null;
  createdAt: string;
}

/**
 * Upstream's events from `windowFrom` on replace the local ones there, except those created here and not
 * pushed yet (`kept`); older events stay as they are. Inside the caller's transaction.
 */
export function replaceEventsFromUpstream(
  db: Db,
  vaultId: string,
  windowFrom: string,
  kept: ReadonlySet<string>,
  events: readonly UpstreamEvent[],
): void {
  sql(
    db,
    'DELETE FROM calendar_events WHERE vault_id = ? AND start_at >= ? AND id NOT IN (SELECT value FROM json_each(?))',
  ).run(vaultId, windowFrom, JSON.stringify([...kept]));
  const insert = sql(
    db,
    `INSERT OR REPLACE INTO calendar_events (vault_id, id, title, start_at, end_at, attendees_json, video_link, description, meeting_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const e of events)
    insert.run(
      vaultId,
      e.id,
      e.title,
      e.start,
      e.end,
      json.write(e.attendees),
      e.videoLink,
      e.description,
      e.meetingId,
      e.createdAt || e.start,
    );
}
