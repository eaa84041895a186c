/** Writes of board tasks that sync makes (the reads are in plan.ts). */
import { json, sql, type Db } from './db.js';

export interface UpstreamTask {
  id: string;
  number: number;
  identifier: string;
  title: string;
  description: string | null;
  status: string;
  owner: string | null;
  estimate: string | null;
  priority: string;
  labels: string[];
  checklist: { text: string; done: boolean }[];
  dueDate: string | null;
  milestoneId: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The vault's board becomes upstream's, except the tasks created here and not pushed yet (`localOnly`); one
 * of those holding a number upstream has since used moves past them (its number is negated). Inside the
 * caller's transaction.
 */
export function replaceTasksFromUpstream(db: Db, vaultId: string, tasks: readonly UpstreamTask[], localOnly: ReadonlySet<string>): void {
  sql(db, 'DELETE FROM tasks WHERE vault_id = ? AND id NOT IN (SELECT value FROM json_each(?))').run(vaultId, JSON.stringify([...localOnly]));
  const taken = new Set(tasks.map((t) => t.number));
  for (const id of localOnly) {
    const n = sql(db, 'SELECT number FROM tasks WHERE vault_id = ? AND id = ?').pluck().get(vaultId, id) as number | undefined;
    if (n !== undefined && taken.has(n)) sql(db, 'UPDATE tasks SET number = -number WHERE vault_id = ? AND id = ?').run(vaultId, id);
  }
  const insert = sql(
    db,
    `INSERT OR REPLACE INTO tasks (vault_id, id, number, identifier, title, description, status, assignee_name, estimate, priority,
       labels_json, checklist_json, due_date, milestone_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const t of tasks) {
    insert.run(vaultId, t.id, t.number, t.identifier, t.title, t.description, t.status, t.owner, t.estimate, t.priority,
      json.write(t.labels), json.write(t.checklist), t.dueDate, t.milestoneId, t.createdAt, t.updatedAt);
  }
}
