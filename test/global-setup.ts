/**
 * Tests run the built CLI (dist/). Before any file runs, dist/ is checked against the sources it was built from
 * (dist/.source-hash, written by tsup): stale or missing, it is rebuilt, so `npx vitest run <one file>` after an
 * edit tests the edit, not the previous build.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
// @ts-expect-error: a plain .mjs script, shared with tsup.config.ts
import { SOURCE_HASH_FILE, sourceHash } from '../scripts/source-hash.mjs';

const ROOT = resolve(import.meta.dirname, '..');

export default function setup(): void {
  const stamp = join(ROOT, 'dist', SOURCE_HASH_FILE);
  const built = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (built === sourceHash(ROOT)) return;
  process.stderr.write(
    `dist/ is ${built ? 'older than the sources' : 'not built or has no source hash'}: rebuilding it (tsup) before the tests\n`,
  );
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'tsup', 'dist', 'cli-default.js'), '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const after = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (after !== sourceHash(ROOT))
    throw new Error(
      'dist/ was rebuilt but its source hash still differs: a source changed during the build; run the tests again',
    );
}
