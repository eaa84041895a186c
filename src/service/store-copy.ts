/**
 * What the command line needs to copy a store out and back (`backup`, `restore`) and a vault out in the
 * folder format (`export`): the CLI never imports src/store (issue 20), so it reaches them here.
 */
import {
  inspectBackup as inspectWith,
  restoreBackup as restoreWith,
  type BackupSummary,
  type RestoreResult,
} from '../store/restore.js';
import type { RuntimeSchema } from '../store/restore-schema.js';
import { vectorTableSchema } from '../search/vectors.js';
import { WORD_TABLE_NAME, wordIndexSchema } from '../search/word-index.js';

export { backupStore, backupTempPath, type BackupProgress, type BackupResult } from '../store/backup.js';
export { BackupRefused, hasStore, type BackupSummary, type CarriedKey, type RestoreResult } from '../store/restore.js';
export { takeRestoreLock, StoreRestoring } from '../store/restore-lock.js';
export { exportVault, ExportRefused, type ExportResult } from '../vault-format/export.js';

/** What the search indexes add to the schema at run time, each made by its own code (restore compares with it). */
const RUNTIME_SCHEMA: RuntimeSchema[] = [
  (name) => {
    const token = WORD_TABLE_NAME.exec(name)?.[1];
    return token ? wordIndexSchema(token) : undefined;
  },
  vectorTableSchema,
];

export const inspectBackup = (file: string, opts?: { whole?: boolean }): BackupSummary =>
  inspectWith(file, RUNTIME_SCHEMA, opts);
export const restoreBackup = (dataDir: string, file: string, opts: { keepKeys?: boolean } = {}): RestoreResult =>
  restoreWith(dataDir, file, { ...opts, runtime: RUNTIME_SCHEMA });
