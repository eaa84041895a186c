import { z } from 'zod';
import { defineTool } from '../define.js';
import { asDatetime, dateBound, isoDatetime, limitArg } from '../shapes.js';
import { chunkRows } from '../../search/chunk-index.js';
import { searchChunks, type SearchHit, type SearchMode, type SearchOptions } from '../../search/transcripts.js';
import { MAX_ALTERNATIVE_CHARS, MAX_ALTERNATIVES, searchPhrasings, type PhrasedHit } from '../../search/phrasings.js';
import { vectorCoverage, vectorIndexOwner } from '../../search/vectors.js';
import { secondsToIndex } from '../../search/index-rate.js';
import { getMeetingRow } from '../../store/meetings.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import { log } from '../../log.js';

/** Vaults whose words-only answers were already explained in the log: once a process is enough. */
const wordsOnlyNoted = new Set<string>();

/** Says once, in the server log, that a vault is searched by words only because its vectors are missing, and the fix. */
function noteWordsOnly(
  vault: { id: string; name: string },
  coverage: { chunks: number; withVectors: number },
  dataDir: string,
): void {
  if (wordsOnlyNoted.has(vault.id) || coverage.withVectors >= coverage.chunks) return;
  wordsOnlyNoted.add(vault.id);
  log.warn(
    `search_transcripts in "${vault.name}" answers by words only (matchedBy: words): ${coverage.withVectors} of ${coverage.chunks} transcript chunks have vectors. ` +
      `serve builds them in the background; to build them now run: vault-tools reindex --data-dir ${JSON.stringify(dataDir)}`,
  );
}

/** While some of the vault's chunks lack vectors: how many, when the indexer of this process should be done with them, in words for the model. */
function vectorsPending(coverage: { chunks: number; withVectors: number }) {
  const chunks = coverage.chunks - coverage.withVectors;
  if (chunks <= 0) return undefined;
  const seconds = secondsToIndex(chunks);
  const when =
    seconds === undefined
      ? 'no indexer is at work in this server; `vault-tools reindex` on its data dir builds them now'
      : `the background indexer should have them in about ${seconds < 90 ? `${seconds} s` : `${Math.round(seconds / 60)} min`} at its recent rate`;
  return {
    chunks,
    ...(seconds === undefined ? {} : { estimatedSeconds: seconds }),
    note: `${chunks.toLocaleString('en-US')} of ${coverage.chunks.toLocaleString('en-US')} transcript chunks of this vault have no vector yet, so they are found by their words only (not by meaning): ${when}. Ask again then for a complete search by meaning.`,
  };
}

type Row = ReturnType<typeof chunkRows> extends Map<number, infer R> ? R : never;

/** One excerpt of overlapping chunks of a meeting (searchPhrasings merged them): their turns and lines in transcript order. */
function excerpt(chunks: Row[]): Row {
  if (chunks.length === 1) return chunks[0]!;
  const ordered = [...chunks].sort((a, b) => a.turn_start - b.turn_start || a.id - b.id);
  return {
    ...ordered[0]!,
    turn_end: Math.max(...ordered.map((c) => c.turn_end)),
    speakers: [...new Set(ordered.flatMap((c) => c.speakers))],
    text: ordered.map((c) => c.text).join('\n'),
  };
}

/** Positions in [query, ...alternatives] as the phrasings' own words, each once. */
const phrasingTexts = (positions: number[], query: string, alternatives: string[]) => [
  ...new Set(positions.map((i) => (i === 0 ? query : alternatives[i - 1]!.trim()))),
];

