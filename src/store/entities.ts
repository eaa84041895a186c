/** Entities (findings), their names, edges, evidence and mentions. */
import { cachedRead, json, limitParam, sql, type Db } from './db.js';
import type { ENTITY_SOURCES, ENTITY_TYPES } from '../core/vocabulary.js';
import { normalize } from './text.js';

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
export const toCompactFinding = (
  r: Pick<EntityRow, 'id' | 'name' | 'type' | 'mention_count' | 'last_mentioned_at'>,
) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  mentionCount: r.mention_count,
  lastMentionedAt: r.last_mentioned_at,
});

/**
 * Entity rows in bulk are read as arrays and shaped by one object literal: better-sqlite3 builds a row
 * object key by key, which costs as much as the query itself on a page of 50 (149 → 79 µs in-process).
 */
const ENTITY_COLUMNS =
  'e.id, e.type, e.name, e.aliases_json, e.description, e.source, e.mention_count, e.first_seen_at, e.last_mentioned_at';
type EntityTuple = [string, EntityType, string, string, string, EntitySource, number, string, string | null];
const entityRow = (r: EntityTuple): EntityRow => ({
  id: r[0],
  type: r[1],
  name: r[2],
  aliases_json: r[3],
  description: r[4],
  source: r[5],
  mention_count: r[6],
  first_seen_at: r[7],
  last_mentioned_at: r[8],
});
/** `text` selects ENTITY_COLUMNS, in that order. */
const entityRows = (db: Db, text: string, ...params: unknown[]): EntityRow[] =>
  (
    sql(db, text)
      .raw(true)
      .all(...params) as EntityTuple[]
  ).map(entityRow);

export function getEntityRow(db: Db, vaultId: string, id: string): EntityRow | undefined {
  return entityRows(db, `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.vault_id = ? AND e.id = ?`, vaultId, id)[0];
}

export function getEntityRows(db: Db, vaultId: string, ids: string[]): EntityRow[] {
  if (!ids.length) return [];
  return entityRows(
    db,
    `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.vault_id = ? AND e.id IN (SELECT value FROM json_each(?))`,
    vaultId,
    JSON.stringify(ids),
  );
}

export type FindingSort = 'mentions' | 'recent';

export interface FindingFilter {
  type?: string;
  source?: string;
  meetingId?: string;
}

/**
 * Where the keyset of each sort order starts after `after`: (sort value, id) strictly beyond it. An entity never
 * mentioned has no last mention (NULL): `recent` reads it as '' so it comes after every real time.
 */
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
    f.meetingId
      ? 'EXISTS (SELECT 1 FROM evidence ev WHERE ev.vault_id = e.vault_id AND ev.entity_id = e.id AND ev.meeting_id = @meetingId)'
      : '',
  ]
    .filter(Boolean)
    .join(' AND ');
}

/** Findings matching a filter: a count over the vault's index entries (every page reports it), so read once per store version. */
export function countFindings(db: Db, vaultId: string, f: FindingFilter): number {
  const key = `countFindings:${JSON.stringify([vaultId, f.type ?? null, f.source ?? null, f.meetingId ?? null])}`;
  return cachedRead(
    db,
    key,
    () =>
      sql(db, `SELECT count(*) FROM entities e WHERE ${filterSql(f)}`)
        .pluck()
        .get({ vault: vaultId, ...f }) as number,
  );
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
  return entityRows(
    db,
    `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE ${where} ORDER BY ${s.order} LIMIT ${limitParam('@limit')}`,
    { vault: vaultId, ...f, limit, ...(after ?? {}) },
  );
}

export function sortKey(row: EntityRow, sort: FindingSort): string | number {
  return sort === 'mentions' ? row.mention_count : (row.last_mentioned_at ?? '');
}

/** One edge of an entity as tools show it: the other end, the relation, its direction and weight. */
export interface SlimEdge {
  entityId: string;
  name: string;
  type: EntityType;
  relation: string;
  direction: 'out' | 'in' | 'both';
  weight: number;
}

