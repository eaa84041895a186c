import { z } from 'zod';
import { defineTool } from '../define.js';
import { asDatetime, dateBound, isoDatetime } from '../shapes.js';
import { getMeetingRow } from '../../store/meetings.js';
import { invalidArgument, notFound, throwIfCancelled } from '../../core/errors.js';
import { findQuotations } from '../../search/quotes/find.js';
import { wordsOf } from '../../search/quotes/align.js';
import {
  contextOf,
  findParts,
  namesSpeaker,
  QUOTE_LIMITS,
  quoteSearch,
  segments,
  sourceOf,
  type SourceSpan,
  verdictOf,
} from '../../search/quotes/check.js';
import { detailMatches } from '../../search/quotes/details.js';

export const MAX_DRAFT_CHARS = 100_000;

const turn = z.object({ speaker: z.string(), text: z.string() }).nullable();
const source = z.object({
  speaker: z.string(),
  meetingId: z.string(),
  meetingName: z.string(),
  date: isoDatetime,
  turnStart: z.number().int().describe('first turn of the words, 0-based as get_transcript counts them'),
  turnEnd: z.number().int(),
  said: z
    .string()
    .describe('the exact words in the transcript; " … " where others spoke between two turns of the speaker'),
  before: turn.describe('the turn just before, cut to 200 characters'),
  after: turn.describe('the turn just after, cut to 200 characters'),
});

const day = (iso: string) => iso.slice(0, 10);
const cite = (s: SourceSpan) => `${s.speaker}, ${s.meetingName}, ${day(s.date)}`;

