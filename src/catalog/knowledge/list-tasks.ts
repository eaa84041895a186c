import { z } from 'zod';
import { defineTool } from '../define.js';
import { task, wordsQuery } from '../shapes.js';
import { listTasks, milestoneExists } from '../../store/plan.js';
import { notFound } from '../../core/errors.js';
import { matchWords } from '../word-match.js';

/** Whether a task is the one `ref` names: its id, its board identifier (`NWL-25`, any case) or its number. */
const isTask = (t: { id: string; identifier: string; number: number }, ref: string) =>
  t.id === ref || t.identifier.toUpperCase() === ref.trim().toUpperCase() || String(t.number) === ref.trim();

const taskText = (t: {
  identifier: string;
  title: string;
  description: string | null;
  labels: string[];
  owner: string | null;
}) => [t.identifier, t.title, t.description ?? '', t.labels.join(' '), t.owner ?? ''].join(' ');

export default defineTool({
  name: 'list_tasks',
  title: 'List tasks',
  description:
    'Tasks of the project board: id, board identifier (e.g. `ACME-5`), status, owner, estimate, priority, labels, checklist, due date and milestone. Filter by `status` (todo, doing, done, blocked, or open = not done) and `milestoneId` (from list_milestones); narrow by `ids` (board identifiers like `NWL-25`, ids or numbers) and by `query` (words of the title, description, labels or owner). `blockedBy` says what holds a task up, where the board records it.',
  input: {
    status: z.enum(['todo', 'doing', 'done', 'blocked', 'open']).optional(),
    milestoneId: z.string().min(1).optional(),
    ids: z
      .array(z.string().trim().min(1, 'must not be empty').max(100))
      .min(1)
      .max(50)
      .optional()
      .describe('only these tasks: board identifiers (`NWL-25`), task ids or numbers'),
    query: wordsQuery('tasks', 'title, description, labels, owner, identifier'),
  },
  output: z.object({
    tasks: z.array(task),
    unknownIds: z.array(z.string()).optional().describe('with `ids`: those that name no task of this board'),
  }),
  run: ({ status, milestoneId, ids, query }, { db, vault }) => {
    if (milestoneId && !milestoneExists(db, vault.id, milestoneId))
      throw notFound('milestone', milestoneId, vault.name);
    let tasks = listTasks(db, vault.id, { status, milestoneId });
    if (ids) {
      // Unknown refs are named, not fatal: a model asking for three tasks still gets the two that exist.
      const all = status || milestoneId ? listTasks(db, vault.id, {}) : tasks;
      const unknownIds = ids.filter((ref) => !all.some((t) => isTask(t, ref)));
      tasks = tasks.filter((t) => ids.some((ref) => isTask(t, ref)));
      if (query) tasks = matchWords(tasks, query, taskText);
      return { tasks, ...(unknownIds.length ? { unknownIds } : {}) };
    }
    if (query) tasks = matchWords(tasks, query, taskText);
    return { tasks };
  },
});
