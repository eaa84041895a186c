/**
 * Calendar events (list_calendar: 45 days back and everything ahead). Events older than the window are
 * kept as they are; inside it, the local list becomes upstream's (plus meetings scheduled here, not pushed yet).
 */
import { z } from 'zod';
import { replaceEventsFromUpstream } from '../../store/calendar.js';
import { optionalString, orDefault, pullList, readTool, stringList, type PullContext, wireTime } from './common.js';

const event = {
  id: z.string(),
  title: z.string(),
  start: wireTime,
  end: wireTime,
  attendees: stringList,
  videoLink: optionalString,
  description: optionalString,
  meetingId: optionalString,
  createdAt: orDefault(wireTime, ''),
};

export function pullCalendar(ctx: PullContext) {
  const { db, vaultId } = ctx;
  let windowFrom = '';
  return pullList(
    ctx,
    'calendar',
    event,
    async () => {
      const data = await readTool<{ events?: unknown; window?: { from?: string } }>(ctx, 'list_calendar', {
        vault: vaultId,
      });
      windowFrom = data.window?.from ?? '';
      return data.events;
    },
    (records) =>
      replaceEventsFromUpstream(
        db,
        vaultId,
        windowFrom,
        ctx.localOnly('event'),
        records.map((r) => r.item),
      ),
  );
}
