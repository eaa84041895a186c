/**
 * Recorded meetings: list_meetings gives every meeting's metadata; get_meeting its notes and per-meeting
 * entity mentions; get_transcript (all pages) its chunks, stored exactly as upstream cut them (so
 * get_transcript and search read the same text) with the turns recovered from them. A meeting's details
 * are fetched again only when its listing changed (new, extraction finished, renamed…).
 */
import { z } from 'zod';
import { writeTransaction } from '../../store/db.js';
import {
  deleteMeeting,
  meetingExists,
  meetingIds,
  replaceMeetingMentions,
  replaceMeetingTurns,
  setMeetingNotes,
  upsertMeeting,
} from '../../store/meetings.js';
import { forgetLanded, landedFingerprints, setLandedFingerprint } from '../../store/sync-checkpoints.js';
import { writeChunksOfMeetings, type StoredChunk } from '../../search/chunk-index.js';
import { LIMIT_SETTINGS, LimitError, PageWalk } from '../limits.js';
import {
  ahead,
  describeId,
  fingerprint,
  orDefault,
  parseEach,
  readTool,
  stringList,
  type PullContext,
  wireTime,
  optionalWireTime,
} from './common.js';
import { formatCount } from '../../core/numbers.js';

const TRANSCRIPT_PAGE = 50;

const meeting = {
  id: z.string(),
  name: z.string(),
  date: wireTime,
  durationMinutes: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
  attendees: stringList,
  extractionStatus: orDefault(z.string(), 'pending'),
  createdAt: optionalWireTime,
};
type Meeting = z.output<z.ZodObject<typeof meeting>>;

const mention = z.object({ id: z.string(), mentions: orDefault(z.number().int(), 0) });
const chunk = z.object({
  index: z.number().int(),
  speakers: stringList,
  text: z.string(),
  turnStart: z.number().int().nullish(),
  turnEnd: z.number().int().nullish(),
  startSeconds: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
});

export interface MeetingDetails {
  id: string;
  print: string;
  notes: string;
  /** Undefined when the answer had no list of them: the stored ones are kept. */
  mentions?: { id: string; mentions: number }[];
}

const fingerprintOf = (m: Meeting) =>
  fingerprint([m.id, m.name, m.date, m.durationMinutes, m.attendees, m.extractionStatus, m.createdAt]);

/** Lands every meeting's metadata and removes meetings upstream no longer has; returns those whose details changed. */
export async function pullMeetingList(ctx: PullContext): Promise<{ id: string; print: string }[]> {
  const { db, vaultId } = ctx;
  const list = (await readTool<{ meetings?: unknown }>(ctx, 'list_meetings', { vault: vaultId })).meetings;
  if (!Array.isArray(list)) {
    // Taken as an empty list, it would remove every meeting: the stored ones are kept as they are.
    ctx.skip('meetings', `list_meetings answered without a "meetings" list, so the stored meetings are kept`);
    return [];
  }
  const records = parseEach(ctx, 'meetings', meeting, list);
  const landed = landedFingerprints(db, vaultId, 'meeting');
  const changed: { id: string; print: string }[] = [];
  writeTransaction(db, () => {
    for (const { item: m } of records) {
      upsertMeeting(db, vaultId, { ...m, startedAt: m.date, createdAt: m.createdAt ?? m.date });
      const print = fingerprintOf(m);
      if (landed.get(m.id) !== print) changed.push({ id: m.id, print });
    }
    const listed = new Set(records.map((r) => r.item.id));
    for (const id of meetingIds(db, vaultId)) {
      if (listed.has(id)) continue;
      deleteMeeting(db, vaultId, id);
      forgetLanded(db, vaultId, 'meeting', id);
    }
  });
  ctx.progress('meetings', records.length, records.length);
  return changed;
}

/** get_meeting: notes and the entities extracted from it (which an incremental pull refreshes too). */
export async function fetchMeetingDetails(ctx: PullContext, m: { id: string; print: string }): Promise<MeetingDetails> {
  const data = await ctx.remote.tool<{ notes?: string; entities?: unknown }>('get_meeting', {
    vault: ctx.vaultId,
    meetingId: m.id,
  });
  if (!Array.isArray(data.entities))
    ctx.skip(
      'meeting entities',
      `get_meeting ${describeId(m.id)}: the answer has no list of entities, so the stored ones are kept`,
    );
  const mentions = Array.isArray(data.entities)
    ? parseEach(ctx, 'meeting entities', mention.shape, data.entities).map((r) => r.item)
    : undefined;
  return { id: m.id, print: m.print, notes: typeof data.notes === 'string' ? data.notes : '', mentions };
}

/** Meetings landed per transaction: each commit flushes the word index, so fewer and larger ones cost less; still small enough to resume from. */
const MEETINGS_PER_TRANSACTION = 25;

/**
 * Fetches the meetings' whole transcripts and lands them with their notes and mentions, a batch per
 * transaction; the next batch is on the wire while one lands. A transcript past its limits (pages, bytes) is
 * skipped with its reason: that meeting keeps what it had, and is asked again next sync.
 */
