/**
 * A stored quote is a clip of what was said, and can stop before the words that qualify it ("two hundred and
 * fourteen thousand year to date" without "at the end of October"). get_entity gives each quote with the whole
 * sentences of its turn that hold it, and says how many more mentions the transcripts hold than quotes.
 */
import { z } from 'zod';
import { evidenceQuote } from './shapes.js';
import { evidenceOf, mentionsByMeeting } from '../store/entities.js';
import { turnsBetween } from '../store/meetings.js';
import { claimTurns } from '../store/conflicts.js';
import type { Db } from '../store/db.js';

export const quoteWithContext = evidenceQuote.extend({
  context: z
    .string()
    .nullable()
    .optional()
    .describe(
      'the whole sentences of the turn the quote was clipped from (the whole turn when the quote is not verbatim in it): read the quote with its qualifiers; null when the turn is unknown',
    ),
});

export const mentionsSummary = z
  .object({
    total: z.number().int().describe('mentions across the extracted meetings (the sum of byMeeting)'),
    quoted: z.number().int().describe('how many of them are quoted in `evidence`'),
    byMeeting: z.array(
      z.object({
        meetingId: z.string(),
        meetingName: z.string(),
        date: z.string(),
        mentions: z.number().int(),
        quoted: z.number().int(),
      }),
    ),
    howToRead: z.string().describe('how to read the mentions that are not quoted'),
  })
  .optional()
  .describe('with includeEvidence: where the entity is mentioned, and how to read what was said beyond the quotes');

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Where a sentence ends: . ! ? (or an ellipsis) followed by a space or the end, closing quotes and brackets included. */
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s|$)/g;

/**
 * The sentences of `turn` that hold `quote` (matched ignoring case and spacing), whole; the whole turn when the
 * quote is not in it verbatim (a paraphrased or stitched quote).
 */
export function sentencesHolding(turn: string, quote: string): string {
  const text = squash(turn);
  const needle = squash(quote)
    .replace(/^["'“‘]+|["'”’]+$/g, '')
    .replace(/[.…]+$/, '')
    .toLowerCase();
  const at = needle ? text.toLowerCase().indexOf(needle) : -1;
  if (at < 0) return text;
  const end = at + needle.length;
  let start = 0;
  let stop = text.length;
  for (const m of text.matchAll(SENTENCE_END)) {
    const after = m.index! + m[0].length;
    if (after <= at) start = after;
    else if (m.index! >= end - 1) {
      stop = after;
      break;
    }
  }
  return text.slice(start, stop).trim();
}

/** An entity's quotes, each with its context (see sentencesHolding), and a summary of where it is mentioned. */
export function evidenceWithContext(db: Db, vaultId: string, entity: { id: string; name: string; aliases: string[] }) {
  const evidence = evidenceOf(db, vaultId, entity.id).map((q) => ({
    ...q,
    context: contextOf(db, vaultId, q.meetingId, q.turnIndex, q.quote),
  }));
  const quotedIn = new Map<string, number>();
  for (const q of evidence) quotedIn.set(q.meetingId, (quotedIn.get(q.meetingId) ?? 0) + 1);
  const byMeeting = mentionsByMeeting(db, vaultId, entity.id).map((m) => ({
    ...m,
    quoted: quotedIn.get(m.meetingId) ?? 0,
  }));
  const total = byMeeting.reduce((a, m) => a + m.mentions, 0);
  const names = [entity.name, ...entity.aliases].map((n) => JSON.stringify(n)).join(' or ');
  return {
    evidence,
    mentions: {
      total,
      quoted: evidence.length,
      byMeeting,
      howToRead:
        total > evidence.length
          ? `${total - evidence.length} mentions are not quoted: search_transcripts with query ${names} (and meetingId to stay in one meeting), then get_transcript with a hit's meetingId, turnStart and turnEnd to read around it.`
          : "Every mention is quoted; get_transcript with a quote's meetingId and turnIndex as turnStart reads around it.",
    },
  };
}

/** The sentences of `meetingId`'s turn `turnIndex` that hold `quote`; null when the turn is unknown. */
function contextOf(
  db: Db,
  vaultId: string,
  meetingId: string | null,
  turnIndex: number | null,
  quote: string,
): string | null {
  const turn =
    meetingId === null || turnIndex === null
      ? undefined
      : turnsBetween(db, vaultId, meetingId, turnIndex, turnIndex)[0];
  return turn ? sentencesHolding(turn.text, quote) : null;
}

/** Each conflict's claims with their turn and `context` (see sentencesHolding): two figures read with their qualifiers. */
export function withClaimContext<C extends { id: string; claims: { quote: string; meetingId: string | null }[] }>(
  db: Db,
  vaultId: string,
  conflicts: C[],
): C[] {
  return conflicts.map((c) => {
    const turns = claimTurns(db, vaultId, c.id);
    return {
      ...c,
      claims: c.claims.map((cl, i) => ({
        ...cl,
        turnIndex: turns[i] ?? null,
        context: contextOf(db, vaultId, cl.meetingId, turns[i] ?? null, cl.quote),
      })),
    };
  });
}
