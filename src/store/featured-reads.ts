/**
 * Bounded reads for the deliverables that feature a few things (the deck, the findings PDF's summary): a page of
 * the open conflicts with their first claims, the open tasks and plan steps ahead, and what names a conflict.
 * Each returns at most the rows a page or slide shows, with the totals, so a vault of 100,000 conflicts, tasks
 * or plan steps (or one conflict of 15,000 claims) reads as fast as the demo's.
 */
import { sql, type Db } from './db.js';

export interface FeaturedClaimRow {
  speaker: string;
  quote: string;
  meetingId: string | null;
  meetingName: string | null;
  spokenAt: string | null;
  turnIndex: number | null;
}

export interface OpenConflictRow {
  id: string;
  entityId: string;
  entityName: string;
  title: string;
  note: string | null;
  createdAt: string;
  updatedAt: string;
  /** The first `claims` claims, in the order they were recorded. */
  claims: FeaturedClaimRow[];
  /** Claims the conflict holds, shown or not. */
  claimCount: number;
}

/** The first `limit` open conflicts by title, each with its first `claims` claims, and how many are open. */
export function openConflictsPage(
  db: Db,
  vaultId: string,
  limit: number,
  claims: number,
): { total: number; conflicts: OpenConflictRow[] } {
  const total = (
    sql(db, `SELECT count(*) AS n FROM conflicts WHERE vault_id = ? AND status = 'open'`).get(vaultId) as { n: number }
  ).n;
  const rows = sql(
    db,
    `SELECT c.id, c.entity_id AS entityId, e.name AS entityName, c.title, c.note, c.created_at AS createdAt, c.updated_at AS updatedAt
     FROM conflicts c JOIN entities e ON e.vault_id = c.vault_id AND e.id = c.entity_id
     WHERE c.vault_id = ? AND c.status = 'open' ORDER BY c.title COLLATE NOCASE, c.title, c.id LIMIT ?`,
  ).all(vaultId, limit) as Omit<OpenConflictRow, 'claims' | 'claimCount'>[];
  const firstClaims = sql(
    db,
    `SELECT cl.speaker, cl.quote, cl.meeting_id AS meetingId, m.name AS meetingName, cl.spoken_at AS spokenAt, cl.turn_index AS turnIndex
     FROM conflict_claims cl LEFT JOIN meetings m ON m.vault_id = cl.vault_id AND m.id = cl.meeting_id
     WHERE cl.vault_id = ? AND cl.conflict_id = ? ORDER BY cl.position LIMIT ?`,
  );
  const count = sql(db, 'SELECT count(*) AS n FROM conflict_claims WHERE vault_id = ? AND conflict_id = ?');
  return {
    total,
    conflicts: rows.map((r) => ({
      ...r,
      claims: firstClaims.all(vaultId, r.id, claims) as FeaturedClaimRow[],
      claimCount: (count.get(vaultId, r.id) as { n: number }).n,
    })),
  };
}

export interface OpenTaskRow {
  identifier: string;
  title: string;
  owner: string | null;
  dueDate: string | null;
  milestoneId: string | null;
  milestoneTitle: string | null;
  milestoneTarget: string | null;
}

/** The first `limit` open tasks (not done) by milestone target date (tasks without one last), then number. */
export function openTasksPage(db: Db, vaultId: string, limit: number): OpenTaskRow[] {
  return sql(
    db,
    `SELECT t.identifier, t.title, t.assignee_name AS owner, t.due_date AS dueDate, t.milestone_id AS milestoneId,
            m.title AS milestoneTitle, m.target_date AS milestoneTarget
     FROM tasks t LEFT JOIN milestones m ON m.vault_id = t.vault_id AND m.id = t.milestone_id
     WHERE t.vault_id = ? AND t.status <> 'done'
     ORDER BY m.id IS NULL, m.target_date IS NULL, m.target_date, m.id, t.number LIMIT ?`,
  ).all(vaultId, limit) as OpenTaskRow[];
}

export interface PlanStepAhead {
  title: string;
  status: string;
  dueDate: string | null;
}

