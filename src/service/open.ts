/**
 * How the command line reaches a store (issue 20: surfaces and the CLI never import src/store). The CLI
 * holds the handle it gets here and passes it to the service, the loader and the key functions; it runs no
 * query of its own. Opening means: migrated to the latest schema, and swept of what interrupted writes left.
 */
import { existsSync } from 'node:fs';
import { allArtifactPaths } from '../store/files.js';
import { artifactAbsolutePath } from '../render/artifacts.js';
import { connect, openDb, storePath, type Db } from '../store/db.js';
import {
  countLeftovers,
  describeLeftovers,
  findLeftovers,
  removeLeftovers,
  sweepLeftovers,
  type Leftovers,
} from '../store/leftovers.js';
import { sqliteEngine, storeHealth, vectorExtensionVersion, type StoreHealth } from '../store/health.js';
import { log } from '../log.js';

/** An open store, as the CLI passes it around. */
export type Store = Db;
export type { Leftovers, StoreHealth };
export { countLeftovers, describeLeftovers, sqliteEngine, storePath, vectorExtensionVersion };
/** What the CLI's own commands read of a store: the outbox (`vault-tools outbox`), whether vectors can be built (`reindex`). */
export { listOutbox } from '../store/outbox.js';
export { hasVectorExtension, isStoreBusy, vectorExtensionError } from '../store/db.js';
/** A `--vault` option, by id or name: the rule `vault` arguments follow (store/vaults' findReachableVault). */
export { allVaults, findVault } from '../store/vaults.js';

export const storeExists = (dataDir: string): boolean => existsSync(storePath(dataDir));

/** The data dir's store, created and migrated as needed, with stale leftovers of interrupted writes removed. */
export function openDataDirStore(dataDir: string): Store {
  const db = openDb(dataDir);
  sweepOnOpen(db, dataDir);
  return db;
}

/** A sweep that fails (a file another user owns, say) is reported and never stops the command: doctor shows what is left. */
function sweepOnOpen(db: Db, dir: string): void {
  try {
    const removed = sweepLeftovers(db, dir);
    if (countLeftovers(removed)) log.info(`removed ${describeLeftovers(removed)} left in ${dir} by interrupted writes`);
  } catch (err) {
    log.warn(
      `could not remove what interrupted writes left in ${dir}: ${(err as Error).message}; \`vault-tools doctor\` lists it`,
    );
  }
}

/** The existing store, opened read-only (not even a migration is written): for checks that must change nothing. */
export function openStoreReadOnly(dataDir: string): Store {
  return connect(storePath(dataDir), { readonly: true, fileMustExist: true });
}

/** Opens the store, runs `check`, closes it. */
function withStore<T>(dataDir: string, check: (db: Db) => T): T {
  const db = openDb(dataDir);
  try {
    return check(db);
  } finally {
    db.close();
  }
}

/** Schema version, integrity and counts of the data dir's store (opened, and so migrated, for the check). */
export const checkStore = (dataDir: string): StoreHealth => withStore(dataDir, storeHealth);

/** The stale leftovers of interrupted writes in the data dir; with `remove`, also removed. */
export const leftoversIn = (dataDir: string, remove = false): Leftovers =>
  withStore(dataDir, (db) => {
    const found = findLeftovers(db, dataDir);
    if (remove) removeLeftovers(dataDir, found);
    return found;
  });

/**
 * The artifacts (charts, exports) whose files live under the data dir, and how many of those files are
 * missing: a backup holds the store, not these files (issue 48), so after a restore elsewhere they are listed
 * without them; `backup`, `restore` and `doctor` say so.
 */
export function artifactFiles(db: Store, dataDir: string): { total: number; missing: number } {
  const paths = allArtifactPaths(db);
  return { total: paths.length, missing: paths.filter((p) => !existsSync(artifactAbsolutePath(dataDir, p))).length };
}

/** artifactFiles of the data dir's store (opened, so migrated). */
export const artifactFilesIn = (dataDir: string) => withStore(dataDir, (db) => artifactFiles(db, dataDir));