/** SQLite's default (BINARY) order, for sorting edges in JS the way SQL sorts them. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The slim, deduplicated edges of an entity: one per (other entity, relation), strongest first, then by name;
 * a relation that runs both ways is direction `both` with the larger weight.
 */
export function slimEdges(db: Db, vaultId: string, entityId: string): SlimEdge[] {
  const rows = sql(
    db,
    `SELECT x.other, e.name, e.type, x.relation, x.direction, x.weight FROM (
       SELECT target_id AS other, relation, 'out' AS direction, weight FROM edges WHERE vault_id = @v AND source_id = @id
       UNION ALL
       SELECT source_id, relation, 'in', weight FROM edges WHERE vault_id = @v AND target_id = @id
     ) x CROSS JOIN entities e ON e.vault_id = @v AND e.id = x.other`,
  )
    .raw(true)
    .all({ v: vaultId, id: entityId }) as [string, string, EntityType, string, 'out' | 'in', number][];
  // Sorted here rather than in SQL (an SQL sort costs ~7 µs to set up; most entities have a handful of edges).
  rows.sort((a, b) => b[5] - a[5] || compare(a[1], b[1]) || compare(a[3], b[3]) || compare(a[0], b[0]));
  const byKey = new Map<string, SlimEdge>();
  for (const [other, name, type, relation, direction, weight] of rows) {
    const key = `${other}\u0000${relation}`;
    const seen = byKey.get(key);
    // Rows come strongest first, so the first of a pair carries the larger weight.
    if (!seen) byKey.set(key, { entityId: other, name, type, relation, direction, weight });
    else if (seen.direction !== direction) seen.direction = 'both';
  }
  return [...byKey.values()];
}

/**
 * The strongest `limit` slim edges leaving any of `fromIds` (expand_graph: the root, then its neighbours),
 * each with the entity it leaves from; strongest first, then in the order of `fromIds`, then by name.
 * Each direction of each entity is read from its weight-ordered index (migration 5) and stops after `limit`
 * rows: a hub has a thousand edges, and only the few that make the cut are read and named. Where edges of
 * equal weight straddle the cut, the ones kept are the first by relation and id. `exclude` leaves out the
 * edges to one entity (the root, seen from a neighbour).
 */
export function strongestEdges(
  db: Db,
  vaultId: string,
  fromIds: string[],
  limit: number,
  exclude?: string,
): (SlimEdge & { from: string })[] {
  // Each statement walks one index in weight order and stops after `limit` rows (no sort, no full read).
  const arm = (direction: 'out' | 'in') => {
    const [self, other] = direction === 'out' ? ['source_id', 'target_id'] : ['target_id', 'source_id'];
    const statement = sql(
      db,
      `SELECT g.${other}, e.name, e.type, g.relation, g.weight FROM edges g CROSS JOIN entities e ON e.vault_id = g.vault_id AND e.id = g.${other}
       WHERE g.vault_id = ? AND g.${self} = ? AND g.${other} IS NOT ? ORDER BY g.weight DESC, g.relation, g.${other} LIMIT ${limitParam('?')}`,
    ).raw(true);
    return [direction, statement] as const;
  };
  const arms = [arm('out'), arm('in')];
  type Row = [other: string, name: string, type: EntityType, relation: string, weight: number];
  type Candidate = { row: Row; from: string; pos: number; direction: 'out' | 'in'; both: boolean };
  const candidates: Candidate[] = [];
  /** entities with a direction cut short: a pair's other half may lie beyond the cut */
  const cut = new Set<string>();
  fromIds.forEach((from, pos) => {
    for (const [direction, statement] of arms) {
      const rows = statement.all(vaultId, from, exclude ?? null, limit) as Row[];
      if (rows.length === limit) cut.add(from);
      for (const row of rows) candidates.push({ row, from, pos, direction, both: false });
    }
  });
  // The cut follows the order the indexes were read in (weight, relation, id); the answer is shown by name.
  candidates.sort(
    (a, b) => b.row[4] - a.row[4] || a.pos - b.pos || compare(a.row[3], b.row[3]) || compare(a.row[0], b.row[0]),
  );
  const chosen = new Map<string, Candidate>(); // one edge per (from, other, relation); the first of a pair is its stronger half
  for (const c of candidates) {
    const key = `${c.from}\u0000${c.row[0]}\u0000${c.row[3]}`;
    const seen = chosen.get(key);
    if (seen) seen.both ||= seen.direction !== c.direction;
    else if (chosen.size < limit) chosen.set(key, c);
  }
  const partner = sql(
    db,
    'SELECT 1 FROM edges WHERE vault_id = ? AND source_id = ? AND target_id = ? AND relation = ?',
  ).pluck();
  const halfAbsent = (c: Candidate) =>
    !(c.direction === 'out'
      ? partner.get(vaultId, c.row[0], c.from, c.row[3])
      : partner.get(vaultId, c.from, c.row[0], c.row[3]));
  return [...chosen.values()]
    .sort(
      (a, b) =>
        b.row[4] - a.row[4] ||
        a.pos - b.pos ||
        compare(a.row[1], b.row[1]) ||
        compare(a.row[3], b.row[3]) ||
        compare(a.row[0], b.row[0]),
    )
    .map((c) => {
      const [other, name, type, relation, weight] = c.row;
      const both = c.both || (cut.has(c.from) && !halfAbsent(c));
      return { entityId: other, name, type, relation, direction: both ? 'both' : c.direction, weight, from: c.from };
    });
}

