/**
 * Entities read for export_report: whole rows in keyset pages (never all at once, never through an open
 * cursor), and the counts per type its header shows. Apart from entities.ts while that file is being reworked.
 */
import { sql, type Db } from './db.js';
import type { EntityRow } from './entities.js';

/**
 * Most mentioned first (then by id), of one type when `type` is given; `after` is the last row of the previous
 * page. `mention_count <= ?` is there for the index: it lets SQLite seek to the page's start in
 * entities_mentions, where the OR alone made every page scan the index from its first row.
 */
export function entityPage(
  db: Db,
  vaultId: string,
  pageSize: number,
  after?: { mentionCount: number; id: string },
  type?: string,
): EntityRow[] {
  const ofType = type === undefined ? '' : ' AND type = ?';
  const typeArg = type === undefined ? [] : [type];
  return (
    after
      ? sql(
          db,
          `SELECT * FROM entities WHERE vault_id = ?${ofType} AND mention_count <= ? AND (mention_count < ? OR id > ?) ORDER BY mention_count DESC, id LIMIT ${pageSize}`,
        ).all(vaultId, ...typeArg, after.mentionCount, after.mentionCount, after.id)
      : sql(
          db,
          `SELECT * FROM entities WHERE vault_id = ?${ofType} ORDER BY mention_count DESC, id LIMIT ${pageSize}`,
        ).all(vaultId, ...typeArg)
  ) as EntityRow[];
}

/** Entities per type, most first. */
export function entityCountsByTypeDesc(db: Db, vaultId: string): { type: string; n: number }[] {
  return sql(db, 'SELECT type, count(*) AS n FROM entities WHERE vault_id = ? GROUP BY type ORDER BY n DESC').all(
    vaultId,
  ) as { type: string; n: number }[];
}

/** Findings per day they were first seen (UTC date), oldest first: a deck's chart of how discovery went. */
export function entitiesFirstSeenPerDay(db: Db, vaultId: string): { day: string; n: number }[] {
  return sql(
    db,
    'SELECT substr(first_seen_at, 1, 10) AS day, count(*) AS n FROM entities WHERE vault_id = ? GROUP BY day ORDER BY day',
  ).all(vaultId) as { day: string; n: number }[];
}
