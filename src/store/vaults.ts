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
function vaultIndex(db: Db): {
  all: readonly Vault[];
  byId: ReadonlyMap<string, Vault>;
  byName: ReadonlyMap<string, Vault>;
} {
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
  return findVaultWhere(db, idOrName, (v) => principal.allVaults || principal.vaultIds.has(v.id));
}

/**
 * The vault whose exact id (preferred) or exact name is `idOrName`, among all of the store's: the same rule as
 * findReachableVault, for the CLI's store-wide commands (outbox, reindex), which act for whoever owns the data dir.
 */
export function findVault(db: Db, idOrName: string): Vault | undefined {
  return findVaultWhere(db, idOrName, () => true);
}

function findVaultWhere(db: Db, idOrName: string, mayReach: (v: Vault) => boolean): Vault | undefined {
  const { byId, byName } = vaultIndex(db);
  const reachable = (v: Vault | undefined) => v && mayReach(v);
  const byIdHit = byId.get(idOrName);
  if (reachable(byIdHit)) return byIdHit;
  const byNameHit = byName.get(idOrName);
  return reachable(byNameHit) ? byNameHit : undefined;
}

/** Where a vault's row came from (`fixture`, `import`, `sync`), when there is one. */
export function vaultOrigin(db: Db, id: string): string | undefined {
  return (sql(db, 'SELECT origin FROM vaults WHERE id = ?').get(id) as { origin: string } | undefined)?.origin;
}

/** Another vault (not `exceptId`) with this exact name. */
export function otherVaultNamed(db: Db, name: string, exceptId: string): string | undefined {
  return (sql(db, 'SELECT id FROM vaults WHERE name = ? AND id <> ?').get(name, exceptId) as { id: string } | undefined)
    ?.id;
}

/** Creates or updates a vault that sync keeps in step with upstream (its board prefix and agent address stay). */
export function upsertSyncedVault(
  db: Db,
  v: { id: string; name: string; client: string; description: string; keywords: string[]; summary: string },
  loadedAt: string,
): void {
  sql(
    db,
    `INSERT INTO vaults (id, name, client, description, keywords_json, summary, origin, loaded_at) VALUES (?, ?, ?, ?, ?, ?, 'sync', ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, client = excluded.client, description = excluded.description,
       keywords_json = excluded.keywords_json, summary = excluded.summary, loaded_at = excluded.loaded_at`,
  ).run(v.id, v.name, v.client, v.description, json.write(v.keywords), v.summary, loadedAt);
}

/** Ids of the vaults synced from this remote. */
export function syncedVaultIds(db: Db, remoteUrl: string): string[] {
  return sql(
    db,
    "SELECT v.id FROM vaults v JOIN sync_state s ON s.vault_id = v.id WHERE v.origin = 'sync' AND s.remote_url = ?",
  )
    .pluck()
    .all(remoteUrl) as string[];
}

/** Removes a vault with everything in it (its records cascade). */
export function deleteVault(db: Db, id: string): void {
  sql(db, 'DELETE FROM vaults WHERE id = ?').run(id);
}

/** The prefix of the vault's board identifiers (`ACME` of `ACME-5`). */
export function setBoardPrefix(db: Db, id: string, prefix: string): void {
  sql(db, 'UPDATE vaults SET board_prefix = ? WHERE id = ?').run(prefix, id);
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
  return (sql(db, 'SELECT origin_hash FROM vaults WHERE id = ?').get(id) as { origin_hash: string } | undefined)
    ?.origin_hash;
}

export function insertVault(
  db: Db,
  v: Vault & { origin: 'fixture' | 'import' | 'sync'; originHash: string | null; loadedAt: string },
): void {
  sql(
    db,
    `INSERT INTO vaults (id, name, client, description, keywords_json, summary, board_prefix, agent_email, origin, origin_hash, loaded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    v.id,
    v.name,
    v.client,
    v.description,
    json.write(v.keywords),
    v.summary,
    v.boardPrefix,
    v.agentEmail,
    v.origin,
    v.originHash,
    v.loadedAt,
  );
}
