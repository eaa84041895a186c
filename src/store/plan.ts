/** The delivery plan: milestones, tasks and the mutual action plan's steps. */
import { json, sql, type Db } from './db.js';

interface TaskRow {
  id: string;
  number: number;
  identifier: string;
  title: string;
  description: string | null;
  status: string;
  assignee_name: string | null;
  estimate: string | null;
  priority: string;
  labels_json: string;
  checklist_json: string;
  due_date: string | null;
  milestone_id: string | null;
  milestone_title: string | null;
  blocked_by_json: string | null;
  created_at: string;
  updated_at: string;
}

/** A blocker as the board records it (src/vault-format/schema.ts, taskBlockerSchema). */
export interface TaskBlocker {
  task?: number;
  person?: string;
  eventId?: string;
  note?: string;
  dueDate?: string;
}

/** Records what blocks a task (replacing what was recorded). */
export function setTaskBlockers(db: Db, vaultId: string, taskId: string, blockers: readonly TaskBlocker[]): void {
  sql(db, 'UPDATE tasks SET blocked_by_json = ? WHERE vault_id = ? AND id = ?').run(
    blockers.length ? json.write(blockers) : null,
    vaultId,
    taskId,
  );
}

/**
 * A task's blockers as list_tasks shows them: what each is (a task of the board with its title and status, a
 * person, an event with its title), when it is expected to clear (the blocking task's due date, the event's
 * day, or the date recorded), and whether that is after the blocked task's own due date.
 */
function blockersOf(db: Db, vaultId: string, t: TaskRow) {
  if (!t.blocked_by_json) return undefined;
  const taskBy = sql(db, 'SELECT identifier, title, status, due_date FROM tasks WHERE vault_id = ? AND number = ?');
  const eventBy = sql(db, 'SELECT title, start_at FROM calendar_events WHERE vault_id = ? AND id = ?');
  return json.read<TaskBlocker[]>(t.blocked_by_json).map((b) => {
    const other =
      b.task === undefined
        ? undefined
        : (taskBy.get(vaultId, b.task) as
            | { identifier: string; title: string; status: string; due_date: string | null }
            | undefined);
    const event =
      b.eventId === undefined
        ? undefined
        : (eventBy.get(vaultId, b.eventId) as { title: string; start_at: string } | undefined);
    const kind =
      b.task !== undefined ? ('task' as const) : b.eventId !== undefined ? ('event' as const) : ('person' as const);
    const dueDate = b.dueDate ?? other?.due_date ?? event?.start_at.slice(0, 10) ?? null;
    return {
      kind,
      ref: kind === 'task' ? (other?.identifier ?? String(b.task)) : kind === 'event' ? b.eventId! : null,
      name:
        kind === 'task'
          ? (other?.title ?? `task ${b.task}`)
          : kind === 'event'
            ? (event?.title ?? b.eventId!)
            : b.person!,
      status: other ? (other.status as 'todo') : null,
      note: b.note ?? null,
      dueDate,
      afterDueDate: !!(dueDate && t.due_date && dueDate > t.due_date),
    };
  });
}

export function listTasks(db: Db, vaultId: string, filter: { status?: string; milestoneId?: string }) {
  const rows = sql(
    db,
    `SELECT t.*, m.title AS milestone_title FROM tasks t
     LEFT JOIN milestones m ON m.vault_id = t.vault_id AND m.id = t.milestone_id
     WHERE t.vault_id = @v
       AND (@status IS NULL OR (@status = 'open' AND t.status <> 'done') OR t.status = @status)
       AND (@milestone IS NULL OR t.milestone_id = @milestone)
     ORDER BY t.number`,
  ).all({ v: vaultId, status: filter.status ?? null, milestone: filter.milestoneId ?? null }) as TaskRow[];
  return rows.map((r) => toTask(r, blockersOf(db, vaultId, r)));
}

/** A task by its id, board identifier (`ACME-5`, any case) or number. */
export function findTask(db: Db, vaultId: string, ref: { taskId?: string; identifier?: string; number?: number }) {
  const row = sql(
    db,
    `SELECT t.*, m.title AS milestone_title FROM tasks t
     LEFT JOIN milestones m ON m.vault_id = t.vault_id AND m.id = t.milestone_id
     WHERE t.vault_id = @v AND ((@id IS NOT NULL AND t.id = @id) OR (@identifier IS NOT NULL AND upper(t.identifier) = upper(@identifier))
       OR (@number IS NOT NULL AND t.number = @number))`,
  ).get({ v: vaultId, id: ref.taskId ?? null, identifier: ref.identifier ?? null, number: ref.number ?? null }) as
    | TaskRow
    | undefined;
  return row && toTask(row, blockersOf(db, vaultId, row));
}

