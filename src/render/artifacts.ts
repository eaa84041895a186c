/**
 * Where the files of a vault live on disk: `<data dir>/<artifacts|mail>/<vault>/…`, every part one safe
 * segment, checked to stay inside its folder. The store keeps paths relative to the data dir.
 */
import { isAbsolute, join, relative } from 'node:path';
import { resolveInside, safeSegment } from '../safe-path.js';
import type { CONTENT_DIRS } from '../store/private-files.js';

/**
 * Where a vault's file goes: `<data dir>/<artifacts|mail>/<vault>/<names…>`, each part one safe segment (the
 * same folder sync gives the vault's downloads) and checked to stay inside its content folder. `relative` is
 * what the store keeps.
 */
export function vaultFilePath(
  dataDir: string,
  folder: (typeof CONTENT_DIRS)[number],
  vaultId: string,
  ...names: string[]
): { absolute: string; relative: string } {
  const absolute = resolveInside(join(dataDir, folder), safeSegment(vaultId), ...names.map(safeSegment));
  return { absolute, relative: relative(dataDir, absolute) };
}

export const artifactAbsolutePath = (dataDir: string, storedPath: string) =>
  isAbsolute(storedPath) ? storedPath : join(dataDir, storedPath);
