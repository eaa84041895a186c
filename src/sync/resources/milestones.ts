/** Milestones (list_milestones); their task tallies are derived locally from the tasks. */
import { z } from 'zod';
import { sql } from '../../store/db.js';
import { clearExcept, optionalString, pullList, type PullContext, readTool } from './common.js';

const milestone = { id: z.string(), title: z.string(), description: optionalString, targetDate: optionalString };

export function pullMilestones(ctx: PullContext) {
  return pullList(
    ctx,
    'milestones',
    milestone,
    async () => (await readTool<{ milestones?: unknown }>(ctx, 'list_milestones', { vault: ctx.vaultId })).milestones,
    (records) => {
      clearExcept(ctx.db, 'milestones', ctx.vaultId, new Set());
      const insert = sql(ctx.db, 'INSERT INTO milestones (vault_id, id, title, description, target_date) VALUES (?, ?, ?, ?, ?)');
      for (const { item: m } of records) insert.run(ctx.vaultId, m.id, m.title, m.description, m.targetDate);
    },
  );
}
