/**
 * A test file run on its own tests the sources as they are (issue 53): the suite's global setup rebuilds dist/ when
 * the hash of its sources (scripts/source-hash.mjs, written by tsup into dist/.source-hash) differs.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script
import { SOURCE_HASH_FILE, sourceHash } from '../../scripts/source-hash.mjs';
import { ROOT, tempDir } from '../helpers.js';

const tmp = tempDir('vt-source-hash-');
afterAll(() => tmp.cleanup());

describe('dist/ freshness', () => {
  it('dist/ was built from the sources as they are now', () => {
    expect(readFileSync(join(ROOT, 'dist', SOURCE_HASH_FILE), 'utf8').trim()).toBe(sourceHash(ROOT));
  });

  it('the source hash changes with any source, and only with a source', () => {
    const root = tmp.dir;
    for (const dir of ['src/cli', 'views', 'scripts', 'test']) mkdirSync(join(root, dir), { recursive: true });
    for (const file of [
      'src/cli/index.ts',
      'views/chart.ts',
      'scripts/build-views.mjs',
      'tsup.config.ts',
      'package.json',
      'tsconfig.json',
    ])
      writeFileSync(join(root, file), `// ${file}\n`);
    const first = sourceHash(root) as string;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(root, 'test', 'a.test.ts'), 'not a source of dist/');
    expect(sourceHash(root)).toBe(first);
    writeFileSync(join(root, 'src/cli/index.ts'), '// edited\n');
    expect(sourceHash(root)).not.toBe(first);
  });
});
