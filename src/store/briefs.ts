/** Agent-written briefs. */
import { sql, type Db } from './db.js';

export function latestBrief(db: Db, vaultId: string, kind: string) {
  return sql(
    db,
    'SELECT id, kind, title, body_md AS markdown, created_at AS createdAt FROM briefs WHERE vault_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT 1',
  ).get(vaultId, kind) as { id: string; kind: 'daily'; title: string; markdown: string; createdAt: string } | undefined;
}

/** When the latest brief of each kind was written (what the vault's cached summary is built from). */
export function latestBriefsByKind(db: Db, vaultId: string) {
  return sql(db, 'SELECT kind, max(created_at) AS createdAt FROM briefs WHERE vault_id = ? GROUP BY kind').all(
    vaultId,
  ) as {
    kind: string;
    createdAt: string;
  }[];
}

/** Only the latest brief of each kind is published, so a synced vault keeps exactly those (inside the caller's transaction). */
export function replaceBriefsFromUpstream(
  db: Db,
  vaultId: string,
  briefs: readonly { id: string; kind: string; title: string; markdown: string; createdAt: string }[],
): void {
  sql(db, 'DELETE FROM briefs WHERE vault_id = ?').run(vaultId);
  const insert = sql(
    db,
    'INSERT INTO briefs (vault_id, id, kind, title, body_md, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const b of briefs) insert.run(vaultId, b.id, b.kind, b.title, b.markdown, b.createdAt);
}

export function insertBrief(
  db: Db,
  vaultId: string,
  b: { id: string; kind: string; title: string; markdown: string; createdAt: string },
): void {
  sql(db, 'INSERT INTO briefs (vault_id, id, kind, title, body_md, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    vaultId,
    b.id,
    b.kind,
    b.title,
    b.markdown,
    b.createdAt,
  );
}
