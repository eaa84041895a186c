/**
 * The clone's `npm ci` on a machine that is not ours (test/clean-npm.ts: empty npm user config, fresh HOME and
 * cache, no nodedir, only the npm registry reachable), reduced to the one package it was about: better-sqlite3 as
 * package.json and package-lock.json declare it, at commit 16acf51 (before the fix) and now. `npm ci` takes a
 * package's metadata from the lockfile, which cannot carry better-sqlite3 13's `gypfile: false`, so npm adds its
 * default `node-gyp rebuild` for the package's binding.gyp: at 16acf51 that asked nodejs.org for Node's headers and
 * failed the install; now package.json's allowScripts denies the script (13 ships its binaries in the package).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { cleanNpm, readInstallLog, type CleanNpm } from '../clean-npm.js';

/** main before this change: its CI passed only because this machine's ~/.npmrc sets nodedir. */
const BEFORE = '16acf51';

interface Manifests {
  pkg: { dependencies: Record<string, string>; allowScripts?: Record<string, boolean> };
  lock: { packages: Record<string, Record<string, unknown>> };
}

let tmp: { dir: string; cleanup(): void };
let npm: CleanNpm;
beforeAll(async () => {
  tmp = tempDir('vt-clean-install-');
  npm = await cleanNpm(tmp.dir);
});
afterAll(async () => {
  await npm?.close();
  tmp?.cleanup();
});

function atCommit(commit: string | undefined): Manifests {
  const read = (file: string) =>
    commit
      ? execFileSync('git', ['show', `${commit}:${file}`], { cwd: ROOT, encoding: 'utf8' })
      : readFileSync(join(ROOT, file), 'utf8');
  return { pkg: JSON.parse(read('package.json')), lock: JSON.parse(read('package-lock.json')) };
}

/** A project holding only better-sqlite3 (and what it needs), declared and locked as in `m`, installed with `npm ci`. */
async function npmCi(
  name: string,
  m: Manifests,
): Promise<{ status: number | null; log: string; dir: string; refused: string[] }> {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  const dependencies = { 'better-sqlite3': m.pkg.dependencies['better-sqlite3']! };
  const allowScripts =
    m.pkg.allowScripts && 'better-sqlite3' in m.pkg.allowScripts
      ? { 'better-sqlite3': m.pkg.allowScripts['better-sqlite3'] }
      : undefined;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      { name, version: '1.0.0', private: true, dependencies, ...(allowScripts && { allowScripts }) },
      null,
      2,
    ),
  );
  const entry = (path: string) => m.lock.packages[path] ?? expect.unreachable(`${path} is not in the lockfile`);
  const packages = {
    '': { name, version: '1.0.0', dependencies },
    'node_modules/better-sqlite3': entry('node_modules/better-sqlite3'),
    'node_modules/node-addon-api': entry('node_modules/node-addon-api'),
  };
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name, version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  // Not spawnSync: the refusing proxy runs in this process and must answer while npm runs.
  const asked = npm.refused.length;
  return new Promise((done) => {
    const child = execFile(
      'npm',
      ['ci', '--foreground-scripts', '--loglevel', 'info'],
      { cwd: dir, env: npm.env, maxBuffer: 64 * 1024 * 1024 },
      (_err, stdout, stderr) =>
        done({ status: child.exitCode, log: `${stdout}\n${stderr}`, dir, refused: npm.refused.slice(asked) }),
    );
  });
}

it(`at ${BEFORE}, npm ci runs node-gyp for better-sqlite3 13, which asks for Node's headers outside the registry and fails`, async () => {
  const r = await npmCi('before', atCommit(BEFORE));
  expect(r.status, r.log).not.toBe(0);
  const log = readInstallLog(r.log);
  expect(log.scripts).toContain('better-sqlite3@13.2.0 install');
  if (npm.proxied) expect(r.refused).toContain('nodejs.org:443');
  expect(log.gyp.join('\n')).toMatch(
    /gyp http GET https:\/\/nodejs\.org\/download\/release\/v[\d.]+\/node-v[\d.]+-headers\.tar\.gz/,
  );
}, 120_000);

it('now, npm ci runs nothing for it, fetches only from the registry, and the binding loads', async () => {
  const r = await npmCi('now', atCommit(undefined));
  expect(r.status, r.log).toBe(0);
  const log = readInstallLog(r.log);
  expect(log.scripts).toEqual([]);
  expect(log.gyp).toEqual([]);
  expect(log.fetched.length).toBeGreaterThan(0);
  expect(log.fetched.filter((url) => !url.startsWith(npm.registry))).toEqual([]);
  expect(r.refused).toEqual([]);
  const sqlite = execFileSync(
    process.execPath,
    [
      '-e',
      "const D=require('better-sqlite3');process.stdout.write(new D(':memory:').prepare('select sqlite_version() v').get().v)",
    ],
    { cwd: r.dir, encoding: 'utf8' },
  );
  expect(sqlite).toMatch(/^3\.\d+\.\d+$/);
}, 120_000);
