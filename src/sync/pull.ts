/**
 * Pull of one vault. The first pull (or one after a kill) walks everything; later pulls ask changes_since
 * and re-read the cheap lists, and fetch details only for what changed. Order matters for the store's
 * foreign keys: meeting rows, then entities (their evidence names meetings), then meeting details (their
 * mentions name entities), then conflicts (they name entities) and the independent lists.
 */
import { countEntities } from '../store/entities.js';
import { lastPullStartedAt, markPulled } from '../store/sync-checkpoints.js';
import { mapInLanes } from '../core/lanes.js';
import { PageWalk } from './limits.js';
import { ahead, type PullContext } from './resources/common.js';
import { pullArtifacts } from './resources/artifacts.js';
import { pullBriefs } from './resources/briefs.js';
import { pullCalendar } from './resources/calendar.js';
import { pullConflicts } from './resources/conflicts.js';
import { pullSentEmails } from './resources/emails.js';
import { pullChangedEntities, pullEntityDetails, pullEntityInventory } from './resources/entities.js';
import { pullFiles } from './resources/files.js';
import { fetchMeetingDetails, pullMeetingList, pullTranscripts, type MeetingDetails } from './resources/meetings.js';
import { pullMilestones } from './resources/milestones.js';
import { pullPeople } from './resources/people.js';
import { pullPlanSteps } from './resources/plan-steps.js';
import { pullTasks } from './resources/tasks.js';
import { isoUtc } from '../time.js';

/** How far before the previous pull's start `changes_since` looks, for clock skew between here and upstream. */
const SINCE_MARGIN_MS = 10 * 60_000;

export interface PullSummary {
  vaultId: string;
  mode: 'full' | 'incremental';
  entitiesFetched: number;
  meetingsFetched: number;
  listsChanged: string[];
}

/** Meeting details asked at once: one fewer than the remote client's default requests in flight (4). */
const DETAILS_IN_FLIGHT = 3;

/** Pages changes_since asks for: where the server pages (ours does), every page is read. */
const CHANGES_PAGE = 200;

/**
 * Ids of the entities new or mentioned again since the moment, over every page. A server that answers
 * whole (the hosted wire has no `limit`) is asked once without one.
 */
async function changedEntityIds(ctx: PullContext, since: string): Promise<Set<string>> {
  type Page = { newEntities?: { id?: string }[]; rementionedEntities?: { id?: string }[]; nextCursor?: string | null };
  const ids = new Set<string>();
  const walk = new PageWalk('changes_since', ctx.limits.maxPages);
  let cursor: string | undefined;
  do {
    const body = { vault: ctx.vaultId, since };
    const { data, extended } = await ctx.remote.toolWithExtras<Page>('changes_since', body, {
      limit: CHANGES_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    for (const e of [...(data.newEntities ?? []), ...(data.rementionedEntities ?? [])])
      if (typeof e?.id === 'string') ids.add(e.id);
    cursor = extended && typeof data.nextCursor === 'string' ? data.nextCursor : undefined;
    if (cursor) walk.follow(cursor);
  } while (cursor);
  return ids;
}

/** The whole entity inventory, and the details of what changed: with the pages where they carry them. */
async function pullInventory(ctx: PullContext): Promise<number> {
  const { stale, detailed } = await pullEntityInventory(ctx);
  return detailed + (await pullEntityDetails(ctx, stale));
}

export async function pullVault(
  ctx: PullContext & { dataDir: string },
  options: { full?: boolean } = {},
): Promise<PullSummary> {
  const { db, vaultId, remote } = ctx;
  const startedAt = isoUtc(Date.now());
  const previous = lastPullStartedAt(db, vaultId);
  const incremental = !!previous && !options.full;

  const changedMeetings = await pullMeetingList(ctx);
  // Meeting details are only read once the entities landed: they are fetched meanwhile, a few at a time so
  // that the inventory's pages (each asked when the one before arrives) never queue behind hundreds of them
  // (a full pull of 10,000 entities and 500 meetings: ~0.4 s less, the inventory 2.8 s -> 2.1 s).
  const fetchingDetails = ahead(mapInLanes(changedMeetings, DETAILS_IN_FLIGHT, (m) => fetchMeetingDetails(ctx, m)));

  let entitiesFetched = 0;
  let meetingDetails: MeetingDetails[];
  if (!incremental) {
    entitiesFetched += await pullInventory(ctx);
    meetingDetails = await fetchingDetails;
  } else {
    meetingDetails = await fetchingDetails;
    const since = isoUtc(Date.parse(previous!) - SINCE_MARGIN_MS);
    const [ids, stats] = await Promise.all([
      changedEntityIds(ctx, since),
      remote.tool<{ entities?: { total?: number } }>('stats', { vault: vaultId }),
    ]);
    // Entities of a meeting that is new or changed (say, extraction just finished) have new counts and quotes.
    for (const d of meetingDetails) for (const m of d.mentions ?? []) ids.add(m.id);
    entitiesFetched += await pullChangedEntities(ctx, [...ids], since);
    // changes_since does not report removals: when the totals disagree, walk the inventory (cheap pages).
    if (stats.entities?.total !== undefined && stats.entities.total !== countEntities(db, vaultId)) {
      entitiesFetched += await pullInventory(ctx);
    }
  }

  await pullTranscripts(ctx, meetingDetails);

  const lists = await Promise.all([
    pullConflicts(ctx),
    pullPeople(ctx),
    pullCalendar(ctx),
    pullMilestones(ctx),
    pullTasks(ctx),
    pullPlanSteps(ctx),
    pullFiles(ctx),
    pullBriefs(ctx),
    pullSentEmails(ctx),
    pullArtifacts(ctx, ctx.dataDir),
  ]);

  markPulled(db, vaultId, startedAt, isoUtc(Date.now()));
  return {
    vaultId,
    mode: incremental ? 'incremental' : 'full',
    entitiesFetched,
    meetingsFetched: meetingDetails.length,
    listsChanged: lists.filter((l) => l.changed).map((l) => l.resource),
  };
}
