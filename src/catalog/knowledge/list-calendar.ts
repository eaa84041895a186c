import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime } from '../shapes.js';
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
    events: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        start: isoDatetime,
        end: isoDatetime,
        durationMinutes: z.number().int(),
        happened: z.boolean().describe('the event has ended'),
        attendees: z.array(z.string()),
        videoLink: z.string().nullable(),
        description: z.string().nullable(),
        meetingId: z.string().nullable().describe('the recorded meeting, when there is one'),
      }),
    ),
  }),
  run: (_args, { db, vault, now }) => {
    const from = isoUtc(now.getTime() - CALENDAR_DAYS_BACK * DAY_MS);
    return {
      window: { from, daysBack: CALENDAR_DAYS_BACK },
      events: eventsFrom(db, vault.id, from).map((e) => ({
        id: e.id,
        title: e.title,
        start: e.start_at,
        end: e.end_at,
        durationMinutes: Math.round((Date.parse(e.end_at) - Date.parse(e.start_at)) / 60_000),
        happened: Date.parse(e.end_at) <= now.getTime(),
        attendees: e.attendees,
        videoLink: e.video_link,
        description: e.description,
        meetingId: e.meeting_id,
      })),
    };
  },
});
