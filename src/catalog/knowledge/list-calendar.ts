import { z } from 'zod';
import { defineTool } from '../define.js';
import { calendarEvent, isoDatetime } from '../shapes.js';
import { eventsFrom } from '../../store/calendar.js';
import { DAY_MS, isoUtc } from '../../time.js';

export const CALENDAR_DAYS_BACK = 45;

export default defineTool({
  name: 'list_calendar',
  title: 'List calendar events',
  description:
    'Calendar events from 45 days back and everything scheduled ahead: title, ISO datetime, `happened` flag, attendees, video-meeting link, and `meetingId` when the event was recorded. Cross with list_meetings to tell what happened from what is only booked.',
  input: {},
  output: z.object({
    window: z.object({ from: isoDatetime, daysBack: z.number().int() }),
    events: z.array(calendarEvent),
  }),
  run: (_args, { db, vault, now }) => {
    const from = isoUtc(now.getTime() - CALENDAR_DAYS_BACK * DAY_MS);
    return {
      window: { from, daysBack: CALENDAR_DAYS_BACK },
      events: eventsFrom(db, vault.id, from, now),
    };
  },
});
