/** Writes of the people registry (its reads are in mail.ts, beside the addresses they check). */
import { sql, type Db } from './db.js';

export interface PersonRecord {
  id: string;
  name: string;
  email: string;
  title: string;
  organisation: string;
}

/** The vault's registry becomes upstream's (inside the caller's transaction). */
export function replacePeopleFromUpstream(db: Db, vaultId: string, people: readonly PersonRecord[]): void {
  sql(db, 'DELETE FROM people WHERE vault_id = ?').run(vaultId);
  const insert = sql(
    db,
    'INSERT OR REPLACE INTO people (vault_id, id, name, email, title, organisation) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const p of people) insert.run(vaultId, p.id, p.name, p.email, p.title, p.organisation);
}
