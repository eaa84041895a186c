/** Milestones (list_milestones); their task tallies are derived locally from the tasks. */
import { z } from 'zod';
import { replaceMilestonesFromUpstream } from '../../store/plan.js';
import { optionalString, pullList, type PullContext, readTool } from './common.js';

const milestone = { id: z.string(), title: z.string(), description: optionalString, targetDate: optionalString };

export function pullMilestones(ctx: PullContext) {
  return pullList(
    ctx,
    'milestones',
    milestone,
    async () => (await readTool<{ milestones?: unknown }>(ctx, 'list_milestones', { vault: ctx.vaultId })).milestones,
    (records) =>
      replaceMilestonesFromUpstream(
        ctx.db,
        ctx.vaultId,
        records.map((r) => r.item),
      ),
  );
}
