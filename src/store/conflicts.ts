/** Conflicts: two or more claims about one entity that cannot all be true. */
import { sql, type Db } from './db.js';
import { entityIds } from './entities.js';

interface ConflictRow {
  id: string;
  entity_id: string;
  entity_name: string;
  title: string;
  status: 'open' | 'resolved' | 'dismissed';
  note: string | null;
  created_at: string;
  updated_at: string;
}

export type ConflictFilter = { status: 'open' | 'resolved' | 'dismissed' | 'all'; entityId?: string };

/** Each claim's turn in its meeting, by position, for one conflict (what list_conflicts reads the claim's sentences from). */
export function claimTurns(db: Db, vaultId: string, conflictId: string): (number | null)[] {
  return sql(db, 'SELECT turn_index FROM conflict_claims WHERE vault_id = ? AND conflict_id = ? ORDER BY position')
    .pluck()
    .all(vaultId, conflictId) as (number | null)[];
}

export function listConflicts(db: Db, vaultId: string, filter: ConflictFilter) {
  // Only the conditions the filter has, so an entity's conflicts are found by its index (get_entity asks on every call).
  const where = [
    'c.vault_id = @v',
    filter.status === 'all' ? '' : 'c.status = @status',
    filter.entityId === undefined ? '' : 'c.entity_id = @entity',
  ];
  const rows = sql(
    db,
    `SELECT c.*, e.name AS entity_name FROM conflicts c JOIN entities e ON e.vault_id = c.vault_id AND e.id = c.entity_id
     WHERE ${where.filter(Boolean).join(' AND ')}`,
  ).all({
    v: vaultId,
    ...(filter.status === 'all' ? {} : { status: filter.status }),
    ...(filter.entityId === undefined ? {} : { entity: filter.entityId }),
  }) as ConflictRow[];
  // Most recently updated first; sorted here: an SQL sort costs ~7 µs to set up, more than a few rows cost to sort.
  rows.sort((a, b) =>
    a.updated_at > b.updated_at ? -1 : a.updated_at < b.updated_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const claims = sql(
    db,
    `SELECT cl.speaker, cl.quote, cl.meeting_id AS meetingId, m.name AS meetingName, cl.spoken_at AS spokenAt
     FROM conflict_claims cl LEFT JOIN meetings m ON m.vault_id = cl.vault_id AND m.id = cl.meeting_id
     WHERE cl.vault_id = ? AND cl.conflict_id = ? ORDER BY cl.position`,
  );
  return rows.map((r) => ({
    id: r.id,
    entityId: r.entity_id,
    entityName: r.entity_name,
    title: r.title,
    status: r.status,
    note: r.note,
    claims: claims.all(vaultId, r.id) as {
      speaker: string;
      quote: string;
      meetingId: string | null;
      meetingName: string | null;
      spokenAt: string | null;
    }[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}

export interface UpstreamConflict {
  id: string;
  entityId: string;
  title: string;
  status: 'open' | 'resolved' | 'dismissed';
  note: string | null;
  claims: {
    speaker: string;
    quote: string;
    meetingId: string | null;
    spokenAt: string | null;
    turnIndex: number | null;
  }[];
  createdAt: string;
  updatedAt: string;
}

/**
 * The vault's conflicts become upstream's, with their claims (inside the caller's transaction). A conflict
 * about an entity the vault does not have is not stored: those are returned.
 */
export function replaceConflictsFromUpstream(
  db: Db,
  vaultId: string,
  conflicts: readonly UpstreamConflict[],
): UpstreamConflict[] {
  sql(db, 'DELETE FROM conflicts WHERE vault_id = ?').run(vaultId);
  const known = new Set(entityIds(db, vaultId));
  const insert = sql(
    db,
    'INSERT INTO conflicts (vault_id, id, entity_id, title, status, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertClaim = sql(
    db,
    'INSERT INTO conflict_claims (vault_id, conflict_id, position, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const unknown: UpstreamConflict[] = [];
  for (const c of conflicts) {
    if (!known.has(c.entityId)) {
      unknown.push(c);
      continue;
    }
    insert.run(vaultId, c.id, c.entityId, c.title, c.status, c.note, c.createdAt, c.updatedAt);
    c.claims.forEach((cl, i) =>
      insertClaim.run(vaultId, c.id, i, cl.meetingId, cl.turnIndex, cl.speaker, cl.quote, cl.spokenAt),
    );
  }
  return unknown;
}

type ConflictStatus = ConflictRow['status'];

export interface ClaimInput {
  meetingId: string;
  turnIndex: number;
  speaker: string;
  quote: string;
  spokenAt: string;
}

/** A conflict and its claims, in their order. */
export function insertConflict(
  db: Db,
  vaultId: string,
  c: {
    id: string;
    entityId: string;
    title: string;
    status: ConflictStatus;
    note: string | null;
    createdAt: string;
    updatedAt: string;
    claims: ClaimInput[];
  },
): void {
  sql(
    db,
    'INSERT INTO conflicts (vault_id, id, entity_id, title, status, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(vaultId, c.id, c.entityId, c.title, c.status, c.note, c.createdAt, c.updatedAt);
  const claim = sql(
    db,
    `INSERT INTO conflict_claims (vault_id, conflict_id, position, meeting_id, turn_index, speaker, quote, spoken_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  c.claims.forEach((cl, i) =>
    claim.run(vaultId, c.id, i, cl.meetingId, cl.turnIndex, cl.speaker, cl.quote, cl.spokenAt),
  );
}

export function getConflictStatus(db: Db, vaultId: string, id: string): ConflictStatus | undefined {
  return sql(db, 'SELECT status FROM conflicts WHERE vault_id = ? AND id = ?').pluck().get(vaultId, id) as
    | ConflictStatus
    | undefined;
}

/** The note belongs to the status: a new status without a note clears the old one. */
export function setConflictStatus(
  db: Db,
  vaultId: string,
  id: string,
  change: { status: ConflictStatus; note: string | null; at: string },
): void {
  sql(db, 'UPDATE conflicts SET status = ?, note = ?, updated_at = ? WHERE vault_id = ? AND id = ?').run(
    change.status,
    change.note,
    change.at,
    vaultId,
    id,
  );
}

export interface HistoryEntry {
  at: string;
  fromStatus: ConflictStatus | null;
  toStatus: ConflictStatus;
  note: string | null;
  by: string | null;
}

export function appendConflictHistory(db: Db, vaultId: string, conflictId: string, h: HistoryEntry): void {
  sql(
    db,
    'INSERT INTO conflict_history (vault_id, conflict_id, at, from_status, to_status, note, actor) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(vaultId, conflictId, h.at, h.fromStatus, h.toStatus, h.note, h.by);
}

/** Oldest first. */
export function conflictHistory(db: Db, vaultId: string, conflictId: string): HistoryEntry[] {
  return sql(
    db,
    'SELECT at, from_status AS fromStatus, to_status AS toStatus, note, actor AS by FROM conflict_history WHERE vault_id = ? AND conflict_id = ? ORDER BY at, rowid',
  ).all(vaultId, conflictId) as HistoryEntry[];
}
