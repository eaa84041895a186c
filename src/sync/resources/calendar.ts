/**
 * Calendar events (list_calendar: 45 days back and everything ahead). Events older than the window are
 * kept as they are; inside it, the local list becomes upstream's (plus meetings scheduled here, not pushed yet).
 */
import { z } from 'zod';
import { json, sql } from '../../store/db.js';
import { optionalString, orDefault, pullList, readTool, stringList, type PullContext } from './common.js';

const event = {
  id: z.string(),
  title: z.string(),
  start: z.string(),
  end: z.string(),
  attendees: stringList,
  videoLink: optionalString,
  description: optionalString,
  meetingId: optionalString,
  createdAt: orDefault(z.string(), ''),
};

export function pullCalendar(ctx: PullContext) {
  const { db, vaultId } = ctx;
  let windowFrom = '';
  return pullList(
    ctx,
    'calendar',
    event,
    async () => {
      const data = await readTool<{ events?: unknown; window?: { from?: string } }>(ctx, 'list_calendar', { vault: vaultId });
      windowFrom = data.window?.from ?? '';
      return data.events;
    },
    (records) => {
      sql(db, 'DELETE FROM calendar_events WHERE vault_id = ? AND start_at >= ? AND id NOT IN (SELECT value FROM json_each(?))').run(
        vaultId,
        windowFrom,
        JSON.stringify([...ctx.localOnly('event')]),
      );
      const insert = sql(
        db,
        `INSERT OR REPLACE INTO calendar_events (vault_id, id, title, start_at, end_at, attendees_json, video_link, description, meeting_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const { item: e } of records) {
        insert.run(vaultId, e.id, e.title, e.start, e.end, json.write(e.attendees), e.videoLink, e.description, e.meetingId, e.createdAt || e.start);
      }
    },
  );
}
