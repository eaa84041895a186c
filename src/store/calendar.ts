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

/** Events starting at or after `from`, in time order. */
export function eventsFrom(db: Db, vaultId: string, from: string) {
  const rows = sql(db, 'SELECT * FROM calendar_events WHERE vault_id = ? AND start_at >= ? ORDER BY start_at, id').all(vaultId, from) as EventRow[];
  return rows.map((r) => ({ ...r, attendees: json.read(r.attendees_json) }));
}
