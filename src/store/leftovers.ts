/**
 * What an interrupted write leaves in the data dir (a `kill -9`, a crash, a full disk mid-export): `*.partial`
 * files that were never renamed, and artifact folders whose row was never committed. Nothing refers to them,
 * so nothing would ever remove them; `serve`, `demo` and the other commands sweep them when they open the
 * store, and `doctor` reports them (`doctor --fix` removes them).
 *
 * Only what has not changed for STALE_AFTER_MS counts: another process may be writing an export right now,
 * and its folder has no row until the file is complete. Deletions never leave the content folder they were
 * found in, and never follow a symbolic link.
 */
import { lstatSync, readdirSync, rmSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { sql, type Db } from './db.js';
import { CONTENT_DIRS } from './private-files.js';

export const STALE_AFTER_MS = 60 * 60 * 1000;

export interface Leftovers {
  /** `*.partial` files under the content folders (artifacts, mail), absolute paths. */
  partials: string[];
  /** `artifacts/<vault>/<artifact>` folders no artifact row points into, absolute paths. */
  orphanFolders: string[];
}

export const countLeftovers = (l: Leftovers) => l.partials.length + l.orphanFolders.length;

export function describeLeftovers(l: Leftovers): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return [
    l.partials.length ? plural(l.partials.length, 'unfinished `.partial` file', 'unfinished `.partial` files') : '',
    l.orphanFolders.length
      ? plural(l.orphanFolders.length, 'artifact folder without a row', 'artifact folders without a row')
      : '',
  ]
    .filter(Boolean)
    .join(' and ');
}

const entries = (dir: string): Dirent[] => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
};

/** When `path` last changed; Infinity (never stale) when it vanished meanwhile, e.g. removed by its own writer. */
const changedAt = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity;

/** The newest modification time of a folder and everything in it (subfolders included). */
function newestChange(path: string): number {
  let newest = changedAt(path);
  for (const e of entries(path))
    newest = Math.max(newest, e.isDirectory() ? newestChange(join(path, e.name)) : changedAt(join(path, e.name)));
  return newest;
}

function partialsUnder(dir: string, staleBefore: number): string[] {
  return entries(dir).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return partialsUnder(path, staleBefore);
    return e.isFile() && e.name.endsWith('.partial') && changedAt(path) < staleBefore ? [path] : [];
  });
}

/** The leftovers in `dataDir` that have not changed for `minAgeMs`. */
export function findLeftovers(db: Db, dataDir: string, now = Date.now(), minAgeMs = STALE_AFTER_MS): Leftovers {
  const staleBefore = now - minAgeMs;
  const artifactsRoot = resolve(dataDir, 'artifacts');
  const owned = new Set(
    (sql(db, 'SELECT path FROM artifacts WHERE path IS NOT NULL').pluck().all() as string[]).map((p) =>
      dirname(isAbsolute(p) ? resolve(p) : resolve(dataDir, p)),
    ),
  );
  const orphanFolders = entries(artifactsRoot)
    .filter((vault) => vault.isDirectory())
    .flatMap((vault) =>
      entries(join(artifactsRoot, vault.name))
        .filter((a) => a.isDirectory())
        .map((a) => join(artifactsRoot, vault.name, a.name)),
    )
    .filter((folder) => !owned.has(folder) && newestChange(folder) < staleBefore);
  const inOrphan = (path: string) => orphanFolders.some((folder) => path.startsWith(folder + sep));
  const partials = CONTENT_DIRS.flatMap((dir) => partialsUnder(resolve(dataDir, dir), staleBefore)).filter(
    (p) => !inOrphan(p),
  );
  return { partials, orphanFolders };
}

/** Removes what findLeftovers found, once every path is checked to lie inside one of the data dir's content folders. */
export function removeLeftovers(dataDir: string, leftovers: Leftovers): void {
  const roots = CONTENT_DIRS.map((dir) => resolve(dataDir, dir) + sep);
  const targets = [...leftovers.partials, ...leftovers.orphanFolders].map((path) => resolve(path));
  const outside = targets.find((target) => !roots.some((root) => target.startsWith(root)));
  if (outside) throw new Error(`refusing to remove ${outside}: it is outside ${roots.join(' and ')}`);
  for (const target of targets) rmSync(target, { recursive: true, force: true });
}

/** Finds and removes the stale leftovers; returns what it removed. */
export function sweepLeftovers(db: Db, dataDir: string, now = Date.now()): Leftovers {
  const found = findLeftovers(db, dataDir, now);
  removeLeftovers(dataDir, found);
  return found;
}
