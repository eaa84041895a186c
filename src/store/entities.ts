/** Entities (findings), their names, edges, evidence and mentions. */
import { cachedRead, json, sql, type Db } from './db.js';
import type { ENTITY_SOURCES, ENTITY_TYPES } from '../fixtures/schema.js';

export type EntityType = (typeof ENTITY_TYPES)[number];
export type EntitySource = (typeof ENTITY_SOURCES)[number];

export interface EntityRow {
  id: string;
  type: EntityType;
  name: string;
  aliases_json: string;
  description: string;
  source: EntitySource;
  mention_count: number;
  first_seen_at: string;
  last_mentioned_at: string | null;
}

export const toFinding = (r: EntityRow) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  description: r.description,
  aliases: json.read(r.aliases_json),
  source: r.source,
  mentionCount: r.mention_count,
  firstSeenAt: r.first_seen_at,
  lastMentionedAt: r.last_mentioned_at,
});

/** The compact item of the catalog: exactly {id, name, type, mentionCount, lastMentionedAt}. */
export const toCompactFinding = (r: EntityRow) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  mentionCount: r.mention_count,
  lastMentionedAt: r.last_mentioned_at,
});

export function getEntityRow(db: Db, vaultId: string, id: string): EntityRow | undefined {
  return sql(db, 'SELECT * FROM entities WHERE vault_id = ? AND id = ?').get(vaultId, id) as EntityRow | undefined;
}

export function getEntityRows(db: Db, vaultId: string, ids: string[]): EntityRow[] {
  if (!ids.length) return [];
  return sql(db, 'SELECT * FROM entities WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))').all(vaultId, JSON.stringify(ids)) as EntityRow[];
}

export type FindingSort = 'mentions' | 'recent';

export interface FindingFilter {
  type?: string;
  source?: string;
  meetingId?: string;
}

/** Where the keyset of each sort order starts after `after`: (sort value, id) strictly beyond it. */
const SORTS: Record<FindingSort, { column: string; order: string; after: string }> = {
  mentions: {
    column: 'mention_count',
    order: 'e.mention_count DESC, e.id ASC',
    after: '(e.mention_count < @k OR (e.mention_count = @k AND e.id > @id))',
  },
  recent: {
    column: 'last_mentioned_at',
    order: "COALESCE(e.last_mentioned_at, '') DESC, e.id ASC",
    after: "(COALESCE(e.last_mentioned_at, '') < @k OR (COALESCE(e.last_mentioned_at, '') = @k AND e.id > @id))",
  },
};

function filterSql(f: FindingFilter): string {
  return [
    'e.vault_id = @vault',
    f.type ? 'e.type = @type' : '',
    f.source ? 'e.source = @source' : '',
    f.meetingId ? 'EXISTS (SELECT 1 FROM evidence ev WHERE ev.vault_id = e.vault_id AND ev.entity_id = e.id AND ev.meeting_id = @meetingId)' : '',
  ]
    .filter(Boolean)
    .join(' AND ');
}

/** Findings matching a filter: a count over the vault's index entries (every page reports it), so read once per store version. */
export function countFindings(db: Db, vaultId: string, f: FindingFilter): number {
  const key = `countFindings:${JSON.stringify([vaultId, f.type ?? null, f.source ?? null, f.meetingId ?? null])}`;
  return cachedRead(db, key, () => sql(db, `SELECT count(*) FROM entities e WHERE ${filterSql(f)}`).pluck().get({ vault: vaultId, ...f }) as number);
}

export function pageFindings(
  db: Db,
  vaultId: string,
  f: FindingFilter,
  sort: FindingSort,
  limit: number,
  after?: { k: string | number; id: string },
): EntityRow[] {
  const s = SORTS[sort];
  const where = after ? `${filterSql(f)} AND ${s.after}` : filterSql(f);
  return sql(db, `SELECT e.* FROM entities e WHERE ${where} ORDER BY ${s.order} LIMIT @limit`).all({
    vault: vaultId,
    ...f,
    limit,
    ...(after ?? {}),
  }) as EntityRow[];
}

export function sortKey(row: EntityRow, sort: FindingSort): string | number {
  return sort === 'mentions' ? row.mention_count : (row.last_mentioned_at ?? '');
}

