import { z } from 'zod';
import { defineTool } from '../define.js';
import { asDatetime, calendarEvent, dateBound, isoDatetime, wordsQuery } from '../shapes.js';
import { eventsBetween, eventsFrom } from '../../store/calendar.js';
import { DAY_MS, isoUtc } from '../../time.js';
import { invalidArgument } from '../../core/errors.js';
import { matchWords } from '../word-match.js';

const eventText = (e: { title: string; description: string | null; attendees: string[] }) =>
  [e.title, e.description ?? '', e.attendees.join(' ')].join(' ');

export const CALENDAR_DAYS_BACK = 45;

export default defineTool({
  name: 'list_calendar',
  title: 'List calendar events',
  description:
    'Calendar events from 45 days back and everything scheduled ahead: title, ISO datetime, `happened` flag, attendees, video-meeting link, and `meetingId` when the event was recorded. Cross with list_meetings to tell what happened from what is only booked. Narrow with `after` / `before` (a date window, any dates) and `query` (words of the title, description or attendees, e.g. "steering committee").',
  input: {
    after: dateBound
      .optional()
      .describe('events starting on or after this date (2026-12-01, or a datetime with offset); default 45 days back'),
    before: dateBound
      .optional()
      .describe('events starting before this date (2026-12-08, or a datetime with offset); default no end'),
    query: wordsQuery('events', 'title, description, attendees'),
  },
  output: z.object({
    window: z.object({
      from: isoDatetime,
      daysBack: z.number().int().describe('days from `from` back to now (negative when `from` is ahead)'),
      to: isoDatetime.optional().describe('with `before`: events start before this'),
    }),
    events: z.array(calendarEvent),
  }),
  run: ({ after, before, query }, { db, vault, now }) => {
    const from = after ? asDatetime(after) : isoUtc(now.getTime() - CALENDAR_DAYS_BACK * DAY_MS);
    const to = before ? asDatetime(before) : undefined;
    if (to && to <= from)
      throw invalidArgument(
        'before',
        `a date after the start of the window (${from}${after ? ', `after`' : ', 45 days back'})`,
      );
    const events = to ? eventsBetween(db, vault.id, from, to, now) : eventsFrom(db, vault.id, from, now);
    return {
      window: {
        from,
        daysBack: after ? Math.floor((now.getTime() - Date.parse(from)) / DAY_MS) : CALENDAR_DAYS_BACK,
        ...(to ? { to } : {}),
      },
      events: query ? matchWords(events, query, eventText) : events,
    };
  },
});
