/** Facts about the installed package, read from its own package.json (found by walking up from this file). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'vault-tools')
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('vault-tools: cannot find its own package.json');
    dir = up;
  }
}

export const PACKAGE_ROOT = findRoot();
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
export const FIXTURES_DIR = join(PACKAGE_ROOT, 'fixtures');
export const BIN_PATH = join(PACKAGE_ROOT, 'bin', 'vault-tools.js');
