/**
 * The clone's first command (`npm ci`) ends without npm 11's "install scripts not yet covered by
 * allowScripts" warning: every dependency with an install script (package-lock's hasInstallScript) has an
 * allowScripts entry, and the README says, where it gives that command, what each denied one is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { name?: string; hasInstallScript?: boolean }>;
};
// By package name, as npm matches allowScripts: an alias has its real name in the lock entry, its folder name otherwise.
const withScripts = [
  ...new Set(
    Object.entries(lock.packages).flatMap(([path, p]) =>
      path && p.hasInstallScript ? [p.name ?? path.split('node_modules/').at(-1)!] : [],
    ),
  ),
];

it('every dependency with an install script is approved or denied in allowScripts', () => {
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean')).toEqual([]);
});

it('every dependency npm ci would build with node-gyp is in allowScripts', () => {
  // npm ci reads a package's metadata from the lockfile, which has no place for `gypfile: false`: a package with a
  // binding.gyp and no install script of its own gets npm's default `node-gyp rebuild` (a header download from
  // nodejs.org, and a compile), whatever its own package.json says. better-sqlite3 13 is one (binaries included).
  const gyp = Object.entries(lock.packages).flatMap(([path, p]) => {
    if (!path || !existsSync(join(ROOT, path, 'binding.gyp'))) return [];
    const own = JSON.parse(readFileSync(join(ROOT, path, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    return own.scripts?.install || own.scripts?.preinstall ? [] : [p.name ?? path.split('node_modules/').at(-1)!];
  });
  expect(gyp).toContain('better-sqlite3');
  expect(gyp.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean')).toEqual([]);
  expect(pkg.allowScripts?.['better-sqlite3']).toBe(false);
});

it("the README explains each denied one where the clone's first command is", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const clone = readme.slice(readme.indexOf('**From a clone**'), readme.indexOf('**From the tarball**'));
  for (const [name, allowed] of Object.entries(pkg.allowScripts ?? {}))
    if (!allowed) expect(clone, name).toContain(`\`${name}\``);
});
