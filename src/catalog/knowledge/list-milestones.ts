import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDate } from '../shapes.js';
import { listMilestones } from '../../store/plan.js';

export default defineTool({
  name: 'list_milestones',
  title: 'List milestones',
  description:
    'Milestones with their target date and task tallies (done / total), in date order. Use the ids as `milestoneId` for list_tasks, add_task and update_task.',
  input: {},
  output: z.object({
    milestones: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        description: z.string().nullable(),
        targetDate: isoDate.nullable(),
        tasksDone: z.number().int(),
        tasksTotal: z.number().int(),
      }),
    ),
  }),
  run: (_args, { db, vault }) => ({ milestones: listMilestones(db, vault.id) }),
});
