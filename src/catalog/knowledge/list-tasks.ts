import { z } from 'zod';
import { defineTool } from '../define.js';
import { task } from '../shapes.js';
import { listTasks, milestoneExists } from '../../store/plan.js';
import { notFound } from '../../core/errors.js';

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
    tasks: z.array(task),
  }),
  run: ({ status, milestoneId }, { db, vault }) => {
    if (milestoneId && !milestoneExists(db, vault.id, milestoneId)) throw notFound('milestone', milestoneId, vault.name);
    return { tasks: listTasks(db, vault.id, { status, milestoneId }) };
  },
});
