import { z } from 'zod';
import { defineTool } from '../define.js';
import { compactFinding, isoDatetime, isoDatetimeArg, limitArg, meetingSummary } from '../shapes.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { entityChangeCounts, entityChangesSince, toCompactFinding } from '../../store/entities.js';
import { countMeetingsCreatedSince, meetingsCreatedSince, toMeetingSummary } from '../../store/meetings.js';
import { isoUtc } from '../../time.js';

/**
 * The three lists page side by side: each page holds up to `limit` of each, so new meetings show on the
 * first page however many entities changed. A cursor says, per list, where its last page ended (the sort
 * key and id of its last item) or that it is done (null).
 */
type Position = { k: string; id: string } | null;

interface Cursor {
  q: string;
  p: [Position, Position, Position];
}

const isPosition = (p: unknown) =>
  p === null ||
  (typeof p === 'object' &&
    typeof (p as { k?: unknown }).k === 'string' &&
    typeof (p as { id?: unknown }).id === 'string');

const decode = (raw: string, signature: string) =>
  decodeCursor<Cursor>(
    raw,
    signature,
    (c) => Array.isArray(c.p) && c.p.length === 3 && c.p.every(isPosition),
    'this cursor belongs to another `since` or vault; repeat the same `since`',
  );

/**
 * One list's page: up to `limit` rows after where its previous page ended (one more row than asked tells
 * whether the list goes on), and where its next page starts (null: it is done).
 */
function page<R>(
  from: Position | 'done' | undefined,
  limit: number,
  read: (n: number, after?: { k: string; id: string }) => R[],
  position: (r: R) => { k: string; id: string },
) {
  if (from === 'done') return { rows: [] as R[], next: null };
  const rows = read(limit + 1, from ?? undefined);
  const last = rows[limit - 1];
  return { rows: rows.slice(0, limit), next: rows.length > limit && last ? position(last) : null };
}

export default defineTool({
  name: 'changes_since',
  title: 'What changed since a moment',
  description:
    'What is new since an ISO 8601 datetime: entities first seen after it, older entities mentioned again after it, and meetings recorded after it. Use it to catch up after your last visit. Paged like list_findings: each list holds at most `limit` items per page, `totals` counts each list over all pages, and `nextCursor` (null on the last page), passed as `cursor` with the same `since`, gives the next page.',
  input: {
    since: isoDatetimeArg.describe('ISO 8601 datetime with offset, e.g. 2026-11-01T00:00:00Z'),
    limit: limitArg(1, 200, 50).describe('items of each list per page: 1 to 200, default 50'),
    cursor: z.string().min(1).optional().describe('the nextCursor of the previous page'),
  },
  output: z.object({
    since: isoDatetime,
    newEntities: z.array(compactFinding.extend({ firstSeenAt: isoDatetime })),
    rementionedEntities: z.array(compactFinding),
    newMeetings: z.array(meetingSummary),
    totals: z
      .object({
        newEntities: z.number().int().nonnegative(),
        rementionedEntities: z.number().int().nonnegative(),
        newMeetings: z.number().int().nonnegative(),
      })
      .describe('items of each list over all pages'),
    nextCursor: z.string().nullable(),
  }),
  run: ({ since, limit, cursor }, { db, vault }) => {
    const at = isoUtc(Date.parse(since));
    const signature = JSON.stringify([vault.id, at]);
    const from = cursor ? decode(cursor, signature) : undefined;
    const counts = entityChangeCounts(db, vault.id, at);
    const totals = {
      newEntities: counts.new,
      rementionedEntities: counts.rementioned,
      newMeetings: countMeetingsCreatedSince(db, vault.id, at),
    };
    // A list this cursor finished stays empty; on the first page (no cursor) every list starts.
    const start = (l: number): Position | 'done' | undefined => (from ? (from.p[l] ?? 'done') : undefined);
    const newEntities = page(
      start(0),
      limit,
      (n, after) => entityChangesSince(db, vault.id, at, 'new', n, after),
      (r) => ({ k: r.first_seen_at, id: r.id }),
    );
    const rementioned = page(
      start(1),
      limit,
      (n, after) => entityChangesSince(db, vault.id, at, 'rementioned', n, after),
      (r) => ({ k: r.last_mentioned_at ?? '', id: r.id }),
    );
    const meetings = page(
      start(2),
      limit,
      (n, after) => meetingsCreatedSince(db, vault.id, at, n, after),
      (r) => ({ k: r.started_at, id: r.id }),
    );
    const p: Cursor['p'] = [newEntities.next, rementioned.next, meetings.next];
    return {
      since: at,
      newEntities: newEntities.rows.map((r) => ({ ...toCompactFinding(r), firstSeenAt: r.first_seen_at })),
      rementionedEntities: rementioned.rows.map(toCompactFinding),
      newMeetings: meetings.rows.map(toMeetingSummary),
      totals,
      nextCursor: p.some((x) => x !== null) ? encodeCursor<Cursor>({ q: signature, p }) : null,
    };
  },
});
