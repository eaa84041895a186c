import { z } from 'zod';
import { defineTool } from '../define.js';
import { compactFinding, edge, entitySource, entityType, evidenceQuote, finding } from '../shapes.js';
import {
  countFindings,
  evidenceOf,
  pageFindings,
  slimEdges,
  sortKey,
  toCompactFinding,
  toFinding,
  type FindingFilter,
  type FindingSort,
} from '../../store/entities.js';
import { getMeetingRow } from '../../store/meetings.js';
import { invalidArgument, notFound } from '../../core/errors.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

/** Where a page ended: the last row's sort key and id, and the query it belongs to. */
interface Cursor {
  q: string;
  k: string | number;
  id: string;
}

const querySignature = (vaultId: string, f: FindingFilter, sort: FindingSort) =>
  JSON.stringify([vaultId, f.type ?? null, f.source ?? null, f.meetingId ?? null, sort]);

const decode = (raw: string, signature: string) =>
  decodeCursor<Cursor>(
    raw,
    signature,
    (c) => typeof c.id === 'string' && (typeof c.k === 'string' || typeof c.k === 'number'),
    'this cursor belongs to a query with other filters or sort; repeat the same type, source, meetingId and sort',
  );

export default defineTool({
  name: 'list_findings',
  view: 'findings',
  title: 'List findings',
  description:
    "Paginated inventory of the vault's findings (entities). Sort `mentions` (default) or `recent` (by lastMentionedAt, newest first; entities never mentioned in a meeting have lastMentionedAt null and come last); filter by `type`, `source`, or `meetingId` (entities with evidence from that meeting). Returns `{findings, total, nextCursor}`; pass `nextCursor` as `cursor` for the next page. `compact: true` returns only `{id, name, type, mentionCount, lastMentionedAt}` per item.",
  input: {
    type: entityType.optional(),
    source: entitySource.optional(),
    meetingId: z.string().min(1).optional().describe('only entities with evidence from this meeting'),
    sort: z.enum(['mentions', 'recent']).default('mentions'),
    limit: z.number().int().min(1).max(200).default(50).describe('1 to 200, default 50'),
    cursor: z.string().min(1).optional().describe('the nextCursor of the previous page'),
    compact: z.boolean().default(false),
    includeDetails: z
      .boolean()
      .default(false)
      .describe(
        'full items also carry `edges` and `evidence` as get_entity with includeEvidence gives them: a whole inventory in pages rather than a call per entity',
      ),
  },
  output: z.object({
    findings: z.array(
      z.union([finding.extend({ edges: z.array(edge), evidence: z.array(evidenceQuote) }), finding, compactFinding]),
    ),
    total: z.number().int().describe('findings matching the filters, over all pages'),
    nextCursor: z.string().nullable(),
  }),
  run: (args, { db, vault }) => {
    const filter: FindingFilter = { type: args.type, source: args.source, meetingId: args.meetingId };
    if (args.meetingId && !getMeetingRow(db, vault.id, args.meetingId))
      throw notFound('meeting', args.meetingId, vault.name);
    if (args.compact && args.includeDetails)
      throw invalidArgument('includeDetails', 'only full items carry details; leave out `compact: true`');
    const signature = querySignature(vault.id, filter, args.sort);
    const after = args.cursor ? decode(args.cursor, signature) : undefined;
    // One row more than asked tells whether another page exists without a second query.
    const rows = pageFindings(db, vault.id, filter, args.sort, args.limit + 1, after);
    const page = rows.slice(0, args.limit);
    const last = page[page.length - 1];
    return {
      findings: page.map((r) =>
        args.compact
          ? toCompactFinding(r)
          : args.includeDetails
            ? { ...toFinding(r), edges: slimEdges(db, vault.id, r.id), evidence: evidenceOf(db, vault.id, r.id) }
            : toFinding(r),
      ),
      total: countFindings(db, vault.id, filter),
      nextCursor:
        rows.length > args.limit && last
          ? encodeCursor({ q: signature, k: sortKey(last, args.sort), id: last.id })
          : null,
    };
  },
});
