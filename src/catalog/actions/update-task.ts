import { z } from 'zod';
import { defineTool } from '../define.js';
import { task, taskEstimate, taskPriority, taskStatus } from '../shapes.js';
import { findTask, milestoneExists, TASK_COLUMNS, updateTask } from '../../store/plan.js';
import { invalidArgument, notFound, quoted } from '../../core/errors.js';
import { checklistArg } from './add-task.js';
import { isoUtc } from '../../time.js';

/** The fields a caller may change, in the order `changed` lists them. */
const FIELDS = Object.keys(TASK_COLUMNS) as (keyof typeof TASK_COLUMNS)[];

export default defineTool({
  name: 'update_task',
  title: 'Update a task',
  description:
    'Changes a task found by `identifier` (board identifier like `ACME-5`, or its number 5) or `taskId` (both at once must name the same task). Only the fields given change; `null` clears description, assigneeName, estimate, dueDate and milestoneId; `[]` clears labels and checklist. Status: todo, doing, done, blocked.',
  access: 'manager',
  sync: { references: { taskId: 'task', identifier: 'task-identifier' } },
  annotations: { readOnlyHint: false, idempotentHint: true },
  input: {
    identifier: z
      .union([z.string().min(1), z.number().int().positive()])
      .optional()
      .describe('board identifier (ACME-5) or number (5)'),
    taskId: z.string().min(1).optional(),
    title: z.string().min(1).max(300).optional(),
    description: z.string().max(20_000).nullable().optional(),
    status: taskStatus.optional(),
    assigneeName: z.string().min(1).max(200).nullable().optional(),
    estimate: taskEstimate.nullable().optional(),
    priority: taskPriority.optional(),
    labels: z.array(z.string().min(1).max(60)).max(30).optional(),
    checklist: checklistArg.optional(),
    dueDate: z.iso.date({ message: 'expected an ISO 8601 date, e.g. 2026-12-01' }).nullable().optional(),
    milestoneId: z.string().min(1).nullable().optional(),
  },
  output: task.extend({ changed: z.array(z.string()), outboxSeq: z.number().int() }),
  run: (args, ctx) => {
    const { db, vault } = ctx;
    if (args.identifier === undefined && args.taskId === undefined)
      throw invalidArgument('identifier', 'give `identifier` (e.g. "ACME-5" or 5) or `taskId`');
    const byId = args.taskId !== undefined ? findTask(db, vault.id, { taskId: args.taskId }) : undefined;
    const byIdentifier =
      args.identifier === undefined
        ? undefined
        : findTask(
            db,
            vault.id,
            typeof args.identifier === 'number' ? { number: args.identifier } : { identifier: args.identifier },
          );
    if (args.taskId !== undefined && !byId) throw notFound('task', args.taskId, vault.name);
    if (args.identifier !== undefined && !byIdentifier) throw notFound('task', String(args.identifier), vault.name);
    // Both given must name one task: changing either one when they disagree would change a task the caller did not mean.
    if (byId && byIdentifier && byId.id !== byIdentifier.id) {
      throw invalidArgument(
        'identifier',
        `${JSON.stringify(args.identifier)} names task ${byIdentifier.identifier}, but \`taskId\` ${quoted(args.taskId ?? '')} names task ${byId.identifier}; give one of \`identifier\` and \`taskId\`, or two that name the same task`,
      );
    }
    const before = (byId ?? byIdentifier)!;
    if (args.milestoneId && !milestoneExists(db, vault.id, args.milestoneId))
      throw notFound('milestone', args.milestoneId, vault.name);
    const changed = FIELDS.filter((k) => args[k] !== undefined);
    if (!changed.length)
      throw invalidArgument('identifier', `nothing to change: give at least one of ${FIELDS.join(', ')}`);
    return ctx.commit(
      () => updateTask(db, vault.id, before.id, args, isoUtc(ctx.now)),
      (_, outboxSeq) => ({ ...findTask(db, vault.id, { taskId: before.id })!, changed, outboxSeq }),
    );
  },
});
