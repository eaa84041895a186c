/** Board tasks of every status (list_tasks with no filter). The board prefix follows the identifiers (`ACME-5`). */
import { z } from 'zod';
import { replaceTasksFromUpstream } from '../../store/plan.js';
import { setBoardPrefix } from '../../store/vaults.js';
import { optionalString, orDefault, pullList, readTool, stringList, type PullContext, wireTime } from './common.js';

const task = {
  id: z.string(),
  identifier: z.string(),
  number: z.number().int(),
  title: z.string(),
  description: optionalString,
  status: z.enum(['todo', 'doing', 'done', 'blocked']),
  owner: optionalString,
  estimate: optionalString,
  priority: orDefault(z.string(), 'none'),
  labels: stringList,
  checklist: orDefault(z.array(z.object({ text: z.string(), done: orDefault(z.boolean(), false) })), []),
  dueDate: optionalString,
  milestoneId: optionalString,
  createdAt: wireTime,
  updatedAt: wireTime,
};

export function pullTasks(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'tasks',
    task,
    async () => (await readTool<{ tasks?: unknown }>(ctx, 'list_tasks', { vault: vaultId })).tasks,
    (records) => {
      // A task created here and not pushed yet keeps its row, and moves past a number upstream has since used.
      replaceTasksFromUpstream(db, vaultId, records.map(({ item: { owner, ...t } }) => ({ ...t, assigneeName: owner })), ctx.localOnly('task'));
      const prefix = /^(.+)-\d+$/.exec(records[0]?.item.identifier ?? '')?.[1];
      if (prefix) setBoardPrefix(db, vaultId, prefix);
    },
  );
}
