import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDate, planStepStatus } from '../shapes.js';
import { listPlanSteps } from '../../store/plan.js';

export default defineTool({
  name: 'list_plan_steps',
  title: 'List mutual action plan steps',
  description:
    'The mutual action plan timeline (macro project steps) in order: status (planned, in-progress, done, at-risk, skipped) and whether the agent or a person proposed each step.',
  input: {},
  output: z.object({
    steps: z.array(
      z.object({
        id: z.string(),
        position: z.number().int(),
        title: z.string(),
        description: z.string().nullable(),
        status: planStepStatus,
        proposedBy: z.enum(['agent', 'person']),
        proposerName: z.string().nullable(),
        startDate: isoDate.nullable(),
        dueDate: isoDate.nullable(),
      }),
    ),
  }),
  run: (_args, { db, vault }) => ({ steps: listPlanSteps(db, vault.id) }),
});