export default defineTool({
  name: 'check_quotes',
  view: 'quotes',
  title: 'Check the quotations of a draft against the transcripts',
  description:
    'LOCAL to vault-tools (the hosted service has no such tool): checks every quotation of a draft against the meeting transcripts, says who really said it and flags what nobody said. Call it before a draft that quotes people goes out (an e-mail for send_email, a report for export_report, a deck, an answer to the user). It finds every quotation in `text` (“…”, "…", ‘…’, \'…\' and Markdown > block quotes; fewer than `minWords` words skipped) and the speaker the draft gives it ("— Tom Becker", "(Tom Becker, 12 Oct)", "Tom said"), and looks each up in the vault\'s transcripts. ' +
    'verdict: `verbatim` (the same words as one turn, or a speaker\'s consecutive turns; case, punctuation, fillers like "um" and ellipses aside), `close` (most words as said: `differences` marks what differs and `sources[].said` has the real words; a merge of things said apart has several sources), `not_found` (nobody said it: paraphrase without quotation marks). ' +
    '`speakerMatches`, `dateMatches`, `meetingMatches` compare what the draft says with the source; `fix` says the exact words and speaker to use. ' +
    `Bounded: at most ${QUOTE_LIMITS.quotations} quotations a call (the rest counted in summary.unchecked), the first ${QUOTE_LIMITS.words} words of each, ${QUOTE_LIMITS.candidates} candidate transcript chunks per stretch searched, ${QUOTE_LIMITS.parts} stretches per quotation. ` +
    'Optional filters: meetingId, after, before.',
  sync: { localOnly: true },
  input: {
    text: z
      .string()
      .min(1)
      .max(MAX_DRAFT_CHARS)
      .describe(`the draft: plain text or Markdown, up to ${MAX_DRAFT_CHARS.toLocaleString('en')} characters`),
    meetingId: z.string().min(1).optional().describe('only this meeting'),
    after: dateBound.optional().describe('only meetings on or after this date'),
    before: dateBound.optional().describe('only meetings before this date'),
    minWords: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(4)
      .describe('shorter quotations are skipped (1 to 20, default 4)'),
  },
  output: z.object({
    quotations: z.array(
      z.object({
        index: z.number().int().describe('0-based, in the order of the draft'),
        text: z.string().describe('the quotation as the draft has it'),
        start: z.number().int().describe('where its words start in `text` (UTF-16 offset)'),
        end: z.number().int(),
        kind: z.enum(['inline', 'block']),
        attributedTo: z.string().nullable().describe('the speaker the draft names, as written'),
        attribution: z.string().nullable().describe('the attributing words, e.g. "(Tom Becker, 12 Oct)"'),
        verdict: z.enum(['verbatim', 'close', 'not_found']),
        words: z.number().int().describe('words compared (fillers aside)'),
        wordsAsSaid: z.number().int().describe('of those, words found as said'),
        sources: z.array(source).describe('where the words were said: one, or one per stretch of a merged quotation'),
        differences: z
          .array(
            z.object({ op: z.enum(['same', 'changed', 'added', 'missing']), quoted: z.string(), said: z.string() }),
          )
          .describe(
            'the quotation in runs: same; changed (quoted → said); added (in the draft only); missing (said, left out)',
          ),
        speakerMatches: z.boolean().nullable().describe('null: the draft names no speaker, or nothing was found'),
        dateMatches: z.boolean().nullable(),
        meetingMatches: z.boolean().nullable(),
        misattributed: z.boolean().describe('the draft names a speaker who did not say these words'),
        fix: z.string().nullable().describe('what to write instead; null when the quotation is right'),
      }),
    ),
    summary: z.object({
      quotations: z.number().int().describe('quotations checked'),
      verbatim: z.number().int(),
      close: z.number().int(),
      notFound: z.number().int(),
      misattributed: z.array(
        z.object({ index: z.number().int(), attributedTo: z.string(), saidBy: z.array(z.string()) }),
      ),
      skippedShort: z.number().int().describe('quotations under minWords words, not checked'),
      unchecked: z.number().int().describe(`quotations past the first ${QUOTE_LIMITS.quotations}, not checked`),
    }),
  }),
  run: (args, { db, vault, signal }) => {
    if (args.meetingId && !getMeetingRow(db, vault.id, args.meetingId))
      throw notFound('meeting', args.meetingId, vault.name);
    const after = asDatetime(args.after);
    const before = asDatetime(args.before);
    if (after && before && after >= before) throw invalidArgument('before', 'must be later than `after`');
    const search = quoteSearch(db, vault.id, { meetingId: args.meetingId, after, before });
    const found = findQuotations(args.text).map((q) => ({ q, words: wordsOf(q.text, true) }));
    const long = found.filter((f) => f.words.length >= args.minWords);
    const checked = long.slice(0, QUOTE_LIMITS.quotations);
    const quotations = checked.map(({ q, words: all }, index) => {
      throwIfCancelled(signal, 'check_quotes');
      const words = all.slice(0, QUOTE_LIMITS.words);
      const attributed = q.attribution?.speaker;
      const parts = findParts(search, q.text, words, 0, words.length, attributed);
      const diff = segments(q.text, words, parts);
      const { verdict, asSaid } = verdictOf(parts, diff, words.length);
      const spans = verdict === 'not_found' ? [] : parts.map(sourceOf);
      const speakerMatches =
        attributed && spans.length ? spans.every((s) => namesSpeaker(attributed, s.speaker)) : null;
      const details = spans.map((s) => detailMatches(q.attribution?.detail ?? null, s.meetingName, s.date));
      const all3 = (k: 'date' | 'meeting') =>
        details.length && details.every((d) => d[k] !== null) ? details.every((d) => d[k]) : null;
      const misattributed = speakerMatches === false;
      return {
        index,
        text: q.text,
        start: q.start,
        end: q.end,
        kind: q.kind,
        attributedTo: attributed ?? null,
        attribution: q.attribution?.text ?? null,
        verdict,
        words: words.length,
        wordsAsSaid: verdict === 'not_found' ? 0 : asSaid,
        sources: spans.map((s) => ({ ...s, ...contextOf(search, s) })),
        differences: verdict === 'not_found' ? [] : diff,
        speakerMatches,
        dateMatches: all3('date'),
        meetingMatches: all3('meeting'),
        misattributed,
        fix: fixFor(verdict, spans, attributed, all3('date') === false || all3('meeting') === false),
      } as const;
    });
    const count = (v: string) => quotations.filter((q) => q.verdict === v).length;
    return {
      quotations,
      summary: {
        quotations: quotations.length,
        verbatim: count('verbatim'),
        close: count('close'),
        notFound: count('not_found'),
        misattributed: quotations
          .filter((q) => q.misattributed)
          .map((q) => ({
            index: q.index,
            attributedTo: q.attributedTo!,
            saidBy: [...new Set(q.sources.map((s) => s.speaker))],
          })),
        skippedShort: found.length - long.length,
        unchecked: long.length - checked.length,
      },
    };
  },
});

/** The answer's lesson: the words and speaker to use. */
function fixFor(
  verdict: string,
  spans: SourceSpan[],
  attributed: string | undefined,
  wrongPlace: boolean,
): string | null {
  if (verdict === 'not_found')
    return 'Nobody said these words in the transcripts searched: drop the quotation marks and say it as your own summary, or find what was said with search_transcripts.';
  const wrongSpeaker = !!attributed && spans.some((s) => !namesSpeaker(attributed, s.speaker));
  if (verdict === 'verbatim' && !wrongSpeaker && !wrongPlace) return null;
  const who = [...new Set(spans.map((s) => s.speaker))].join(' and ');
  const speakerNote = wrongSpeaker ? ` Said by ${who}, not ${attributed}.` : '';
  if (verdict === 'verbatim')
    return `The words are right; the attribution is not.${speakerNote} Attribute it to ${cite(spans[0]!)}.`;
  if (spans.length > 1)
    return `These words were said in ${spans.length} places; quote each as said, separately:${spans
      .map((s) => ` “${s.said}” (${cite(s)});`)
      .join('')
      .replace(/;$/, '.')}${speakerNote}`;
  return `Quote the words as said: “${spans[0]!.said}” (${cite(spans[0]!)}).${speakerNote}`;
}