export default defineTool({
  name: 'search_transcripts',
  view: 'transcript',
  title: 'Search meeting transcripts',
  description:
    'Semantic search over the meeting transcripts: finds what was said even when the question uses other words than the speakers did (hybrid of word and meaning search). Returns the most relevant verbatim excerpts, best first, with speakers, meeting name and id, date, turn range and score. ' +
    'Pass `alternatives`: two or three rephrasings of the question the way the people in these meetings would have said it: the client\'s own names for its sites, systems, teams and roles (from get_brief or earlier results), plain spoken words ("the lorries sit outside for hours" for "carrier detention"). Rephrase only; never add facts, names or answers the question does not imply. Each phrasing is searched and the lists fused; `foundBy` quotes the phrasings that found each excerpt. ' +
    'Optional filters: meetingId, speaker, after, before. Read around an excerpt: get_transcript with its meetingId, turnStart and turnEnd (and `context`, turns on each side).',
  input: {
    query: z.string().min(1).max(500).describe('a question or keywords'),
    alternatives: z
      .array(
        z
          .string()
          .trim()
          .min(1, 'must not be empty')
          .max(MAX_ALTERNATIVE_CHARS, `at most ${MAX_ALTERNATIVE_CHARS} characters each`),
      )
      .max(MAX_ALTERNATIVES, `at most ${MAX_ALTERNATIVES} rephrasings`)
      .optional()
      .describe(
        `up to ${MAX_ALTERNATIVES} rephrasings of the query (each up to ${MAX_ALTERNATIVE_CHARS} characters), best two or three: in the speakers' own terms (the client's names for sites, systems and roles; spoken register), no new facts`,
      ),
    meetingId: z.string().min(1).optional(),
    speaker: z.string().min(1).max(200).optional().describe('part of a speaker name'),
    after: dateBound.optional().describe('meetings on or after this date (2026-11-01, or a datetime with offset)'),
    before: dateBound.optional().describe('meetings before this date (2026-11-01, or a datetime with offset)'),
    limit: limitArg(1, 20, 5),
  },
  output: z.object({
    results: z.array(
      z.object({
        meetingId: z.string(),
        meetingName: z.string(),
        date: isoDatetime.describe('when the meeting started'),
        speakers: z.array(z.string()),
        turnStart: z
          .number()
          .int()
          .describe(
            'first turn of the excerpt (0-based); to read around it, pass meetingId, turnStart and turnEnd to get_transcript',
          ),
        turnEnd: z.number().int().describe('last turn of the excerpt'),
        startSeconds: z.number().int().nullable().describe('seconds from the start of the meeting to the first turn'),
        text: z.string().describe('verbatim "Speaker: words" lines'),
        score: z
          .number()
          .describe(
            "relevance on one scale for every search, with or without alternatives: how far this excerpt stands above the average candidate of the search, in standard deviations (its word match and its meaning similarity, each standardised, weighted and summed). Higher is better; about 1 is a fair match, 3 or more stands out; not a probability. With `alternatives`, the best of the phrasings' own scores; the order of the results is their fusion, so it may differ from the order of the scores",
          ),
        matchedBy: z
          .array(z.enum(['words', 'meaning']))
          .describe("words: its words match the query's; meaning: it is among the nearest in meaning"),
        foundBy: z
          .array(z.string())
          .optional()
          .describe(
            'only when `alternatives` were passed: the phrasings, quoted as passed (`query` or an alternative), whose own search returns this excerpt in its top `limit`; empty when only their fusion ranked it this high',
          ),
      }),
    ),
    mode: z
      .enum(['hybrid', 'words', 'meaning'])
      .describe(
        'words: vectors are not built yet for this vault (or no embedder); meaning still comes when they are (`vault-tools reindex` builds them now)',
      ),
    vectorCoverage: z.object({ chunks: z.number().int(), withVectors: z.number().int() }),
    vectorsPending: z
      .object({ chunks: z.number().int(), estimatedSeconds: z.number().int().optional(), note: z.string() })
      .optional()
      .describe(
        'only while some chunks of the vault have no vector yet: how many, and about when the background indexer will have them',
      ),
  }),
  // Each phrasing is one more query for the embedder and the indexes (about 3.5× the CPU with five): the rate limit counts it.
  cost: (args) => 1 + (args.alternatives?.length ?? 0),
  run: async (args, { db, vault, embedder, dataDir, principal }) => {
    if (args.meetingId && !getMeetingRow(db, vault.id, args.meetingId))
      throw notFound('meeting', args.meetingId, vault.name);
    const after = asDatetime(args.after);
    const before = asDatetime(args.before);
    if (after && before && after >= before) throw invalidArgument('before', 'must be later than `after`');
    const filters = { meetingId: args.meetingId, speaker: args.speaker, after, before };
    // Without alternatives, the search (and so the answer) is exactly what it was before they existed.
    const alternatives = args.alternatives?.length ? args.alternatives : undefined;
    const search = (options: SearchOptions): Promise<{ hits: (SearchHit | PhrasedHit)[]; mode: SearchMode }> =>
      alternatives
        ? searchPhrasings(db, vault.id, args.query, alternatives, options)
        : searchChunks(db, vault.id, args.query, options);
    let found;
    try {
      found = await search({ filters, limit: args.limit, embedder, caller: principal.keyId });
    } catch (err) {
      // The embedder failing (endpoint down, model not loadable) must not fail the search: fall back to words.
      log.warn('search by meaning failed; answering by words', err);
      found = await search({ filters, limit: args.limit, mode: 'words' });
    }
    const rows = chunkRows(
      db,
      found.hits.flatMap((h) => ('chunkIds' in h ? h.chunkIds : [h.chunkId])),
    );
    const owner = vectorIndexOwner(db);
    const coverage = vectorCoverage(db, vault.id, owner?.embedder ?? '');
    if (found.mode === 'words') noteWordsOnly(vault, coverage, dataDir);
    const pending = vectorsPending(coverage);
    return {
      results: found.hits.map((h) => {
        const r = 'chunkIds' in h ? excerpt(h.chunkIds.map((id) => rows.get(id)!)) : rows.get(h.chunkId)!;
        return {
          meetingId: r.meeting_id,
          meetingName: r.meeting_name,
          date: r.started_at,
          speakers: r.speakers,
          turnStart: r.turn_start,
          turnEnd: r.turn_end,
          startSeconds: r.start_seconds,
          text: r.text,
          // With alternatives, the fusion's own score (a sum of reciprocal ranks) is on another scale: the best
          // phrasing's hybrid score is what a search without alternatives would have said of this excerpt.
          score: Math.round(('ownScore' in h ? h.ownScore : h.score) * 1e5) / 1e5,
          matchedBy: [...(h.wordRank ? ['words' as const] : []), ...(h.meaningRank ? ['meaning' as const] : [])],
          ...('foundBy' in h ? { foundBy: phrasingTexts(h.foundBy, args.query, alternatives!) } : {}),
        };
      }),
      mode: found.mode,
      vectorCoverage: coverage,
      ...(pending ? { vectorsPending: pending } : {}),
    };
  },
});
