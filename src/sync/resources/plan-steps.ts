/** The mutual action plan (list_plan_steps). */
import { z } from 'zod';
import { replacePlanStepsFromUpstream } from '../../store/plan.js';
import { optionalString, orDefault, pullList, type PullContext, readTool } from './common.js';

const step = {
  id: z.string(),
  position: z.number().int().nullish(),
  title: z.string(),
  description: optionalString,
  status: z.string(),
  proposedBy: orDefault(z.enum(['agent', 'person']), 'person'),
  proposerName: optionalString,
  startDate: optionalString,
  dueDate: optionalString,
};

export function pullPlanSteps(ctx: PullContext) {
  return pullList(
    ctx,
    'plan_steps',
    step,
    async () => (await readTool<{ steps?: unknown }>(ctx, 'list_plan_steps', { vault: ctx.vaultId })).steps,
    (records) =>
      replacePlanStepsFromUpstream(
        ctx.db,
        ctx.vaultId,
        records.map(({ item: s }, i) => ({ ...s, position: s.position ?? i + 1 })),
      ),
  );
}
