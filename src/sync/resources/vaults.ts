/** The vaults the remote key reaches (list_vaults), and the local vault rows a pull keeps in step with them. */
import { z } from 'zod';
import { json, sql, writeTransaction, type Db } from '../../store/db.js';
import { orDefault, parseEach, stringList, type PullContext } from './common.js';

/**
 * A vault id names folders outside sync too (each vault's artifacts and mail), so one that could leave them
 * or fool a terminal is refused here: the vault is skipped with this reason.
 */
const vaultId = z
  .string()
  .min(1)
  .max(200)
  .refine((id) => id !== '.' && id !== '..', 'must not be "." or ".."')
  .refine((id) => !/[/\\\u0000-\u001f\u007f]/.test(id), 'must not contain "/", "\\" or control characters');

const vault = {
  id: vaultId,
  name: z.string(),
  client: orDefault(z.string(), ''),
  description: orDefault(z.string(), ''),
  keywords: stringList,
  summary: orDefault(z.string(), ''),
};
export type RemoteVault = z.output<z.ZodObject<typeof vault>>;

export async function fetchVaults(ctx: Pick<PullContext, 'remote' | 'skip'>): Promise<RemoteVault[]> {
  const data = await ctx.remote.tool<{ vaults?: unknown }>('list_vaults', {});
  return parseEach(ctx, 'vaults', vault, data.vaults).map((r) => r.item);
}

/**
 * Creates or updates the local row of a synced vault. A vault of the same id or name that came from
 * fixtures or an import is the user's own data: it is never overwritten (the error says what to do).
 */
export function upsertVault(db: Db, v: RemoteVault, now: string): void {
  const existing = sql(db, 'SELECT origin FROM vaults WHERE id = ?').get(v.id) as { origin: string } | undefined;
  if (existing && existing.origin !== 'sync') {
    throw new Error(`vault "${v.id}" exists here from ${existing.origin === 'fixture' ? 'the demo fixtures' : 'an import'}; sync into another data dir (--data-dir) or remove it first`);
  }
  const clash = sql(db, 'SELECT id FROM vaults WHERE name = ? AND id <> ?').get(v.name, v.id) as { id: string } | undefined;
  if (clash) throw new Error(`vault "${v.id}" is named "${v.name}", a name local vault "${clash.id}" already has`);
  sql(
    db,
    `INSERT INTO vaults (id, name, client, description, keywords_json, summary, origin, loaded_at) VALUES (?, ?, ?, ?, ?, ?, 'sync', ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, client = excluded.client, description = excluded.description,
       keywords_json = excluded.keywords_json, summary = excluded.summary, loaded_at = excluded.loaded_at`,
  ).run(v.id, v.name, v.client, v.description, json.write(v.keywords), v.summary, now);
}

/** Synced vaults of this remote that the key no longer reaches: dropped with everything in them. */
export function dropUnreachable(db: Db, remoteUrl: string, reachable: Set<string>): string[] {
  const synced = sql(db, "SELECT v.id FROM vaults v JOIN sync_state s ON s.vault_id = v.id WHERE v.origin = 'sync' AND s.remote_url = ?").pluck().all(remoteUrl) as string[];
  const gone = synced.filter((id) => !reachable.has(id));
  writeTransaction(db, () => {
    for (const id of gone) {
      sql(db, 'DELETE FROM vaults WHERE id = ?').run(id);
      sql(db, 'DELETE FROM sync_state WHERE vault_id = ?').run(id);
      sql(db, 'DELETE FROM sync_checkpoints WHERE vault_id = ?').run(id);
      sql(db, 'DELETE FROM sync_id_map WHERE vault_id = ?').run(id);
    }
  });
  return gone;
}
