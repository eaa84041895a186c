/** Writes of milestones (their reads, with the task tallies, are in plan.ts). */
import { sql, type Db } from './db.js';

export interface MilestoneRecord {
  id: string;
  title: string;
  description: string | null;
  targetDate: string | null;
}

/** The vault's milestones become upstream's (inside the caller's transaction). */
export function replaceMilestonesFromUpstream(db: Db, vaultId: string, milestones: readonly MilestoneRecord[]): void {
  sql(db, 'DELETE FROM milestones WHERE vault_id = ?').run(vaultId);
  const insert = sql(db, 'INSERT INTO milestones (vault_id, id, title, description, target_date) VALUES (?, ?, ?, ?, ?)');
  for (const m of milestones) insert.run(vaultId, m.id, m.title, m.description, m.targetDate);
}
