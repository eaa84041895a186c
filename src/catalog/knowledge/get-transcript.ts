import { z } from 'zod';
import { defineTool } from '../define.js';
import { limitArg } from '../shapes.js';
import { getMeetingRow, turnsOf } from '../../store/meetings.js';
import { chunkTurns } from '../../search/chunking.js';
import { notFound } from '../../service/errors.js';

export default defineTool({
  name: 'get_transcript',
  title: 'Read a meeting transcript',
  description:
    'The verbatim transcript of a recorded meeting in sequential chunks of consecutive speaker turns ("Speaker: words" lines). Page with `offset` = the previous `nextOffset` until it is null.',
  input: {
    meetingId: z.string().min(1).describe('from list_meetings'),
    offset: z.number().int().min(0).default(0).describe('index of the first chunk, default 0'),
    limit: limitArg(1, 50, 20),
  },
  output: z.object({
    meetingId: z.string(),
    meetingName: z.string(),
    chunks: z.array(
      z.object({
        index: z.number().int(),
        speakers: z.array(z.string()),
        text: z.string(),
        turnStart: z.number().int(),
        turnEnd: z.number().int(),
        startSeconds: z.number().int().nullable(),
      }),
    ),
    totalChunks: z.number().int(),
    nextOffset: z.number().int().nullable(),
  }),
  run: ({ meetingId, offset, limit }, { db, vault }) => {
    const meeting = getMeetingRow(db, vault.id, meetingId);
    if (!meeting) throw notFound('meeting', meetingId, vault.name);
    const chunks = chunkTurns(
      turnsOf(db, vault.id, meetingId).map((t) => ({ index: t.turn_index, speaker: t.speaker, text: t.text, atSeconds: t.at_seconds })),
    );
    const page = chunks.slice(offset, offset + limit);
    const next = offset + page.length;
    return {
      meetingId,
      meetingName: meeting.name,
      chunks: page,
      totalChunks: chunks.length,
      nextOffset: next < chunks.length ? next : null,
    };
  },
});
