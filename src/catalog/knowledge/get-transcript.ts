import { z } from 'zod';
import { defineTool } from '../define.js';
import { limitArg } from '../shapes.js';
import { getMeetingRow } from '../../store/meetings.js';
import { meetingChunks } from '../../search/chunk-index.js';
import { notFound } from '../../core/errors.js';

export default defineTool({
  name: 'get_transcript',
  view: 'transcript',
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
    // The same chunks search_transcripts ranks, so an excerpt's turn range is a chunk here.
    const { chunks, total } = meetingChunks(db, vault.id, meetingId, offset, limit);
    const next = offset + chunks.length;
    return { meetingId, meetingName: meeting.name, chunks, totalChunks: total, nextOffset: next < total ? next : null };
  },
});