export async function pullTranscripts(ctx: PullContext, details: readonly MeetingDetails[]): Promise<void> {
  const fetchOne = async (d: MeetingDetails) => {
    try {
      return { d, chunks: await fetchTranscript(ctx, d.id) };
    } catch (err) {
      if (!(err instanceof LimitError)) throw err;
      ctx.skip('transcript', `meeting ${describeId(d.id)}: ${err.message}`);
      return undefined;
    }
  };
  const fetchBatch = async (start: number) =>
    (await Promise.all(details.slice(start, start + MEETINGS_PER_TRANSACTION).map(fetchOne))).filter(
      (m) => m !== undefined,
    );
  let next = details.length ? fetchBatch(0) : undefined;
  for (let start = 0; next; start += MEETINGS_PER_TRANSACTION) {
    const batch = await next;
    next =
      start + MEETINGS_PER_TRANSACTION < details.length
        ? ahead(fetchBatch(start + MEETINGS_PER_TRANSACTION))
        : undefined;
    writeTransaction(ctx.db, () => {
      const landing = batch.filter(({ d, chunks }) => landMeeting(ctx, d, chunks));
      // The batch's chunks in one statement, the word index's cheapest way (see writeChunksOfMeetings).
      writeChunksOfMeetings(
        ctx.db,
        ctx.vaultId,
        landing.map(({ d, chunks }) => ({ meetingId: d.id, chunks })),
      );
    });
    ctx.progress('transcripts', Math.min(start + MEETINGS_PER_TRANSACTION, details.length), details.length);
  }
}

/**
 * A meeting's whole transcript, all pages. It is held until its batch lands, so it is capped: a LimitError
 * past `maxPages` pages or `maxTranscriptBytes` of text (a `nextOffset` that only has to grow could
 * otherwise feed pages for ever).
 */
async function fetchTranscript(ctx: PullContext, meetingId: string): Promise<StoredChunk[]> {
  const { maxPages, maxTranscriptBytes } = ctx.limits;
  const walk = new PageWalk('get_transcript', maxPages);
  const chunks: StoredChunk[] = [];
  let bytes = 0;
  for (let offset: number | null = 0; offset !== null; ) {
    const page: { chunks?: unknown; nextOffset?: number | null } = await ctx.remote.tool('get_transcript', {
      vault: ctx.vaultId,
      meetingId,
      offset,
      limit: TRANSCRIPT_PAGE,
    });
    for (const { item: c } of parseEach(ctx, 'transcript', chunk.shape, page.chunks)) {
      bytes += Buffer.byteLength(c.text) + c.speakers.reduce((n, s) => n + Buffer.byteLength(s), 0);
      if (bytes > maxTranscriptBytes) {
        throw new LimitError(
          `get_transcript: more than ${formatCount(maxTranscriptBytes)} bytes of text (${LIMIT_SETTINGS.maxTranscriptBytes.env}), so it was not stored`,
        );
      }
      const turnStart = c.turnStart ?? (chunks.at(-1)?.turnEnd ?? -1) + 1;
      chunks.push({
        index: c.index,
        speakers: c.speakers,
        text: c.text,
        startSeconds: c.startSeconds,
        turnStart,
        turnEnd: c.turnEnd ?? turnStart,
      });
    }
    offset = typeof page.nextOffset === 'number' && page.nextOffset > offset ? page.nextOffset : null;
    if (offset !== null) walk.follow(offset);
  }
  return chunks;
}

/**
 * Notes, mentions and turns of one meeting (inside the caller's transaction, which writes its chunks with
 * the batch's); false when the meeting was removed meanwhile.
 */
function landMeeting(ctx: PullContext, d: MeetingDetails, chunks: StoredChunk[]): boolean {
  const { db, vaultId } = ctx;
  if (!meetingExists(db, vaultId, d.id)) return false;
  setMeetingNotes(db, vaultId, d.id, d.notes);
  if (d.mentions)
    replaceMeetingMentions(
      db,
      vaultId,
      d.id,
      d.mentions.map((m) => ({ entityId: m.id, count: m.mentions })),
    );
  replaceMeetingTurns(db, vaultId, d.id, chunks.flatMap(turnsOfChunk));
  setLandedFingerprint(db, vaultId, 'meeting', d.id, d.print);
  return true;
}

/**
 * The turns a chunk was packed from, recovered from its "Speaker: text" lines (a line that starts with one
 * of the chunk's speakers opens a turn). Only the first turn of a chunk knows its time.
 */
export function turnsOfChunk(
  c: StoredChunk,
): { index: number; speaker: string; text: string; atSeconds: number | null }[] {
  const turns: { index: number; speaker: string; text: string; atSeconds: number | null }[] = [];
  const speakers = [...c.speakers].sort((a, b) => b.length - a.length);
  for (const line of c.text.split('\n')) {
    const speaker = speakers.find((s) => line.startsWith(`${s}: `));
    if (speaker || !turns.length) {
      turns.push({
        index: c.turnStart + turns.length,
        speaker: speaker ?? '',
        text: speaker ? line.slice(speaker.length + 2) : line,
        atSeconds: turns.length ? null : c.startSeconds,
      });
    } else {
      turns.at(-1)!.text += `\n${line}`;
    }
  }
  return turns;
}
