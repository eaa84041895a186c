/** Board tasks of every status (list_tasks with no filter). The board prefix follows the identifiers (`ACME-5`). */
import { z } from 'zod';
import { replaceTasksFromUpstream, setTaskBlockers, type TaskBlocker } from '../../store/plan.js';
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
  // Only a vault-tools upstream says what blocks a task (the hosted service has no such field); one it says badly is dropped.
  blockedBy: z
    .array(
      z.object({
        kind: z.enum(['task', 'person', 'event']),
        ref: z.string().nullish(),
        name: z.string(),
        note: z.string().nullish(),
        dueDate: z.string().nullish(),
      }),
    )
    .optional()
    .catch(undefined),
};

/** A blocker as list_tasks shows it, back in the form the board records (see TaskBlocker); undefined when it names nothing. */
function recorded(b: NonNullable<z.output<(typeof task)['blockedBy']>>[number]): TaskBlocker | undefined {
  const extra = { ...(b.note ? { note: b.note } : {}) };
  if (b.kind === 'task') {
    const number = Number(/-(\d+)$/.exec(b.ref ?? '')?.[1]);
    return Number.isInteger(number) && number > 0 ? { task: number, ...extra } : undefined;
  }
  if (b.kind === 'event') return b.ref ? { eventId: b.ref, ...extra } : undefined;
  return { person: b.name, ...extra, ...(b.dueDate ? { dueDate: b.dueDate } : {}) };
}

export function pullTasks(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'tasks',
    task,
    async () => (await readTool<{ tasks?: unknown }>(ctx, 'list_tasks', { vault: vaultId })).tasks,
    (records) => {
      // A task created here and not pushed yet keeps its row, and moves past a number upstream has since used.
      replaceTasksFromUpstream(
        db,
        vaultId,
        records.map(({ item: { owner, blockedBy: _b, ...t } }) => ({ ...t, assigneeName: owner })),
        ctx.localOnly('task'),
      );
      for (const { item } of records) {
        const blockers = (item.blockedBy ?? []).map(recorded).filter((b): b is TaskBlocker => b !== undefined);
        if (blockers.length) setTaskBlockers(db, vaultId, item.id, blockers);
      }
      const prefix = /^(.+)-\d+$/.exec(records[0]?.item.identifier ?? '')?.[1];
      if (prefix) setBoardPrefix(db, vaultId, prefix);
    },
  );
}
