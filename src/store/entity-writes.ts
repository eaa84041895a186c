/**
 * Writes of the entity family (entities and their names, edges, evidence quotes, mentions per meeting). Kept
 * apart from entities.ts, which holds the family's reads, while that file is being reworked elsewhere.
 */
import { json, sql, type Db } from './db.js';
import type { EntityRow } from './entities.js';
import { normalize } from './text.js';

/** An entity, with its name and each alias indexed (normalized) for name matching. */
export function insertEntity(
  db: Db,
  vaultId: string,
  e: { id: string; type: EntityRow['type']; name: string; aliases: string[]; description: string; source: EntityRow['source']; mentionCount: number; firstSeenAt: string; lastMentionedAt: string | null },
): void {
  sql(
    db,
    `INSERT INTO entities (vault_id, id, type, name, aliases_json, description, source, mention_count, first_seen_at, last_mentioned_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(vaultId, e.id, e.type, e.name, json.write(e.aliases), e.description, e.source, e.mentionCount, e.firstSeenAt, e.lastMentionedAt);
  const name = sql(db, 'INSERT INTO entity_names (vault_id, entity_id, name, norm, is_alias) VALUES (?, ?, ?, ?, ?)');
  name.run(vaultId, e.id, e.name, normalize(e.name), 0);
  for (const alias of e.aliases) name.run(vaultId, e.id, alias, normalize(alias), 1);
}

/** An edge between two entities, unless that edge exists already. */
export function insertEdge(db: Db, vaultId: string, e: { from: string; to: string; relation: string; weight: number }): void {
  sql(db, 'INSERT INTO edges (vault_id, source_id, target_id, relation, weight) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
    vaultId, e.from, e.to, e.relation, e.weight,
  );
}

/** A quote of a meeting's transcript that is evidence for an entity. */
export function insertEvidence(
  db: Db,
  vaultId: string,
  e: { id: string; entityId: string; meetingId: string; turnIndex: number; speaker: string; quote: string; spokenAt: string },
): void {
  sql(db, 'INSERT INTO evidence (vault_id, id, entity_id, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    vaultId, e.id, e.entityId, e.meetingId, e.turnIndex, e.speaker, e.quote, e.spokenAt,
  );
}

/** How often an entity was mentioned in one meeting. */
export function insertEntityMention(db: Db, vaultId: string, entityId: string, meetingId: string, count: number): void {
  sql(db, 'INSERT INTO entity_mentions (vault_id, entity_id, meeting_id, count) VALUES (?, ?, ?, ?)').run(vaultId, entityId, meetingId, count);
}
