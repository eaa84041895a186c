/**
 * `vault-tools export`: one vault of the store, local writes applied, written as a folder `import` reads.
 * Reads (store/vault-rows.ts), maps (from-rows.ts), writes (write.ts): the loader's path run backwards.
 */
import type { Db } from '../store/db.js';
import { readVaultRows } from '../store/vault-rows.js';
import { fixtureFromRows } from './from-rows.js';
import { writeVaultDir, type WrittenVault } from './write.js';

export { ExportRefused } from './write.js';

export interface ExportResult extends WrittenVault {
  /** drafts the format has no place for (send_email with asDraft) */
  draftsLeftOut: number;
}

export function exportVault(
  db: Db,
  vaultId: string,
  dir: string,
  options: { force?: boolean; now?: Date } = {},
): ExportResult {
  const rows = readVaultRows(db, vaultId);
  if (!rows.vault.length) throw new Error(`no vault ${vaultId} in the store`);
  const today = (options.now ?? new Date()).toISOString().slice(0, 10);
  const written = writeVaultDir(fixtureFromRows(rows, today), dir, { force: options.force });
  return { ...written, draftsLeftOut: rows.sentEmails.filter((e) => e.status === 'draft').length };
}
