/**
 * What the command line needs to copy a store out and back (`backup`, `restore`) and a vault out in the
 * folder format (`export`): the CLI never imports src/store (issue 20), so it reaches them here.
 */
export { backupStore, backupTempPath, type BackupProgress, type BackupResult } from '../store/backup.js';
export { BackupRefused, hasStore, inspectBackup, restoreBackup, type BackupSummary } from '../store/restore.js';
export { exportVault, ExportRefused, type ExportResult } from '../vault-format/export.js';
