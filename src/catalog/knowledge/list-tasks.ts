import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDate, isoDatetime, taskEstimate, taskPriority, taskStatus } from '../shapes.js';
import { listTasks, milestoneExists } from '../../store/plan.js';
import { notFound } from '../../service/errors.js';

export default defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  description:
    'Tasks of the project board: id, board identifier (e.g. `ACME-5`), status, owner, estimate, priority, labels, checklist, due date and milestone. Filter by `status` (todo, doing, done, blocked, or open = not done) and `milestoneId` (from list_milestones).',
  input: {
    status: z.enum(['todo', 'doing', 'done', 'blocked', 'open']).optional(),
    milestoneId: z.string().min(1).optional(),
  },
  output: z.object({
    tasks: z.array(
      z.object({
        id: z.string(),
        identifier: z.string(),
        number: z.number().int(),
        title: z.string(),
        description: z.string().nullable(),
        status: taskStatus,
        owner: z.string().nullable(),
        estimate: taskEstimate.nullable(),
        priority: taskPriority,
        labels: z.array(z.string()),
        checklist: z.array(z.object({ text: z.string(), done: z.boolean() })),
        dueDate: isoDate.nullable(),
        milestoneId: z.string().nullable(),
        milestoneTitle: z.string().nullable(),
        createdAt: isoDatetime,
        updatedAt: isoDatetime,
      }),
    ),
  }),
  run: ({ status, milestoneId }, { db, vault }) => {
    if (milestoneId && !milestoneExists(db, vault.id, milestoneId)) throw notFound('milestone', milestoneId, vault.name);
    return { tasks: listTasks(db, vault.id, { status, milestoneId }) };
  },
});