export function evidenceOf(db: Db, vaultId: string, entityId: string) {
  const rows = sql(
    db,
    `SELECT ev.quote, ev.speaker, ev.meeting_id AS meetingId, m.name AS meetingName, ev.spoken_at AS spokenAt, ev.turn_index AS turnIndex, ev.id
     FROM evidence ev JOIN meetings m ON m.vault_id = ev.vault_id AND m.id = ev.meeting_id
     WHERE ev.vault_id = ? AND ev.entity_id = ?`,
  ).all(vaultId, entityId) as {
    quote: string;
    speaker: string;
    meetingId: string;
    meetingName: string;
    spokenAt: string;
    turnIndex: number | null;
    id: string;
  }[];
  // In the order it was said (sorted here: cheaper than an SQL sort for an entity's few quotes).
  rows.sort((a, b) => compare(a.spokenAt, b.spokenAt) || compare(a.id, b.id));
  return rows.map(({ id: _id, ...quote }) => quote);
}

/** How often each meeting mentions an entity, in the order the meetings took place. */
export function mentionsByMeeting(db: Db, vaultId: string, entityId: string) {
  return sql(
    db,
    `SELECT m.meeting_id AS meetingId, mt.name AS meetingName, mt.started_at AS date, m.count AS mentions FROM entity_mentions m
     JOIN meetings mt ON mt.vault_id = m.vault_id AND mt.id = m.meeting_id
     WHERE m.vault_id = ? AND m.entity_id = ? ORDER BY mt.started_at, mt.id`,
  ).all(vaultId, entityId) as { meetingId: string; meetingName: string; date: string; mentions: number }[];
}

export interface NameRow {
  entity_id: string;
  name: string;
  norm: string;
  is_alias: number;
  type: EntityType;
}

/** Every name and alias of the vault's entities, with the entity's type, for matching in memory. */
export function entityNames(db: Db, vaultId: string): NameRow[] {
  return sql(
    db,
    `SELECT n.entity_id, n.name, n.norm, n.is_alias, e.type FROM entity_names n
     JOIN entities e ON e.vault_id = n.vault_id AND e.id = n.entity_id WHERE n.vault_id = ?`,
  ).all(vaultId) as NameRow[];
}

export function countsByType(db: Db, vaultId: string): { type: string; n: number }[] {
  return sql(db, 'SELECT type, count(*) AS n FROM entities WHERE vault_id = ? GROUP BY type').all(vaultId) as {
    type: string;
    n: number;
  }[];
}

/**
 * A page of what changed since a moment: entities first seen after it (oldest first), or older entities
 * mentioned again after it (most recent first); `after` is where the previous page of that list ended. Only
 * the columns a compact finding shows, read as arrays (a description is ~270 bytes; a window can hold
 * thousands of entities).
 */
