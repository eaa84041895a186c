/**
 * Entities: the findings inventory (list_findings, full items, all pages) gives every entity's core fields;
 * get_entity with evidence gives its edges and quotes. Details land only for entities whose core fields
 * changed since they last landed (a fingerprint in sync_records), so a resumed or repeated pull does not
 * fetch them again. A server that offers `includeDetails` on list_findings (ours does; the hosted wire
 * does not) sends the details with the inventory: a page of 200 entities instead of 200 get_entity calls.
 */
import { z } from 'zod';
import { writeTransaction, type Db } from '../../store/db.js';
import {
  deleteEntity,
  entityIds,
  replaceEntityEdges,
  replaceEntityEvidence,
  upsertEntity,
} from '../../store/entities.js';
import {
  forgetExtra,
  forgetLanded,
  keepExtra,
  landedFingerprints,
  setLandedFingerprint,
} from '../../store/sync-checkpoints.js';
import { RemoteError } from '../remote.js';
import { PageWalk } from '../limits.js';
import {
  ahead,
  fingerprint,
  orDefault,
  parseEach,
  stringList,
  type Parsed,
  type PullContext,
  wireTime,
  optionalWireTime,
} from './common.js';

const ENTITY_TYPES = ['department', 'person', 'process', 'system', 'problem', 'opportunity', 'kpi'] as const;
const PAGE = 200;

const finding = {
  id: z.string(),
  name: z.string(),
  type: z.enum(ENTITY_TYPES),
  description: orDefault(z.string(), ''),
  aliases: stringList,
  source: orDefault(z.string(), 'unclear'),
  mentionCount: orDefault(z.number().int(), 0),
  firstSeenAt: wireTime,
  lastMentionedAt: optionalWireTime,
};
type Finding = z.output<z.ZodObject<typeof finding>>;

const edge = z.object({
  entityId: z.string(),
  relation: z.string(),
  direction: z.enum(['out', 'in', 'both']),
  weight: orDefault(z.number().int(), 1),
});
const quote = z.object({
  quote: z.string(),
  speaker: z.string(),
  meetingId: z.string(),
  spokenAt: wireTime,
  turnIndex: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
});
const details = { ...finding, edges: orDefault(z.array(edge), []), evidence: orDefault(z.array(quote), []) };

/** The core fields in a fixed order, so a list item and a get_entity answer give the same fingerprint. */
const fingerprintOf = (f: Finding) =>
  fingerprint([
    f.id,
    f.name,
    f.type,
    f.description,
    f.aliases,
    f.source,
    f.mentionCount,
    f.firstSeenAt,
    f.lastMentionedAt,
  ]);

type Page = { findings?: unknown; nextCursor?: string | null; total?: number };

/** A page of list_findings (full items), with their details where the server gives them (`withDetails`). */
async function findingsPage(
  ctx: PullContext,
  args: Record<string, unknown>,
): Promise<{ page: Page; withDetails: boolean }> {
  const { data: page, extended } = await ctx.remote.toolWithExtras<Page>(
    'list_findings',
    { vault: ctx.vaultId, limit: PAGE, ...args },
    { includeDetails: true },
  );
  // A server that ignores the field answers without details: then they are fetched one by one.
  const withDetails =
    extended &&
    Array.isArray(page.findings) &&
    page.findings.every(
      (f: { edges?: unknown; evidence?: unknown }) => Array.isArray(f?.edges) && Array.isArray(f?.evidence),
    );
  return { page, withDetails };
}

/**
 * Inventory pages landed per transaction. A page's entities have their keys all over the entity indexes, so
 * each commit rewrites most of their pages: in a pull of 10,000 entities, a transaction per 5 pages wrote
 * ~0.4 s less than one per page. Still small enough to resume from.
 */
const PAGES_PER_TRANSACTION = 5;

/**
 * Walks the whole inventory, page by page (landed PAGES_PER_TRANSACTION at a time), then removes local
 * entities upstream no longer has. Returns the ids whose details must still be fetched (none when the
 * pages carried them) and how many landed with their details.
 */
