/** The vaults the remote key reaches (list_vaults), and the local vault rows a pull keeps in step with them. */
import { z } from 'zod';
import { writeTransaction, type Db } from '../../store/db.js';
import { forgetSyncedVault } from '../../store/sync-checkpoints.js';
import { deleteVault, otherVaultNamed, syncedVaultIds, upsertSyncedVault, vaultOrigin } from '../../store/vaults.js';
import { RemoteError } from '../remote.js';
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
  // Taken as an empty list, it would drop every synced vault: nothing can be pulled without it.
  if (!Array.isArray(data.vaults))
    throw new RemoteError(502, 'bad_response', 'list_vaults: the answer has no "vaults" list');
  return parseEach(ctx, 'vaults', vault, data.vaults).map((r) => r.item);
}

/**
 * Creates or updates the local row of a synced vault. A vault of the same id or name that came from
 * fixtures or an import is the user's own data: it is never overwritten (the error says what to do).
 */
export function upsertVault(db: Db, v: RemoteVault, now: string): void {
  const origin = vaultOrigin(db, v.id);
  if (origin !== undefined && origin !== 'sync') {
    throw new Error(
      `vault "${v.id}" exists here from ${origin === 'fixture' ? 'the demo fixtures' : 'an import'}; sync into another data dir (--data-dir) or remove it first`,
    );
  }
  const clash = otherVaultNamed(db, v.name, v.id);
  if (clash) throw new Error(`vault "${v.id}" is named "${v.name}", a name local vault "${clash}" already has`);
  upsertSyncedVault(db, v, now);
}

/** Synced vaults of this remote that the key no longer reaches: dropped with everything in them. */
export function dropUnreachable(db: Db, remoteUrl: string, reachable: Set<string>): string[] {
  const synced = syncedVaultIds(db, remoteUrl);
  const gone = synced.filter((id) => !reachable.has(id));
  writeTransaction(db, () => {
    for (const id of gone) {
      deleteVault(db, id);
      forgetSyncedVault(db, id);
    }
  });
  return gone;
}
