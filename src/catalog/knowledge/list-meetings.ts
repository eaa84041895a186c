import { z } from 'zod';
import { defineTool } from '../define.js';
import { meetingSummary } from '../shapes.js';
import { listMeetingRows, toMeetingSummary } from '../../store/meetings.js';

export default defineTool({
  name: 'list_meetings',
  title: 'List recorded meetings',
  description:
    'Recorded meetings, newest first: id (usable as meetingId), name, date, attendees and extraction status (`extracted` means its entities and evidence are in the knowledge base). Recorded meetings are what happened; list_calendar shows what is booked.',
  input: {},
  output: z.object({ meetings: z.array(meetingSummary) }),
  run: (_args, { db, vault }) => ({ meetings: listMeetingRows(db, vault.id).map(toMeetingSummary) }),
});