export interface EdgeRow {
  other_id: string;
  name: string;
  type: EntityType;
  relation: string;
  direction: 'out' | 'in';
  weight: number;
}

/** Edges touching an entity, seen from it: outgoing and incoming, strongest first. */
export function edgesOf(db: Db, vaultId: string, entityId: string): EdgeRow[] {
  return sql(
    db,
    `SELECT x.other_id, e.name, e.type, x.relation, x.direction, x.weight FROM (
       SELECT target_id AS other_id, relation, 'out' AS direction, weight FROM edges WHERE vault_id = @v AND source_id = @id
       UNION ALL
       SELECT source_id AS other_id, relation, 'in' AS direction, weight FROM edges WHERE vault_id = @v AND target_id = @id
     ) x JOIN entities e ON e.vault_id = @v AND e.id = x.other_id
     ORDER BY x.weight DESC, e.name, x.relation`,
  ).all({ v: vaultId, id: entityId }) as EdgeRow[];
}

/**
 * The slim, deduplicated edge list of an entity: one edge per (other entity, relation); a relation that
 * runs both ways becomes direction `both` with the larger weight.
 */
export function dedupedEdges(rows: EdgeRow[]) {
  const byKey = new Map<string, { entityId: string; name: string; type: EntityType; relation: string; direction: 'out' | 'in' | 'both'; weight: number }>();
  for (const r of rows) {
    const key = `${r.other_id}\u0000${r.relation}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { entityId: r.other_id, name: r.name, type: r.type, relation: r.relation, direction: r.direction, weight: r.weight });
    } else if (seen.direction !== r.direction) {
      seen.direction = 'both';
      seen.weight = Math.max(seen.weight, r.weight);
    }
  }
  return [...byKey.values()];
}

export function evidenceOf(db: Db, vaultId: string, entityId: string) {
  return sql(
    db,
    `SELECT ev.quote, ev.speaker, ev.meeting_id AS meetingId, m.name AS meetingName, ev.spoken_at AS spokenAt, ev.turn_index AS turnIndex
     FROM evidence ev JOIN meetings m ON m.vault_id = ev.vault_id AND m.id = ev.meeting_id
     WHERE ev.vault_id = ? AND ev.entity_id = ? ORDER BY ev.spoken_at, ev.id`,
  ).all(vaultId, entityId) as { quote: string; speaker: string; meetingId: string; meetingName: string; spokenAt: string; turnIndex: number | null }[];
}

export interface NameRow {
  entity_id: string;
  name: string;
  norm: string;
  is_alias: number;
}

/** Every name and alias of the vault's entities (optionally of one type), for matching in memory. */
export function entityNames(db: Db, vaultId: string, type?: string): NameRow[] {
  return type
    ? (sql(
        db,
        `SELECT n.entity_id, n.name, n.norm, n.is_alias FROM entity_names n
         JOIN entities e ON e.vault_id = n.vault_id AND e.id = n.entity_id WHERE n.vault_id = ? AND e.type = ?`,
      ).all(vaultId, type) as NameRow[])
    : (sql(db, 'SELECT entity_id, name, norm, is_alias FROM entity_names WHERE vault_id = ?').all(vaultId) as NameRow[]);
}

export function countsByType(db: Db, vaultId: string): { type: string; n: number }[] {
  return sql(db, 'SELECT type, count(*) AS n FROM entities WHERE vault_id = ? GROUP BY type').all(vaultId) as { type: string; n: number }[];
}

/** Entities first seen after `since`, and older ones mentioned again after it. */
export function entityChangesSince(db: Db, vaultId: string, since: string) {
  const newRows = sql(db, 'SELECT * FROM entities WHERE vault_id = ? AND first_seen_at > ? ORDER BY first_seen_at, id').all(vaultId, since) as EntityRow[];
  const rementioned = sql(
    db,
    'SELECT * FROM entities WHERE vault_id = ? AND first_seen_at <= ? AND last_mentioned_at > ? ORDER BY last_mentioned_at DESC, id',
  ).all(vaultId, since, since) as EntityRow[];
  return { newRows, rementioned };
}
