/**
 * Entities read for export_report: whole rows in keyset pages (never all at once, never through an open
 * cursor), and the counts per type its header shows. Apart from entities.ts while that file is being reworked.
 */
import { sql, type Db } from './db.js';
import type { EntityRow } from './entities.js';

/** Most mentioned first (then by id); `after` is the last row of the previous page. */
export function entityPage(db: Db, vaultId: string, pageSize: number, after?: { mentionCount: number; id: string }): EntityRow[] {
  return (
    after
      ? sql(db, `SELECT * FROM entities WHERE vault_id = ? AND (mention_count < ? OR (mention_count = ? AND id > ?)) ORDER BY mention_count DESC, id LIMIT ${pageSize}`).all(vaultId, after.mentionCount, after.mentionCount, after.id)
      : sql(db, `SELECT * FROM entities WHERE vault_id = ? ORDER BY mention_count DESC, id LIMIT ${pageSize}`).all(vaultId)
  ) as EntityRow[];
}

/** Entities per type, most first. */
export function entityCountsByTypeDesc(db: Db, vaultId: string): { type: string; n: number }[] {
  return sql(db, 'SELECT type, count(*) AS n FROM entities WHERE vault_id = ? GROUP BY type ORDER BY n DESC').all(vaultId) as { type: string; n: number }[];
}
