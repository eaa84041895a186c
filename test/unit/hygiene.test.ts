/**
 * What a published package needs (issue 53): a LICENSE that says what package.json says, and a linter that
 * `npm test` (and so CI) runs before the tests, passing on the code as it is.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  license: string;
  scripts: Record<string, string>;
};

describe('package hygiene', () => {
  it('LICENSE is the MIT licence package.json names, with its holder', () => {
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(pkg.license).toBe('MIT');
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) 2026 vault-tools contributors\n/);
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });

  it('npm test lints before it runs vitest', () => {
    const steps = pkg.scripts.test!.split('&&').map((s) => s.trim());
    expect(steps).toContain('npm run lint');
    expect(steps.indexOf('npm run lint')).toBeLessThan(steps.findIndex((s) => s.startsWith('vitest')));
    expect(pkg.scripts.lint).toMatch(/^biome (check|lint)/);
  });

  it('the linter passes on the code', () => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/@biomejs/biome/bin/biome'), 'lint', '--colors=off'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