export function nextTaskNumber(db: Db, vaultId: string): number {
  return sql(db, 'SELECT coalesce(max(number), 0) + 1 FROM tasks WHERE vault_id = ?').pluck().get(vaultId) as number;
}

function toTask(t: TaskRow, blockedBy?: ReturnType<typeof blockersOf>) {
  return {
    id: t.id,
    identifier: t.identifier,
    number: t.number,
    title: t.title,
    description: t.description,
    status: t.status as 'todo',
    owner: t.assignee_name,
    estimate: t.estimate as 'm' | null,
    priority: t.priority as 'none',
    labels: json.read(t.labels_json),
    checklist: json.read<{ text: string; done: boolean }[]>(t.checklist_json),
    dueDate: t.due_date,
    milestoneId: t.milestone_id,
    milestoneTitle: t.milestone_title,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    ...(blockedBy ? { blockedBy } : {}),
  };
}

export function taskCountsByStatus(db: Db, vaultId: string) {
  return sql(db, 'SELECT status, count(*) AS n FROM tasks WHERE vault_id = ? GROUP BY status').all(vaultId) as {
    status: string;
    n: number;
  }[];
}

export function milestoneExists(db: Db, vaultId: string, id: string): boolean {
  return sql(db, 'SELECT 1 FROM milestones WHERE vault_id = ? AND id = ?').get(vaultId, id) !== undefined;
}

export function listMilestones(db: Db, vaultId: string) {
  return sql(
    db,
    `SELECT m.id, m.title, m.description, m.target_date AS targetDate,
            coalesce(sum(t.status = 'done'), 0) AS tasksDone, count(t.id) AS tasksTotal
     FROM milestones m LEFT JOIN tasks t ON t.vault_id = m.vault_id AND t.milestone_id = m.id
     WHERE m.vault_id = ? GROUP BY m.id ORDER BY m.target_date, m.id`,
  ).all(vaultId) as {
    id: string;
    title: string;
    description: string | null;
    targetDate: string | null;
    tasksDone: number;
    tasksTotal: number;
  }[];
}

export function listPlanSteps(db: Db, vaultId: string) {
  return sql(
    db,
    `SELECT id, position, title, description, status, proposed_by AS proposedBy, proposer_name AS proposerName,
            start_date AS startDate, due_date AS dueDate
     FROM plan_steps WHERE vault_id = ? ORDER BY position`,
  ).all(vaultId) as {
    id: string;
    position: number;
    title: string;
    description: string | null;
    status: 'planned';
    proposedBy: 'agent' | 'person';
    proposerName: string | null;
    startDate: string | null;
    dueDate: string | null;
  }[];
}

export interface PlanStepRecord {
  id: string;
  position: number;
  title: string;
  description: string | null;
  status: string;
  proposedBy: 'agent' | 'person';
  proposerName: string | null;
  startDate: string | null;
  dueDate: string | null;
}

