/** The mutual action plan (list_plan_steps). */
import { z } from 'zod';
import { sql } from '../../store/db.js';
import { clearExcept, optionalString, orDefault, pullList, type PullContext, readTool } from './common.js';

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
    (records) => {
      clearExcept(ctx.db, 'plan_steps', ctx.vaultId, new Set());
      const insert = sql(
        ctx.db,
        `INSERT INTO plan_steps (vault_id, id, position, title, description, status, proposed_by, proposer_name, start_date, due_date)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      records.forEach(({ item: s }, i) =>
        insert.run(ctx.vaultId, s.id, s.position ?? i + 1, s.title, s.description, s.status, s.proposedBy, s.proposerName, s.startDate, s.dueDate),
      );
    },
  );
}
