import { z } from 'zod';
import { defineTool } from '../define.js';
import { compactFinding, isoDatetime, isoDatetimeArg, limitArg, meetingSummary } from '../shapes.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { entityChangeCounts, entityChangesSince, toCompactFinding } from '../../store/entities.js';
import { countMeetingsCreatedSince, meetingsCreatedSince, toMeetingSummary } from '../../store/meetings.js';
import { isoUtc } from '../../time.js';

/**
 * The three lists page as one sequence: new entities, then re-mentioned ones, then new meetings. A cursor
 * names the list a page ended in (`l`) and that list's last sort key and id.
 */
const LISTS = ['newEntities', 'rementionedEntities', 'newMeetings'] as const;

interface Cursor {
  q: string;
  l: number;
  k: string;
  id: string;
}

const decode = (raw: string, signature: string) =>
  decodeCursor<Cursor>(raw, signature, (c) => Number.isInteger(c.l) && c.l >= 0 && c.l < LISTS.length && typeof c.k === 'string' && typeof c.id === 'string',
    'this cursor belongs to another `since` or vault; repeat the same `since`');

export default defineTool({
  name: 'changes_since',
  title: 'What changed since a moment',
  description:
    'What is new since an ISO 8601 datetime: entities first seen after it, older entities mentioned again after it, and meetings recorded after it. Use it to catch up after your last visit. Paged like list_findings: at most `limit` items over the three lists (filled in that order), `totals` counts each list over all pages, and `nextCursor` (null on the last page) passed as `cursor` with the same `since` gives the next page.',
  input: {
    since: isoDatetimeArg.describe('ISO 8601 datetime with offset, e.g. 2026-11-01T00:00:00Z'),
    limit: limitArg(1, 200, 50),
    cursor: z.string().min(1).optional().describe('the nextCursor of the previous page'),
  },
  output: z.object({
    since: isoDatetime,
    newEntities: z.array(compactFinding.extend({ firstSeenAt: isoDatetime })),
    rementionedEntities: z.array(compactFinding),
    newMeetings: z.array(meetingSummary),
    totals: z
      .object({ newEntities: z.number().int(), rementionedEntities: z.number().int(), newMeetings: z.number().int() })
      .describe('items of each list over all pages'),
    nextCursor: z.string().nullable(),
  }),
  run: ({ since, limit, cursor }, { db, vault }) => {
    const at = isoUtc(Date.parse(since));
    const signature = JSON.stringify([vault.id, at]);
    const from = cursor ? decode(cursor, signature) : undefined;
    const counts = entityChangeCounts(db, vault.id, at);
    const totals = { newEntities: counts.new, rementionedEntities: counts.rementioned, newMeetings: countMeetingsCreatedSince(db, vault.id, at) };
    const read = (l: number, n: number, after?: { k: string; id: string }) =>
      l === 2
        ? meetingsCreatedSince(db, vault.id, at, n, after).map((r) => ({ item: toMeetingSummary(r), k: r.started_at, id: r.id }))
        : entityChangesSince(db, vault.id, at, l === 0 ? 'new' : 'rementioned', n, after).map((r) => ({
            item: l === 0 ? { ...toCompactFinding(r), firstSeenAt: r.first_seen_at } : toCompactFinding(r),
            k: (l === 0 ? r.first_seen_at : r.last_mentioned_at) ?? '',
            id: r.id,
          }));
    const page: unknown[][] = LISTS.map(() => []);
    let left = limit;
    let nextCursor: string | null = null;
    for (let l = from?.l ?? 0; l < LISTS.length; l++) {
      if (left === 0) {
        // The page is full at a list's end: another page exists when a later list has items.
        if (totals[LISTS[l]!] > 0) {
          nextCursor = encodeCursor<Cursor>({ q: signature, l, k: '', id: '' });
          break;
        }
        continue;
      }
      const after = from && l === from.l && from.id ? { k: from.k, id: from.id } : undefined;
      // One row more than asked tells whether this list goes on past the page.
      const rows = read(l, left + 1, after);
      const taken = rows.slice(0, left);
      page[l] = taken.map((r) => r.item);
      left -= taken.length;
      if (rows.length > taken.length) {
        const last = taken[taken.length - 1]!;
        nextCursor = encodeCursor<Cursor>({ q: signature, l, k: last.k, id: last.id });
        break;
      }
    }
    return {
      since: at,
      newEntities: page[0] as never,
      rementionedEntities: page[1] as never,
      newMeetings: page[2] as never,
      totals,
      nextCursor,
    };
  },
});
