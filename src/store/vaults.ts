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
