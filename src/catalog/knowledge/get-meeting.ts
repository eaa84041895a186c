import { z } from 'zod';
import { defineTool } from '../define.js';
import { entityType, meetingSummary } from '../shapes.js';
import { entitiesOfMeeting, getMeetingRow, toMeetingSummary } from '../../store/meetings.js';
import { notFound } from '../../core/errors.js';

export default defineTool({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    'One recorded meeting: metadata, the notes (markdown), and the entities extracted from it with how often each was mentioned in that meeting. Read the words with get_transcript.',
  input: { meetingId: z.string().min(1).describe('from list_meetings') },
  output: meetingSummary.extend({
    notes: z.string().describe('markdown'),
    entities: z.array(z.object({ id: z.string(), name: z.string(), type: entityType, mentions: z.number().int() })),
  }),
  run: ({ meetingId }, { db, vault }) => {
    const row = getMeetingRow(db, vault.id, meetingId);
    if (!row) throw notFound('meeting', meetingId, vault.name);
    return { ...toMeetingSummary(row), notes: row.notes_md, entities: entitiesOfMeeting(db, vault.id, meetingId) };
  },
});
