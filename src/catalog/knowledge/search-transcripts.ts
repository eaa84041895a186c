import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime, limitArg } from '../shapes.js';
import { chunkRows } from '../../search/chunk-index.js';
import { searchChunks } from '../../search/transcripts.js';
import { vectorCoverage, vectorIndexOwner } from '../../search/vectors.js';
import { getMeetingRow } from '../../store/meetings.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import { log } from '../../log.js';

const dateBound = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).describe('ISO 8601 date or datetime');
const asDatetime = (v: string | undefined) => (v === undefined ? undefined : v.length === 10 ? `${v}T00:00:00Z` : new Date(v).toISOString());

export default defineTool({
  name: 'search_transcripts',
  title: 'Search meeting transcripts',
  description:
    'Semantic search over the meeting transcripts: finds what was said even when the question uses other words than the speakers did (hybrid of word and meaning search). Returns the most relevant verbatim excerpts with speakers, meeting name and id, date, turn range and score. Optional filters: meetingId, speaker, after, before. Read around an excerpt with get_transcript.',
  input: {
    query: z.string().min(1).max(500).describe('a question or keywords'),
    meetingId: z.string().min(1).optional(),
    speaker: z.string().min(1).max(200).optional().describe('part of a speaker name'),
    after: dateBound.optional().describe('meetings on or after this date'),
    before: dateBound.optional().describe('meetings before this date'),
    limit: limitArg(1, 20, 5),
  },
  output: z.object({
    results: z.array(
      z.object({
        meetingId: z.string(),
        meetingName: z.string(),
        date: isoDatetime,
        speakers: z.array(z.string()),
        turnStart: z.number().int(),
        turnEnd: z.number().int(),
        startSeconds: z.number().int().nullable(),
        text: z.string().describe('verbatim "Speaker: words" lines'),
        score: z.number(),
        matchedBy: z.array(z.enum(['words', 'meaning'])),
      }),
    ),
    mode: z.enum(['hybrid', 'words', 'meaning']).describe('words: vectors are not built yet for this vault (or no embedder); meaning still comes when they are'),
    vectorCoverage: z.object({ chunks: z.number().int(), withVectors: z.number().int() }),
  }),
  run: async (args, { db, vault, embedder }) => {
    if (args.meetingId && !getMeetingRow(db, vault.id, args.meetingId)) throw notFound('meeting', args.meetingId, vault.name);
    const after = asDatetime(args.after);
    const before = asDatetime(args.before);
    if (after && before && after >= before) throw invalidArgument('before', 'must be later than `after`');
    const filters = { meetingId: args.meetingId, speaker: args.speaker, after, before };
    let found;
    try {
      found = await searchChunks(db, vault.id, args.query, { filters, limit: args.limit, embedder });
    } catch (err) {
      // The embedder failing (endpoint down, model not loadable) must not fail the search: fall back to words.
      log.warn('search by meaning failed; answering by words', err);
      found = await searchChunks(db, vault.id, args.query, { filters, limit: args.limit, mode: 'words' });
    }
    const rows = chunkRows(db, found.hits.map((h) => h.chunkId));
    const owner = vectorIndexOwner(db);
    return {
      results: found.hits.map((h) => {
        const r = rows.get(h.chunkId)!;
        return {
          meetingId: r.meeting_id,
          meetingName: r.meeting_name,
          date: r.started_at,
          speakers: r.speakers,
          turnStart: r.turn_start,
          turnEnd: r.turn_end,
          startSeconds: r.start_seconds,
          text: r.text,
          score: Math.round(h.score * 1e5) / 1e5,
          matchedBy: [...(h.wordRank ? ['words' as const] : []), ...(h.meaningRank ? ['meaning' as const] : [])],
        };
      }),
      mode: found.mode,
      vectorCoverage: vectorCoverage(db, vault.id, owner?.embedder ?? ''),
    };
  },
});
