/**
 * Every row of one vault, family by family, as stored: what `export` writes back to the folder format
 * (src/vault-format/write.ts maps them). Rows come in the order the loader wrote them (rowid, or the
 * position a family keeps), so an export imported again numbers what the loader numbers (evidence ids) alike.
 * Keys, OAuth grants, the outbox and sync bookkeeping are never read here: they are not the vault's.
 */
import { sql, type Db } from './db.js';

type Row = Record<string, unknown>;

const FAMILY_QUERIES = {
  vault: 'SELECT * FROM vaults WHERE id = ?',
  people: 'SELECT * FROM people WHERE vault_id = ? ORDER BY rowid',
  entities: 'SELECT * FROM entities WHERE vault_id = ? ORDER BY rowid',
  edges: 'SELECT * FROM edges WHERE vault_id = ? ORDER BY rowid',
  meetings: 'SELECT * FROM meetings WHERE vault_id = ? ORDER BY rowid',
  turns: 'SELECT * FROM transcript_turns WHERE vault_id = ? ORDER BY meeting_id, turn_index',
  evidence: 'SELECT * FROM evidence WHERE vault_id = ? ORDER BY rowid',
  conflicts: 'SELECT * FROM conflicts WHERE vault_id = ? ORDER BY rowid',
  claims: 'SELECT * FROM conflict_claims WHERE vault_id = ? ORDER BY conflict_id, position',
  calendar: 'SELECT * FROM calendar_events WHERE vault_id = ? ORDER BY rowid',
  milestones: 'SELECT * FROM milestones WHERE vault_id = ? ORDER BY rowid',
  tasks: 'SELECT * FROM tasks WHERE vault_id = ? ORDER BY number',
  planSteps: 'SELECT * FROM plan_steps WHERE vault_id = ? ORDER BY position, rowid',
  files: 'SELECT * FROM files WHERE vault_id = ? ORDER BY rowid',
  briefs: 'SELECT * FROM briefs WHERE vault_id = ? ORDER BY rowid',
  sentEmails: 'SELECT * FROM sent_emails WHERE vault_id = ? ORDER BY rowid',
  threads: 'SELECT * FROM mail_threads WHERE vault_id = ? ORDER BY rowid',
  messages: 'SELECT * FROM mail_messages WHERE vault_id = ? ORDER BY rowid',
  conversations: 'SELECT * FROM agent_conversations WHERE vault_id = ? ORDER BY rowid',
  agentMessages: 'SELECT * FROM agent_messages WHERE vault_id = ? ORDER BY conversation_id, position',
} as const;

export type VaultRows = { -readonly [K in keyof typeof FAMILY_QUERIES]: Row[] };

/**
 * All rows of vault `vaultId` (an id, already resolved), read in one read transaction so the families agree
 * with each other even while another process writes. `vault` holds one row, or none for an unknown id.
 */
export function readVaultRows(db: Db, vaultId: string): VaultRows {
  return db
    .transaction(() => {
      const rows = {} as VaultRows;
      for (const [family, query] of Object.entries(FAMILY_QUERIES))
        rows[family as keyof VaultRows] = sql(db, query).all(vaultId) as Row[];
      return rows;
    })
    .deferred();
}
