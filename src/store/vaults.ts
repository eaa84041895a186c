/** Vault records, and which of them a principal may reach. */
import type { Principal } from '../auth/keys.js';
import { json, sql, type Db } from './db.js';

export interface Vault {
  id: string;
  name: string;
  client: string;
  description: string;
  keywords: string[];
  summary: string;
  boardPrefix: string;
  agentEmail: string | null;
}

interface VaultRow {
  id: string;
  name: string;
  client: string;
  description: string;
  keywords_json: string;
  summary: string;
  board_prefix: string;
  agent_email: string | null;
}

const toVault = (r: VaultRow): Vault => ({
  id: r.id,
  name: r.name,
  client: r.client,
  description: r.description,
  keywords: json.read(r.keywords_json),
  summary: r.summary,
  boardPrefix: r.board_prefix,
  agentEmail: r.agent_email,
});

export function allVaults(db: Db): Vault[] {
  return (sql(db, 'SELECT * FROM vaults ORDER BY name').all() as VaultRow[]).map(toVault);
}

export function reachableVaults(db: Db, principal: Principal): Vault[] {
  const all = allVaults(db);
  return principal.allVaults ? all : all.filter((v) => principal.vaultIds.has(v.id));
}

/** The vault whose exact id (preferred) or exact name is `idOrName`, if this principal may reach it. */
export function findReachableVault(db: Db, principal: Principal, idOrName: string): Vault | undefined {
  const rows = sql(db, 'SELECT * FROM vaults WHERE id = @v OR name = @v ORDER BY id = @v DESC').all({ v: idOrName }) as VaultRow[];
  const row = rows.find((r) => principal.allVaults || principal.vaultIds.has(r.id));
  return row && toVault(row);
}