/** The first `limit` plan steps not done or skipped, in plan order, and how many there are. */
export function planStepsAhead(db: Db, vaultId: string, limit: number): { total: number; steps: PlanStepAhead[] } {
  const ahead = `vault_id = ? AND status NOT IN ('done', 'skipped')`;
  return {
    total: (sql(db, `SELECT count(*) AS n FROM plan_steps WHERE ${ahead}`).get(vaultId) as { n: number }).n,
    steps: sql(
      db,
      `SELECT title, status, due_date AS dueDate FROM plan_steps WHERE ${ahead} ORDER BY position LIMIT ?`,
    ).all(vaultId, limit) as PlanStepAhead[],
  };
}

export interface NextStep {
  kind: 'task' | 'plan step';
  /** The task's board identifier; none for a plan step. */
  identifier: string | null;
  title: string;
  owner: string | null;
  dueDate: string | null;
  status: string;
}

/**
 * The open task (first by number), else the plan step ahead (first in plan order), whose title or description
 * names one of `names` (a conflict's id, the finding it is about), case-insensitively; undefined when none does.
 * Reads at most one row of each.
 */
export function nextStepNaming(db: Db, vaultId: string, names: readonly string[]): NextStep | undefined {
  // Hyphens count as spaces on both sides: a task says "pick-rate definitions" of the conflict "pick rate".
  const needles = names
    .map((n) => n.trim().toLowerCase().replace(/-/g, ' ').replace(/\s+/g, ' '))
    .filter((n) => n.length >= 3);
  if (!needles.length) return undefined;
  const names_ = needles
    .map(() => `instr(replace(lower(title || ' ' || coalesce(description, '')), '-', ' '), ?) > 0`)
    .join(' OR ');
  const task = sql(
    db,
    `SELECT identifier, title, assignee_name AS owner, due_date AS dueDate, status FROM tasks
     WHERE vault_id = ? AND status <> 'done' AND (${names_}) ORDER BY number LIMIT 1`,
  ).get(vaultId, ...needles) as Omit<NextStep, 'kind'> | undefined;
  if (task) return { kind: 'task', ...task };
  const step = sql(
    db,
    `SELECT title, proposer_name AS owner, due_date AS dueDate, status FROM plan_steps
     WHERE vault_id = ? AND status NOT IN ('done', 'skipped') AND (${names_}) ORDER BY position LIMIT 1`,
  ).get(vaultId, ...needles) as Omit<NextStep, 'kind' | 'identifier'> | undefined;
  return step ? { kind: 'plan step', identifier: null, ...step } : undefined;
}

/** Findings of `type` with exactly `mentions` mentions (the ties at the end of a ranking). */
export function findingsWithMentions(db: Db, vaultId: string, type: string, mentions: number): number {
  return (
    sql(db, 'SELECT count(*) AS n FROM entities WHERE vault_id = ? AND type = ? AND mention_count = ?').get(
      vaultId,
      type,
      mentions,
    ) as { n: number }
  ).n;
}

/**
 * Where the findings of `types` are: each department (a site is one) linked to them by an edge, either way,
 * with how many of them it is linked to and their mentions added up, most mentioned first; the first `limit`.
 * Empty when no finding of those types is linked to a department (neither demo vault links them).
 */
export function mentionsByDepartment(
  db: Db,
  vaultId: string,
  types: readonly string[],
  limit: number,
): { name: string; findings: number; mentions: number }[] {
  if (!types.length) return [];
  const inTypes = types.map((_, i) => `@t${i}`).join(', ');
  return sql(
    db,
    `WITH departments AS (SELECT id, name FROM entities WHERE vault_id = @v AND type = 'department'),
     links AS (
       SELECT d.id AS department, d.name, e.target_id AS finding FROM departments d JOIN edges e ON e.vault_id = @v AND e.source_id = d.id
       UNION
       SELECT d.id, d.name, e.source_id FROM departments d JOIN edges e ON e.vault_id = @v AND e.target_id = d.id
     )
     SELECT l.name, count(*) AS findings, sum(f.mention_count) AS mentions
     FROM links l JOIN entities f ON f.vault_id = @v AND f.id = l.finding AND f.type IN (${inTypes})
     GROUP BY l.department ORDER BY mentions DESC, l.name LIMIT @limit`,
  ).all({ v: vaultId, limit, ...Object.fromEntries(types.map((t, i) => [`t${i}`, t])) }) as {
    name: string;
    findings: number;
    mentions: number;
  }[];
}
