/**
 * `doctor` on a Node line vault-tools does not support (Node 20, past its end of life) says so once. Run on Node 20,
 * the pinned release scripts/node-version.mjs brings (as package.test.ts does).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers.js';

const run = promisify(execFile);
let node20: string;
let tmp: { dir: string; cleanup(): void };
beforeAll(async () => {
  const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'node-version.mjs'), '20'], {
    encoding: 'utf8',
  });
  node20 = join(stdout.trim(), 'node');
  tmp = tempDir('vt-eol-');
}, 180_000);
afterAll(() => tmp?.cleanup());

/** doctor's stdout and stderr on Node 20 (it exits 1 when a check fails: the store's binding is built for this Node). */
async function doctor(args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(node20, [BIN, 'doctor', '--data-dir', tmp.dir, ...args], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
    });
  } catch (err) {
    return err as { stdout: string; stderr: string };
  }
}

// Node 20 is past its end of life and no longer supported (issue 46): `doctor`, the command meant to diagnose a
// machine, says so in one sentence, once, and exits non-zero, with or without --json; never a crash or a stack.
it('says once, in one sentence, which Node it needs', async () => {
  for (const args of [[], ['--json']]) {
    const { stdout, stderr } = await doctor(args);
    const all = `${stdout}${stderr}`;
    expect(all.match(/vault-tools needs Node\.js 22, 24 or 26 and this is Node\.js v?20\.\d+\.\d+/g)).toHaveLength(1);
    expect(all).not.toMatch(/\n\s+at /); // no stack
  }
}, 120_000);
