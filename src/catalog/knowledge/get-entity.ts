import { z } from 'zod';
import { defineTool } from '../define.js';
import { conflict, edge, finding, isoDatetime, laterMeetingsNotExtracted } from '../shapes.js';
import { getEntityRow, slimEdges, toFinding } from '../../store/entities.js';
import { listConflicts } from '../../store/conflicts.js';
import { evidenceWithContext, mentionsSummary, quoteWithContext, withClaimContext } from '../evidence-context.js';
import { meetingsNotExtractedAfter, withLaterMeetings } from '../knowledge-lag.js';
import { notFound } from '../../core/errors.js';
import { DAY_MS } from '../../time.js';

export default defineTool({
  name: 'get_entity',
  view: 'graph',
  title: 'Get an entity',
  description:
    'One entity in depth: core fields, aliases, recency, and slim deduplicated graph edges `{entityId, name, type, relation, direction, weight}` (weight = co-mentions across meetings). With `includeEvidence: true`, also the verbatim quotes (who said it, in which meeting, and `context`: the whole sentences they were clipped from) and `mentions`: where it is mentioned beyond the quotes and how to read those. A `conflicts` array appears only when the evidence holds contradictory claims that still need validation; `laterMeetingsNotExtracted` names newer meetings the record does not include yet.',
  input: {
    entityId: z.string().min(1).describe('from search_knowledge, list_findings or an edge'),
    includeEvidence: z.boolean().default(false),
  },
  output: finding.extend({
    entityId: z.string(),
    recency: z.object({
      firstSeenAt: isoDatetime,
      lastMentionedAt: isoDatetime.nullable(),
      daysSinceLastMention: z.number().int().nullable(),
    }),
    edges: z.array(edge),
    evidence: z.array(quoteWithContext).optional(),
    mentions: mentionsSummary,
    conflicts: z.array(conflict).optional(),
    laterMeetingsNotExtracted,
  }),
  run: ({ entityId, includeEvidence }, { db, vault, now }) => {
    const row = getEntityRow(db, vault.id, entityId);
    if (!row) throw notFound('entity', entityId, vault.name);
    const f = toFinding(row);
    const open = withLaterMeetings(
      db,
      vault.id,
      withClaimContext(db, vault.id, listConflicts(db, vault.id, { status: 'open', entityId })),
    );
    const later = meetingsNotExtractedAfter(db, vault.id, f.lastMentionedAt);
    const last = f.lastMentionedAt ? Date.parse(f.lastMentionedAt) : undefined;
    return {
      ...f,
      entityId: f.id,
      recency: {
        firstSeenAt: f.firstSeenAt,
        lastMentionedAt: f.lastMentionedAt,
        daysSinceLastMention: last === undefined ? null : Math.max(0, Math.floor((now.getTime() - last) / DAY_MS)),
      },
      edges: slimEdges(db, vault.id, entityId),
      ...(includeEvidence ? evidenceWithContext(db, vault.id, f) : {}),
      ...(open.length ? { conflicts: open } : {}),
      ...(later ? { laterMeetingsNotExtracted: later } : {}),
    };
  },
});
