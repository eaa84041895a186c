/**
 * The hash of what dist/ is built from (src/, views/, the build's own scripts and config, package.json). tsup writes
 * it to dist/.source-hash when it builds; the test suite's global setup (test/global-setup.ts) compares it with the
 * sources, so a single test file run after an edit rebuilds dist/ instead of testing stale code.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const INPUTS = ['src', 'views', 'scripts/build-views.mjs', 'tsup.config.ts', 'package.json', 'tsconfig.json'];
export const SOURCE_HASH_FILE = '.source-hash';

export function sourceHash(root) {
  const files = [];
  const walk = (path) => {
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else files.push(path);
  };
  for (const input of INPUTS) walk(join(root, input));
  const hash = createHash('sha256');
  for (const file of files.map((f) => relative(root, f).replaceAll('\\', '/')).sort())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}
