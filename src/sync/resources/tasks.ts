/** Board tasks of every status (list_tasks with no filter). The board prefix follows the identifiers (`ACME-5`). */
import { z } from 'zod';
import { json, sql } from '../../store/db.js';
import { clearExcept, optionalString, orDefault, pullList, readTool, stringList, type PullContext } from './common.js';

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
  createdAt: z.string(),
  updatedAt: z.string(),
};

export function pullTasks(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'tasks',
    task,
    async () => (await readTool<{ tasks?: unknown }>(ctx, 'list_tasks', { vault: vaultId })).tasks,
    (records) => {
      const localOnly = ctx.localOnly('task');
      clearExcept(db, 'tasks', vaultId, localOnly);
      const insert = sql(
        db,
        `INSERT OR REPLACE INTO tasks (vault_id, id, number, identifier, title, description, status, assignee_name, estimate, priority,
           labels_json, checklist_json, due_date, milestone_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      // A task created here and not pushed yet may hold a number upstream has since used: it moves past them.
      const taken = new Set(records.map((r) => r.item.number));
      for (const id of localOnly) {
        const n = sql(db, 'SELECT number FROM tasks WHERE vault_id = ? AND id = ?').pluck().get(vaultId, id) as number | undefined;
        if (n !== undefined && taken.has(n)) sql(db, 'UPDATE tasks SET number = -number WHERE vault_id = ? AND id = ?').run(vaultId, id);
      }
      for (const { item: t } of records) {
        insert.run(vaultId, t.id, t.number, t.identifier, t.title, t.description, t.status, t.owner, t.estimate, t.priority,
          json.write(t.labels), json.write(t.checklist), t.dueDate, t.milestoneId, t.createdAt, t.updatedAt);
      }
      const prefix = /^(.+)-\d+$/.exec(records[0]?.item.identifier ?? '')?.[1];
      if (prefix) sql(db, 'UPDATE vaults SET board_prefix = ? WHERE id = ?').run(prefix, vaultId);
    },
  );
}
