/**
 * Structured knowledge (conflicts, an entity's figures and quotes) is extracted from meetings; a meeting recorded
 * but not extracted yet may hold newer evidence (a resolution, a corrected figure). Answers name those meetings,
 * so a model knows what the structured record cannot say yet and searches their transcripts.
 */
import type { z } from 'zod';
import type { laterMeetingsNotExtracted } from './shapes.js';
import { unextractedMeetingsAfter } from '../store/meetings.js';
import type { Db } from '../store/db.js';

export type LaterMeetings = z.infer<typeof laterMeetingsNotExtracted>;

/** The meetings held after `since` (all when null) that are not extracted, as laterMeetingsNotExtracted lists them; undefined when none. */
export function meetingsNotExtractedAfter(db: Db, vaultId: string, since: string | null): LaterMeetings {
  const rows = unextractedMeetingsAfter(db, vaultId, since);
  return rows.length
    ? rows.map((m) => ({
        meetingId: m.id,
        meetingName: m.name,
        date: m.started_at,
        extractionStatus: m.extraction_status as 'pending',
      }))
    : undefined;
}

interface ConflictLike {
  status: string;
  claims: { spokenAt: string | null }[];
  updatedAt: string;
}

/**
 * Each conflict with the meetings not yet extracted that were held after its latest claim (after its resolution,
 * when it is resolved or dismissed: that decision may already account for them).
 */
export function withLaterMeetings<C extends ConflictLike>(
  db: Db,
  vaultId: string,
  conflicts: C[],
): (C & { laterMeetingsNotExtracted?: LaterMeetings })[] {
  return conflicts.map((c) => {
    const moments = [...c.claims.map((cl) => cl.spokenAt ?? ''), ...(c.status === 'open' ? [] : [c.updatedAt])];
    const later = meetingsNotExtractedAfter(
      db,
      vaultId,
      moments.reduce((a, b) => (b > a ? b : a), ''),
    );
    return later ? { ...c, laterMeetingsNotExtracted: later } : c;
  });
}
