import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime, limitArg } from '../shapes.js';
import { countTurns, getMeetingRow, turnsBetween, type MeetingRow } from '../../store/meetings.js';
import { meetingChunks } from '../../search/chunk-index.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import { isoUtc } from '../../time.js';

/** Turns of context on each side of the turns asked for, when `context` is not given; and at most. */
export const DEFAULT_CONTEXT = 3;
const MAX_CONTEXT = 20;
/** The most turns one read by turn may ask for (before context). */
const MAX_TURNS = 100;

const turnArg = z.number().int().min(0);

/** Where to read next, as get_transcript's own arguments. */
const readArgs = z
  .object({ meetingId: z.string(), turnStart: z.number().int(), turnEnd: z.number().int(), context: z.literal(0) })
  .nullable()
  .describe(
    'the arguments to pass to get_transcript to read the turns just before / after these; null at the start / end of the transcript',
  );

/** The turns `[start, end]` and `context` on each side, each with its speaker and the moment it was said. */
function readTurns(
  meeting: MeetingRow,
  vaultId: string,
  db: Parameters<typeof countTurns>[0],
  start: number,
  end: number,
  context: number,
) {
  const total = countTurns(db, vaultId, meeting.id);
  if (start >= total)
    throw invalidArgument(
      'turnStart',
      total
        ? `a turn of this meeting: 0 to ${total - 1} (it has ${total} turns)`
        : 'a turn of this meeting, which has no transcript',
    );
  const last = Math.min(end, total - 1);
  const from = Math.max(0, start - context);
  const to = Math.min(total - 1, last + context);
  const began = Date.parse(meeting.started_at);
  const turns = turnsBetween(db, vaultId, meeting.id, from, to).map((t) => ({
    turnIndex: t.turn_index,
    speaker: t.speaker,
    text: t.text,
    atSeconds: t.at_seconds,
    at: t.at_seconds === null || Number.isNaN(began) ? null : isoUtc(began + t.at_seconds * 1000),
    asked: t.turn_index >= start && t.turn_index <= last,
  }));
  const span = to - from + 1; // the next read shows as many turns as this one
  return {
    turns,
    totalTurns: total,
    before:
      from > 0
        ? { meetingId: meeting.id, turnStart: Math.max(0, from - span), turnEnd: from - 1, context: 0 as const }
        : null,
    after:
      to < total - 1
        ? { meetingId: meeting.id, turnStart: to + 1, turnEnd: Math.min(total - 1, to + span), context: 0 as const }
        : null,
  };
}

export default defineTool({
  name: 'get_transcript',
  view: 'transcript',
  title: 'Read a meeting transcript',
  description:
    'The verbatim transcript of a recorded meeting, read by turn (around a search excerpt or a quote) or paged by chunk. Read around an excerpt: pass `turnStart` and `turnEnd` (as a search_transcripts result or a quote gives them) and `context` (turns on each side, default 3): the turns in order, each with speaker, time and `asked`, and `before` / `after` saying what to pass to read further. ' +
    'Or page the whole transcript in sequential chunks of consecutive speaker turns ("Speaker: words" lines): `offset` = the previous `nextOffset` until it is null.',
  input: {
    meetingId: z.string().min(1).describe('from list_meetings, search_transcripts or a quote'),
    offset: z.number().int().min(0).default(0).describe('reading by chunk: index of the first chunk, default 0'),
    limit: limitArg(1, 50, 20),
    turnStart: turnArg
      .optional()
      .describe(
        'reading by turn: the first turn to read (0-based, the `turnStart` of a search_transcripts result or the `turnIndex` of a quote)',
      ),
    turnEnd: turnArg.optional().describe('reading by turn: the last turn to read, default `turnStart`'),
    context: z
      .number()
      .int()
      .min(0)
      .max(MAX_CONTEXT)
      .optional()
      .describe(`reading by turn: turns before and after to add, 0 to ${MAX_CONTEXT}, default ${DEFAULT_CONTEXT}`),
  },
  output: z.object({
    meetingId: z.string(),
    meetingName: z.string(),
    chunks: z
      .array(
        z.object({
          index: z.number().int(),
          speakers: z.array(z.string()),
          text: z.string(),
          turnStart: z.number().int(),
          turnEnd: z.number().int(),
          startSeconds: z.number().int().nullable(),
        }),
      )
      .optional()
      .describe('reading by chunk (no `turnStart`)'),
    totalChunks: z.number().int().optional().describe('reading by chunk'),
    nextOffset: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe('reading by chunk: the `offset` of the next page, null at the end'),
    date: isoDatetime.optional().describe('reading by turn: when the meeting started'),
    turns: z
      .array(
        z.object({
          turnIndex: z.number().int(),
          speaker: z.string(),
          text: z.string().describe('the whole turn, verbatim'),
          atSeconds: z.number().int().nullable().describe('seconds from the start of the meeting'),
          at: isoDatetime.nullable().describe('when it was said'),
          asked: z
            .boolean()
            .describe('true for the turns asked for (turnStart to turnEnd), false for the context around them'),
        }),
      )
      .optional()
      .describe('reading by turn: the turns asked for and their context, in order'),
    totalTurns: z
      .number()
      .int()
      .optional()
      .describe('reading by turn: turns in the whole transcript (numbered 0 to totalTurns - 1)'),
    before: readArgs.optional(),
    after: readArgs.optional(),
  }),
  run: ({ meetingId, offset, limit, turnStart, turnEnd, context }, { db, vault }) => {
    const meeting = getMeetingRow(db, vault.id, meetingId);
    if (!meeting) throw notFound('meeting', meetingId, vault.name);
    if (turnStart === undefined) {
      if (turnEnd !== undefined) throw invalidArgument('turnStart', 'a turn number: `turnEnd` reads from `turnStart`');
      if (context !== undefined)
        throw invalidArgument('turnStart', 'a turn number: `context` is the turns around `turnStart`..`turnEnd`');
      // The same chunks search_transcripts ranks, so an excerpt's turn range is a chunk here.
      const { chunks, total } = meetingChunks(db, vault.id, meetingId, offset, limit);
      const next = offset + chunks.length;
      return {
        meetingId,
        meetingName: meeting.name,
        chunks,
        totalChunks: total,
        nextOffset: next < total ? next : null,
      };
    }
    if (offset !== 0)
      throw invalidArgument('offset', 'no offset when reading by turn (`turnStart`): offset pages chunks');
    const end = turnEnd ?? turnStart;
    if (end < turnStart) throw invalidArgument('turnEnd', `a turn at or after turnStart (${turnStart})`);
    if (end - turnStart + 1 > MAX_TURNS)
      throw invalidArgument(
        'turnEnd',
        `at most ${MAX_TURNS} turns from turnStart (turnStart + ${MAX_TURNS - 1} = ${turnStart + MAX_TURNS - 1})`,
      );
    return {
      meetingId,
      meetingName: meeting.name,
      date: meeting.started_at,
      ...readTurns(meeting, vault.id, db, turnStart, end, context ?? DEFAULT_CONTEXT),
    };
  },
});
