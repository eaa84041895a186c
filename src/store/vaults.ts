/** Vault records, and which of them a principal may reach. */
import type { Principal } from '../core/principal.js';
import { cachedRead, json, sql, type Db } from './db.js';

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

/**
 * Every vault, by name order, with id and name indexes: read once per store version (every tool call
 * resolves its vault), so an import, sync or delete is seen at once. The objects are frozen: shared.
 */
function vaultIndex(db: Db): { all: readonly Vault[]; byId: ReadonlyMap<string, Vault>; byName: ReadonlyMap<string, Vault> } {
  return cachedRead(db, 'vaults', () => {
    const all = (sql(db, 'SELECT * FROM vaults ORDER BY name').all() as VaultRow[]).map((r) => {
      const v = toVault(r);
      Object.freeze(v.keywords);
      return Object.freeze(v);
    });
    return { all, byId: new Map(all.map((v) => [v.id, v])), byName: new Map(all.map((v) => [v.name, v])) };
  });
}

export function allVaults(db: Db): Vault[] {
  return [...vaultIndex(db).all];
}

export function reachableVaults(db: Db, principal: Principal): Vault[] {
  const all = vaultIndex(db).all;
  return principal.allVaults ? [...all] : all.filter((v) => principal.vaultIds.has(v.id));
}

/** The vault whose exact id (preferred) or exact name is `idOrName`, if this principal may reach it. */
export function findReachableVault(db: Db, principal: Principal, idOrName: string): Vault | undefined {
  const { byId, byName } = vaultIndex(db);
  const reachable = (v: Vault | undefined) => v && (principal.allVaults || principal.vaultIds.has(v.id));
  const byIdHit = byId.get(idOrName);
  if (reachable(byIdHit)) return byIdHit;
  const byNameHit = byName.get(idOrName);
  return reachable(byNameHit) ? byNameHit : undefined;
}

/** Every vault's id and name, by id: what grants and name clashes are checked against. */
export function vaultIdsAndNames(db: Db): { id: string; name: string }[] {
  return sql(db, 'SELECT id, name FROM vaults ORDER BY id').all() as { id: string; name: string }[];
}

export function vaultExists(db: Db, id: string): boolean {
  return sql(db, 'SELECT 1 FROM vaults WHERE id = ?').get(id) !== undefined;
}

/** The hash of what a loaded vault was loaded from (undefined: no such vault, or not loaded from files). */
export function vaultOriginHash(db: Db, id: string): string | undefined {
  return (sql(db, 'SELECT origin_hash FROM vaults WHERE id = ?').get(id) as { origin_hash: string } | undefined)?.origin_hash;
}

/** Removes a vault and, through the foreign keys, every record of it. */
export function deleteVault(db: Db, id: string): void {
  sql(db, 'DELETE FROM vaults WHERE id = ?').run(id);
}

export function insertVault(db: Db, v: Vault & { origin: 'fixture' | 'import' | 'sync'; originHash: string | null; loadedAt: string }): void {
  sql(
    db,
    `INSERT INTO vaults (id, name, client, description, keywords_json, summary, board_prefix, agent_email, origin, origin_hash, loaded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(v.id, v.name, v.client, v.description, json.write(v.keywords), v.summary, v.boardPrefix, v.agentEmail, v.origin, v.originHash, v.loadedAt);
}