export function entityChangesSince(
  db: Db,
  vaultId: string,
  since: string,
  list: 'new' | 'rementioned',
  limit: number,
  after?: { k: string; id: string },
) {
  type Brief = Pick<EntityRow, 'id' | 'name' | 'type' | 'mention_count' | 'last_mentioned_at' | 'first_seen_at'>;
  type Tuple = [string, EntityType, string, number, string | null, string];
  const columns = 'e.id, e.type, e.name, e.mention_count, e.last_mentioned_at, e.first_seen_at';
  const brief = (r: Tuple): Brief => ({
    id: r[0],
    type: r[1],
    name: r[2],
    mention_count: r[3],
    last_mentioned_at: r[4],
    first_seen_at: r[5],
  });
  const [where, next, order] =
    list === 'new'
      ? ['e.first_seen_at > @since', '(e.first_seen_at, e.id) > (@k, @id)', 'e.first_seen_at, e.id']
      : [
          'e.first_seen_at <= @since AND e.last_mentioned_at > @since',
          '(e.last_mentioned_at < @k OR (e.last_mentioned_at = @k AND e.id > @id))',
          'e.last_mentioned_at DESC, e.id',
        ];
  const text = `SELECT ${columns} FROM entities e WHERE e.vault_id = @vault AND ${where}${after ? ` AND ${next}` : ''} ORDER BY ${order} LIMIT ${limitParam('@limit')}`;
  return (
    sql(db, text)
      .raw(true)
      .all({ vault: vaultId, since, limit, ...(after ?? {}) }) as Tuple[]
  ).map(brief);
}

/** How many entities are new since a moment, and how many older ones were mentioned again (over all pages). */
export function entityChangeCounts(db: Db, vaultId: string, since: string): { new: number; rementioned: number } {
  return sql(
    db,
    `SELECT coalesce(sum(first_seen_at > @since), 0) AS new, coalesce(sum(first_seen_at <= @since AND last_mentioned_at > @since), 0) AS rementioned
     FROM entities WHERE vault_id = @vault AND (first_seen_at > @since OR last_mentioned_at > @since)`,
  ).get({ vault: vaultId, since }) as { new: number; rementioned: number };
}

export interface EntityRecord {
  id: string;
  type: string;
  name: string;
  aliases: string[];
  description: string;
  source: string;
  mentionCount: number;
  firstSeenAt: string;
  lastMentionedAt: string | null;
}

/** Creates or updates an entity's core fields and the names it is found by (inside the caller's transaction). */
export function upsertEntity(db: Db, vaultId: string, e: EntityRecord): void {
  sql(
    db,
    `INSERT INTO entities (vault_id, id, type, name, aliases_json, description, source, mention_count, first_seen_at, last_mentioned_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (vault_id, id) DO UPDATE SET type = excluded.type, name = excluded.name, aliases_json = excluded.aliases_json,
       description = excluded.description, source = excluded.source, mention_count = excluded.mention_count,
       first_seen_at = excluded.first_seen_at, last_mentioned_at = excluded.last_mentioned_at`,
  ).run(
    vaultId,
    e.id,
    e.type,
    e.name,
    json.write(e.aliases),
    e.description,
    e.source,
    e.mentionCount,
    e.firstSeenAt,
    e.lastMentionedAt,
  );
  sql(db, 'DELETE FROM entity_names WHERE vault_id = ? AND entity_id = ?').run(vaultId, e.id);
  const name = sql(db, 'INSERT INTO entity_names (vault_id, entity_id, name, norm, is_alias) VALUES (?, ?, ?, ?, ?)');
  name.run(vaultId, e.id, e.name, normalize(e.name), 0);
  for (const alias of e.aliases) name.run(vaultId, e.id, alias, normalize(alias), 1);
}

/**
 * An entity's edges become these (`direction` as seen from the entity). An edge to an entity not in the
 * vault yet is left out: that one brings it when it lands.
 */
