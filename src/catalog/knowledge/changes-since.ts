import { z } from 'zod';
import { defineTool } from '../define.js';
import { compactFinding, isoDatetime, isoDatetimeArg, meetingSummary } from '../shapes.js';
import { entityChangesSince, toCompactFinding } from '../../store/entities.js';
import { meetingsCreatedSince, toMeetingSummary } from '../../store/meetings.js';
import { isoUtc } from '../../time.js';

export default defineTool({
  name: 'changes_since',
  title: 'What changed since a moment',
  description:
    'What is new since an ISO 8601 datetime: entities first seen after it, older entities mentioned again after it, and meetings recorded after it. Use it to catch up after your last visit.',
  input: { since: isoDatetimeArg.describe('ISO 8601 datetime with offset, e.g. 2026-11-01T00:00:00Z') },
  output: z.object({
    since: isoDatetime,
    newEntities: z.array(compactFinding.extend({ firstSeenAt: isoDatetime })),
    rementionedEntities: z.array(compactFinding),
    newMeetings: z.array(meetingSummary),
  }),
  run: ({ since }, { db, vault }) => {
    const at = isoUtc(Date.parse(since));
    const { newRows, rementioned } = entityChangesSince(db, vault.id, at);
    return {
      since: at,
      newEntities: newRows.map((r) => ({ ...toCompactFinding(r), firstSeenAt: r.first_seen_at })),
      rementionedEntities: rementioned.map(toCompactFinding),
      newMeetings: meetingsCreatedSince(db, vault.id, at).map(toMeetingSummary),
    };
  },
});
