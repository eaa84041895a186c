/**
 * Writes a vault into a folder in the format `import` reads (docs/fixture-format.md). Everything is written
 * into a hidden staging folder inside the target first and read back with the importer's own reader
 * (read.ts), so what lands is a folder `import` accepts; only then are the entries moved into place, each
 * by a rename (which replaces a symbolic link itself, never the file it points to).
 */
import { lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { quoted } from '../core/errors.js';
import { resolveInside } from '../safe-path.js';
import { FixtureError, readVaultDir } from './read.js';
import { FIXTURE_FILES, meetingSchema } from './schema.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../store/private-files.js';
import { MEETINGS_DIR } from './layout.js';

/** A target the export will not write into, with why. */
export class ExportRefused extends Error {}

const FAMILY_FILE_NAMES = new Set(['vault.json', ...FIXTURE_FILES.map((f) => `${f}.json`)]);
const isFormatEntry = (name: string) =>
  FAMILY_FILE_NAMES.has(name.toLowerCase()) || name.toLowerCase() === MEETINGS_DIR;

/**
 * The target folder, checked: a real folder (made when missing; its parent must exist), not a symbolic link
 * (which would send the files elsewhere), and empty of visible entries unless `force`. With `force`, only
 * entries of the vault format may be there (they are replaced): anything else would make the folder one
 * `import` refuses, and is not ours to delete. Hidden entries (`.git`) are left alone either way.
 */
function prepareTarget(target: string, force: boolean): void {
  let stats;
  try {
    stats = lstatSync(target);
  } catch {
    try {
      mkdirSync(target, { mode: PRIVATE_DIR_MODE });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new ExportRefused(
        code === 'ENOENT'
          ? `${target}: its parent folder does not exist`
          : `${target}: cannot be created (${code ?? (err as Error).message})`,
      );
    }
    return;
  }
  if (stats.isSymbolicLink()) {
    throw new ExportRefused(
      `${target}: is a symbolic link (to ${readlinkSync(target)}); export writes only into a real folder, so the files cannot land somewhere else; name the folder itself`,
    );
  }
  if (!stats.isDirectory()) throw new ExportRefused(`${target}: is a file, not a folder`);
  const visible = readdirSync(target).filter((n) => !n.startsWith('.'));
  if (!visible.length) return;
  if (!force) {
    throw new ExportRefused(
      `${target}: is not empty (${visible.slice(0, 5).join(', ')}${visible.length > 5 ? ', …' : ''}); choose an empty folder, or pass --force to replace the vault files in it`,
    );
  }
  const foreign = visible.filter((n) => !isFormatEntry(n));
  if (foreign.length) {
    throw new ExportRefused(
      `${target}: holds ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''}, which are not files of the vault format; --force replaces only vault files, so move them out first (import would refuse them)`,
    );
  }
}

function writeJson(path: string, value: unknown): void {
  // Private, like a backup: transcripts, quotes and e-mail are the client's, not every local user's.
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`, { flag: 'wx', mode: PRIVATE_FILE_MODE });
}

/** The records in a folder: vault.json, one file per family (empty ones as `[]`), meetings/<id>.json. */
function writeRecords(dir: string, fixture: Record<string, unknown>): void {
  writeJson(join(dir, 'vault.json'), fixture.vault);
  for (const family of FIXTURE_FILES) writeJson(join(dir, `${family}.json`), fixture[family] ?? []);
  const meetings = join(dir, MEETINGS_DIR);
  mkdirSync(meetings, { mode: PRIVATE_DIR_MODE });
  for (const m of fixture.meetings as { id: string }[]) writeJson(resolveInside(meetings, `${m.id}.json`), m);
}

/** Moves the staged entries over the target's, removing same-named entries in another case first (`People.JSON`). */
function moveIntoPlace(staging: string, target: string): void {
  const existing = readdirSync(target).filter((n) => !n.startsWith('.') && isFormatEntry(n));
  const trash = join(staging, '.replaced');
  mkdirSync(trash);
  for (const name of existing) renameSync(join(target, name), join(trash, name));
  for (const name of readdirSync(staging).filter((n) => !n.startsWith('.')))
    renameSync(join(staging, name), join(target, name));
}

export interface WrittenVault {
  dir: string;
  meetings: number;
  files: number;
}

/**
 * Writes `fixture` (from fixtureFromRows) into `targetArg` as a vault folder. Throws ExportRefused for a
 * target it will not write into, or when the vault does not make a folder `import` accepts (naming the
 * problems); in both cases nothing in the target has changed.
 */
/**
 * Meeting ids become file names (`meetings/<id>.json`): one the format does not allow (a synced id such as
 * `../x`, `a/b`, a NUL, 300 characters) is refused by name before anything is written.
 */
function checkMeetingIds(fixture: Record<string, unknown>): void {
  const bad = (fixture.meetings as { id: string }[])
    .map((m) => m.id)
    .filter((id) => !meetingSchema.shape.id.safeParse(id).success);
  if (!bad.length) return;
  throw new ExportRefused(
    `meeting id${bad.length === 1 ? '' : 's'} ${bad.slice(0, 5).map(quoted).join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''} cannot be a file name in the folder format (ids are letters, digits, ".", "_" or "-", at most 80, starting with a letter or digit); nothing was written`,
  );
}

export function writeVaultDir(
  fixture: Record<string, unknown>,
  targetArg: string,
  { force = false } = {},
): WrittenVault {
  checkMeetingIds(fixture);
  const target = resolve(targetArg);
  prepareTarget(target, force);
  const staging = join(target, `.vault-tools-export-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: PRIVATE_DIR_MODE });
  try {
    writeRecords(staging, fixture);
    try {
      readVaultDir(staging);
    } catch (err) {
      if (err instanceof FixtureError) {
        throw new ExportRefused(
          `this vault does not fit the folder format, so import could not read it back (nothing was written):\n- ${err.problems.slice(0, 20).join('\n- ').replaceAll(staging, target)}`,
        );
      }
      throw err;
    }
    moveIntoPlace(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const meetings = (fixture.meetings as unknown[]).length;
  return { dir: target, meetings, files: FIXTURE_FILES.length + 1 + meetings };
}