export function replaceEntityEdges(
  db: Db,
  vaultId: string,
  entityId: string,
  edges: readonly { entityId: string; relation: string; direction: 'out' | 'in' | 'both'; weight: number }[],
): void {
  const exists = sql(db, 'SELECT 1 FROM entities WHERE vault_id = ? AND id = ?').pluck();
  // Two statements, not one with OR, so each uses its index (source: the key; target: edges_target_strength).
  sql(db, 'DELETE FROM edges WHERE vault_id = ? AND source_id = ?').run(vaultId, entityId);
  sql(db, 'DELETE FROM edges WHERE vault_id = ? AND target_id = ?').run(vaultId, entityId);
  const insertEdge = sql(
    db,
    'INSERT OR REPLACE INTO edges (vault_id, source_id, target_id, relation, weight) VALUES (?, ?, ?, ?, ?)',
  );
  for (const x of edges) {
    if (!exists.get(vaultId, x.entityId)) continue;
    if (x.direction !== 'in') insertEdge.run(vaultId, entityId, x.entityId, x.relation, x.weight);
    if (x.direction !== 'out') insertEdge.run(vaultId, x.entityId, entityId, x.relation, x.weight);
  }
}

export interface EvidenceRecord {
  id: string;
  meetingId: string;
  turnIndex: number | null;
  speaker: string;
  quote: string;
  spokenAt: string;
}

/** An entity's quotes become these; a quote naming a meeting the vault does not have is left out and returned. */
export function replaceEntityEvidence(
  db: Db,
  vaultId: string,
  entityId: string,
  quotes: readonly EvidenceRecord[],
): EvidenceRecord[] {
  sql(db, 'DELETE FROM evidence WHERE vault_id = ? AND entity_id = ?').run(vaultId, entityId);
  const meetingExists = sql(db, 'SELECT 1 FROM meetings WHERE vault_id = ? AND id = ?').pluck();
  const insertQuote = sql(
    db,
    'INSERT INTO evidence (vault_id, id, entity_id, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const missing: EvidenceRecord[] = [];
  for (const q of quotes) {
    if (meetingExists.get(vaultId, q.meetingId))
      insertQuote.run(vaultId, q.id, entityId, q.meetingId, q.turnIndex, q.speaker, q.quote, q.spokenAt);
    else missing.push(q);
  }
  return missing;
}

export function entityIds(db: Db, vaultId: string): string[] {
  return sql(db, 'SELECT id FROM entities WHERE vault_id = ?').pluck().all(vaultId) as string[];
}

/** Removes an entity; its names, edges, evidence, mentions and conflicts cascade. */
export function deleteEntity(db: Db, vaultId: string, id: string): void {
  sql(db, 'DELETE FROM entities WHERE vault_id = ? AND id = ?').run(vaultId, id);
}

export const countEntities = (db: Db, vaultId: string) =>
  sql(db, 'SELECT count(*) FROM entities WHERE vault_id = ?').pluck().get(vaultId) as number;

/** An edge between two entities, unless that edge exists already. */
export function insertEdge(
  db: Db,
  vaultId: string,
  e: { from: string; to: string; relation: string; weight: number },
): void {
  sql(
    db,
    'INSERT INTO edges (vault_id, source_id, target_id, relation, weight) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  ).run(vaultId, e.from, e.to, e.relation, e.weight);
}

/** A quote of a meeting's transcript that is evidence for an entity. */
export function insertEvidence(
  db: Db,
  vaultId: string,
  e: {
    id: string;
    entityId: string;
    meetingId: string;
    turnIndex: number;
    speaker: string;
    quote: string;
    spokenAt: string;
  },
): void {
  sql(
    db,
    'INSERT INTO evidence (vault_id, id, entity_id, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(vaultId, e.id, e.entityId, e.meetingId, e.turnIndex, e.speaker, e.quote, e.spokenAt);
}

/** How often an entity was mentioned in one meeting. */
export function insertEntityMention(db: Db, vaultId: string, entityId: string, meetingId: string, count: number): void {
  sql(db, 'INSERT INTO entity_mentions (vault_id, entity_id, meeting_id, count) VALUES (?, ?, ?, ?)').run(
    vaultId,
    entityId,
    meetingId,
    count,
  );
}
