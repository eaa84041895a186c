import { z } from 'zod';
import { defineTool } from '../define.js';
import { task, taskEstimate, taskPriority } from '../shapes.js';
import { findTask, insertTask, milestoneExists, nextTaskNumber } from '../../store/plan.js';
import { notFound } from '../../core/errors.js';
import { isoUtc } from '../../time.js';

export const checklistArg = z
  .array(z.strictObject({ text: z.string().min(1).max(500), done: z.boolean().default(false) }))
  .max(100);

export default defineTool({
  name: 'add_task',
  title: 'Add a task',
  description:
    "Adds a task to the vault's project board with the next board identifier (e.g. `ACME-26`), status `todo`. Optional: description, assignee, estimate (xs–xl), priority, labels, checklist, due date and milestone (ids from list_milestones).",
  access: 'manager',
  sync: { creates: { kind: 'task', field: 'id' } },
  annotations: { readOnlyHint: false, idempotentHint: false },
  input: {
    title: z.string().min(1).max(300),
    description: z.string().max(20_000).optional(),
    assigneeName: z.string().min(1).max(200).optional(),
    estimate: taskEstimate.optional(),
    priority: taskPriority.optional(),
    labels: z.array(z.string().min(1).max(60)).max(30).optional(),
    checklist: checklistArg.optional(),
    dueDate: z.iso.date({ message: 'expected an ISO 8601 date, e.g. 2026-12-01' }).optional(),
    milestoneId: z.string().min(1).optional(),
  },
  output: task.extend({ outboxSeq: z.number().int() }),
  run: (args, ctx) => {
    const { db, vault } = ctx;
    if (args.milestoneId && !milestoneExists(db, vault.id, args.milestoneId))
      throw notFound('milestone', args.milestoneId, vault.name);
    const at = isoUtc(ctx.now);
    return ctx.commit(
      () => {
        const number = nextTaskNumber(db, vault.id);
        const identifier = `${vault.boardPrefix}-${number}`;
        insertTask(db, vault.id, {
          id: identifier,
          number,
          identifier,
          title: args.title,
          description: args.description ?? null,
          status: 'todo',
          assigneeName: args.assigneeName ?? null,
          estimate: args.estimate ?? null,
          priority: args.priority ?? 'none',
          labels: args.labels ?? [],
          checklist: args.checklist ?? [],
          dueDate: args.dueDate ?? null,
          milestoneId: args.milestoneId ?? null,
          createdAt: at,
          updatedAt: at,
        });
        return identifier;
      },
      (id, outboxSeq) => ({ ...findTask(db, vault.id, { taskId: id })!, outboxSeq }),
    );
  },
});
