/**
 * The clone's first command (`npm ci`) ends without npm 11's "install scripts not yet covered by
 * allowScripts" warning: every dependency with an install script (package-lock's hasInstallScript) has an
 * allowScripts entry, and the README says, where it gives that command, what each denied one is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { name?: string; hasInstallScript?: boolean }> };
// By package name, as npm matches allowScripts: an alias (better-sqlite3-node20 is better-sqlite3 12) has its
// real name in the lock entry, its folder name otherwise.
const withScripts = [...new Set(Object.entries(lock.packages).flatMap(([path, p]) => (path && p.hasInstallScript ? [p.name ?? path.split('node_modules/').at(-1)!] : [])))];

it('every dependency with an install script is approved or denied in allowScripts', () => {
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean')).toEqual([]);
});

it("the README explains each denied one where the clone's first command is", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const clone = readme.slice(readme.indexOf('**From a clone**'), readme.indexOf('**From the tarball**'));
  for (const [name, allowed] of Object.entries(pkg.allowScripts ?? {})) if (!allowed) expect(clone, name).toContain(`\`${name}\``);
});