export async function pullEntityInventory(ctx: PullContext): Promise<{ stale: string[]; detailed: number }> {
  const { db, vaultId } = ctx;
  const landed = landedFingerprints(db, vaultId, 'entity');
  const seen = new Set<string>();
  const stale: string[] = [];
  let detailed = 0;
  let total: number | undefined;
  const pages: { records: Parsed<Finding>[]; withDetails: boolean }[] = [];
  const walk = new PageWalk('list_findings', ctx.limits.maxPages);
  let next: ReturnType<typeof findingsPage> | undefined = findingsPage(ctx, {});
  while (next) {
    const { page, withDetails }: Awaited<ReturnType<typeof findingsPage>> = await next;
    if (!Array.isArray(page.findings)) {
      // Without every page, which entities are gone upstream cannot be told: none is removed.
      ctx.skip(
        'entities',
        `list_findings: a page has no "findings" list, so the inventory stopped there and nothing was removed`,
      );
      return { stale, detailed };
    }
    if (page.nextCursor) walk.follow(page.nextCursor);
    // The next page is on the wire (and upstream gathers its details) while this one lands.
    next = page.nextCursor ? ahead(findingsPage(ctx, { cursor: page.nextCursor })) : undefined;
    total = page.total ?? total;
    pages.push({ records: parseEach(ctx, 'entities', withDetails ? details : finding, page.findings), withDetails });
    if (pages.length < PAGES_PER_TRANSACTION && next) continue;
    const landing = pages.splice(0);
    writeTransaction(db, () => {
      for (const { records, withDetails } of landing) {
        for (const record of records) {
          const { item } = record;
          seen.add(item.id);
          if (landed.get(item.id) === fingerprintOf(item)) continue;
          if (withDetails) {
            writeDetails(ctx, record as Parsed<z.output<z.ZodObject<typeof details>>>);
            detailed++;
          } else {
            upsertEntity(db, vaultId, item);
            stale.push(item.id);
          }
        }
      }
    });
    ctx.progress('entities', seen.size, total);
  }
  const gone = entityIds(db, vaultId).filter((id) => !seen.has(id));
  writeTransaction(db, () => {
    for (const id of gone) removeEntity(db, vaultId, id);
  });
  return { stale, detailed };
}

function removeEntity(db: Db, vaultId: string, id: string): void {
  deleteEntity(db, vaultId, id);
  forgetLanded(db, vaultId, 'entity', id);
  forgetExtra(db, vaultId, 'entity', id);
}

/** Up to this many changed entities are fetched one by one at once: a page of details would cost more. */
const FEW = 10;

/**
 * Details of the entities an incremental pull found changed. Those changes_since names were mentioned after
 * the moment (or are new), so where list_findings carries details its most recent pages hold them: they are
 * read while that recent, and the ids not met there are fetched one by one (get_entity), as from a server
 * without details.
 */
export async function pullChangedEntities(ctx: PullContext, ids: readonly string[], since: string): Promise<number> {
  const wanted = new Set(ids);
  let landed = 0;
  const walk = new PageWalk('list_findings (recent)', ctx.limits.maxPages);
  let cursor: string | null = wanted.size > FEW ? '' : null;
  while (cursor !== null) {
    const { page, withDetails } = await findingsPage(ctx, { sort: 'recent', ...(cursor ? { cursor } : {}) });
    if (!withDetails) break;
    const records = parseEach(ctx, 'entities', details, page.findings);
    writeTransaction(ctx.db, () => {
      for (const record of records) {
        if (!wanted.delete(record.item.id)) continue;
        writeDetails(ctx, record);
        landed++;
      }
    });
    ctx.progress('entity details', landed, ids.length);
    const last = records.at(-1)?.item.lastMentionedAt;
    cursor = wanted.size && last && Date.parse(last) > Date.parse(since) ? (page.nextCursor ?? null) : null;
    if (cursor) walk.follow(cursor);
  }
  return landed + (await pullEntityDetails(ctx, [...wanted]));
}

/** Entities whose details land in one transaction: fewer commits, and still small enough to resume from. */
const DETAILS_BATCH = 100;

/** get_entity (with evidence) for each id, a batch at a time (fetched concurrently, landed in one transaction). */
export async function pullEntityDetails(ctx: PullContext, ids: readonly string[]): Promise<number> {
  let done = 0;
  for (let start = 0; start < ids.length; start += DETAILS_BATCH) {
    const batch = ids.slice(start, start + DETAILS_BATCH);
    const answers = await Promise.all(
      batch.map((id) =>
        ctx.remote.tool('get_entity', { vault: ctx.vaultId, entityId: id, includeEvidence: true }).catch((err) => {
          if (err instanceof RemoteError && err.status === 404) return undefined; // deleted upstream since it was listed
          throw err;
        }),
      ),
    );
    writeTransaction(ctx.db, () => {
      answers.forEach((answer, i) => {
        if (answer === undefined) removeEntity(ctx.db, ctx.vaultId, batch[i]!);
        else for (const record of parseEach(ctx, 'entities', details, [answer])) writeDetails(ctx, record);
      });
    });
    done += batch.length;
    ctx.progress('entity details', done, ids.length);
  }
  return done;
}

function writeDetails(ctx: PullContext, { item: e, extra }: Parsed<z.output<z.ZodObject<typeof details>>>): void {
  const { db, vaultId } = ctx;
  upsertEntity(db, vaultId, e);
  replaceEntityEdges(db, vaultId, e.id, e.edges);
  // Ids keep upstream's order among quotes spoken at the same moment (the local order is spoken_at, id).
  const quotes = e.evidence.map((q, i) => ({ ...q, id: `${e.id}#${String(i).padStart(5, '0')}` }));
  for (const q of replaceEntityEvidence(db, vaultId, e.id, quotes)) {
    ctx.skip('evidence', `a quote of "${e.id}" names meeting "${q.meetingId}", which is not in the vault`);
  }
  const { recency: _r, entityId: _i, conflicts: _c, ...unknown } = extra ?? {};
  if (Object.keys(unknown).length) keepExtra(db, vaultId, 'entity', e.id, unknown);
  setLandedFingerprint(db, vaultId, 'entity', e.id, fingerprintOf(e));
}