/** The vault's plan becomes upstream's (inside the caller's transaction). */
export function replacePlanStepsFromUpstream(db: Db, vaultId: string, steps: readonly PlanStepRecord[]): void {
  sql(db, 'DELETE FROM plan_steps WHERE vault_id = ?').run(vaultId);
  const insert = sql(
    db,
    `INSERT INTO plan_steps (vault_id, id, position, title, description, status, proposed_by, proposer_name, start_date, due_date)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const s of steps)
    insert.run(
      vaultId,
      s.id,
      s.position,
      s.title,
      s.description,
      s.status,
      s.proposedBy,
      s.proposerName,
      s.startDate,
      s.dueDate,
    );
}

export interface NewTask {
  id: string;
  number: number;
  identifier: string;
  title: string;
  description: string | null;
  status: string;
  assigneeName: string | null;
  estimate: string | null;
  priority: string;
  labels: string[];
  checklist: { text: string; done: boolean }[];
  dueDate: string | null;
  milestoneId: string | null;
  createdAt: string;
  updatedAt: string;
}

const writeTaskSql = (verb: 'INSERT' | 'INSERT OR REPLACE') =>
  `${verb} INTO tasks (vault_id, id, number, identifier, title, description, status, assignee_name, estimate, priority,
     labels_json, checklist_json, due_date, milestone_id, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const taskValues = (vaultId: string, t: NewTask) => [
  vaultId,
  t.id,
  t.number,
  t.identifier,
  t.title,
  t.description,
  t.status,
  t.assigneeName,
  t.estimate,
  t.priority,
  json.write(t.labels),
  json.write(t.checklist),
  t.dueDate,
  t.milestoneId,
  t.createdAt,
  t.updatedAt,
];

/** One task row, as add_task and the vault loader write it. */
export function insertTask(db: Db, vaultId: string, t: NewTask): void {
  sql(db, writeTaskSql('INSERT')).run(...taskValues(vaultId, t));
}

/**
 * The vault's board becomes upstream's, except the tasks created here and not pushed yet (`localOnly`); one
 * of those holding a number upstream has since used moves past them (its number is negated). Inside the
 * caller's transaction.
 */
export function replaceTasksFromUpstream(
  db: Db,
  vaultId: string,
  tasks: readonly NewTask[],
  localOnly: ReadonlySet<string>,
): void {
  sql(db, 'DELETE FROM tasks WHERE vault_id = ? AND id NOT IN (SELECT value FROM json_each(?))').run(
    vaultId,
    JSON.stringify([...localOnly]),
  );
  const taken = new Set(tasks.map((t) => t.number));
  for (const id of localOnly) {
    const n = sql(db, 'SELECT number FROM tasks WHERE vault_id = ? AND id = ?').pluck().get(vaultId, id) as
      | number
      | undefined;
    if (n !== undefined && taken.has(n))
      sql(db, 'UPDATE tasks SET number = -number WHERE vault_id = ? AND id = ?').run(vaultId, id);
  }
  const insert = sql(db, writeTaskSql('INSERT OR REPLACE'));
  for (const t of tasks) insert.run(...taskValues(vaultId, t));
}

/** The task fields update_task may change, and their columns; `_json` columns hold arrays. */
export const TASK_COLUMNS = {
  title: 'title',
  description: 'description',
  status: 'status',
  assigneeName: 'assignee_name',
  estimate: 'estimate',
  priority: 'priority',
  labels: 'labels_json',
  checklist: 'checklist_json',
  dueDate: 'due_date',
  milestoneId: 'milestone_id',
} as const;

export type TaskChanges = {
  [K in keyof typeof TASK_COLUMNS]?: K extends 'labels' | 'checklist' ? unknown[] : string | null;
};

/** Sets the given fields (only those) and `updated_at`. */
export function updateTask(db: Db, vaultId: string, id: string, changes: TaskChanges, at: string): void {
  const fields = (Object.keys(TASK_COLUMNS) as (keyof typeof TASK_COLUMNS)[]).filter((k) => changes[k] !== undefined);
  const sets = fields.map((k) => `${TASK_COLUMNS[k]} = @${k}`).join(', ');
  const values: Record<string, unknown> = { v: vaultId, id, at };
  for (const k of fields) values[k] = k === 'labels' || k === 'checklist' ? json.write(changes[k]) : changes[k];
  sql(db, `UPDATE tasks SET ${sets}, updated_at = @at WHERE vault_id = @v AND id = @id`).run(values);
}

export interface MilestoneRecord {
  id: string;
  title: string;
  description: string | null;
  targetDate: string | null;
}

export function insertMilestone(db: Db, vaultId: string, m: MilestoneRecord): void {
  sql(db, 'INSERT INTO milestones (vault_id, id, title, description, target_date) VALUES (?, ?, ?, ?, ?)').run(
    vaultId,
    m.id,
    m.title,
    m.description,
    m.targetDate,
  );
}

/** The vault's milestones become upstream's (inside the caller's transaction). */
export function replaceMilestonesFromUpstream(db: Db, vaultId: string, milestones: readonly MilestoneRecord[]): void {
  sql(db, 'DELETE FROM milestones WHERE vault_id = ?').run(vaultId);
  for (const m of milestones) insertMilestone(db, vaultId, m);
}

export function insertPlanStep(
  db: Db,
  vaultId: string,
  s: {
    id: string;
    position: number;
    title: string;
    description: string | null;
    status: string;
    proposedBy: string;
    proposerName: string | null;
    startDate: string | null;
    dueDate: string | null;
  },
): void {
  sql(
    db,
    `INSERT INTO plan_steps (vault_id, id, position, title, description, status, proposed_by, proposer_name, start_date, due_date)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    vaultId,
    s.id,
    s.position,
    s.title,
    s.description,
    s.status,
    s.proposedBy,
    s.proposerName,
    s.startDate,
    s.dueDate,
  );
}
