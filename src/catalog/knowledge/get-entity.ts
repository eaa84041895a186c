import { z } from 'zod';
import { defineTool } from '../define.js';
import { conflict, edge, evidenceQuote, finding, isoDatetime } from '../shapes.js';
import { evidenceOf, getEntityRow, slimEdges, toFinding } from '../../store/entities.js';
import { listConflicts } from '../../store/conflicts.js';
import { notFound } from '../../core/errors.js';
import { DAY_MS } from '../../time.js';


export default defineTool({
  name: 'get_entity',
  view: 'graph',
  title: 'Get an entity',
  description:
    'One entity in depth: core fields, aliases, recency, and slim deduplicated graph edges `{entityId, name, type, relation, direction, weight}` (weight = co-mentions across meetings). With `includeEvidence: true`, also the verbatim quotes (who said it, in which meeting). A `conflicts` array appears only when the evidence holds contradictory claims that still need validation.',
  input: {
    entityId: z.string().min(1).describe('from search_knowledge, list_findings or an edge'),
    includeEvidence: z.boolean().default(false),
  },
  output: finding.extend({
    entityId: z.string(),
    recency: z.object({ firstSeenAt: isoDatetime, lastMentionedAt: isoDatetime.nullable(), daysSinceLastMention: z.number().int().nullable() }),
    edges: z.array(edge),
    evidence: z.array(evidenceQuote).optional(),
    conflicts: z.array(conflict).optional(),
  }),
  run: ({ entityId, includeEvidence }, { db, vault, now }) => {
    const row = getEntityRow(db, vault.id, entityId);
    if (!row) throw notFound('entity', entityId, vault.name);
    const f = toFinding(row);
    const open = listConflicts(db, vault.id, { status: 'open', entityId });
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
      ...(includeEvidence ? { evidence: evidenceOf(db, vault.id, entityId) } : {}),
      ...(open.length ? { conflicts: open } : {}),
    };
  },
});
