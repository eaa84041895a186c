/**
 * `doctor` on a Node line past its end of life says so once: in its node check (a warning with the fix), not
 * again on stderr above it. Run on Node 20, the pinned release scripts/node-version.mjs brings (as package.test.ts does).
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
  const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'node-version.mjs'), '20'], { encoding: 'utf8' });
  node20 = join(stdout.trim(), 'node');
  tmp = tempDir('vt-eol-');
}, 180_000);
afterAll(() => tmp?.cleanup());

/** doctor's stdout and stderr on Node 20 (it exits 1 when a check fails: the store's binding is built for this Node). */
async function doctor(args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(node20, [BIN, 'doctor', '--data-dir', tmp.dir, ...args], { encoding: 'utf8', env: { ...process.env, VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' } });
  } catch (err) {
    return err as { stdout: string; stderr: string };
  }
}

it('prints the end-of-life line once, as the node check', async () => {
  const { stdout, stderr } = await doctor([]);
  expect(stdout).toMatch(/^warn node {7}Node\.js v20\.\d+\.\d+ .*this Node\.js line has reached its end of life\n {5}fix: Node\.js 20\.\d+\.\d+ reached its end of life on 2026-04-30/);
  expect(`${stdout}${stderr}`.match(/reached its end of life on/g)).toHaveLength(1);
}, 120_000);

it('with --json, the notice is in the JSON only', async () => {
  const { stdout, stderr } = await doctor(['--json']);
  const node = (JSON.parse(stdout) as { checks: { name: string; warning?: boolean; fix?: string }[] }).checks.find((c) => c.name === 'node')!;
  expect(node.warning).toBe(true);
  expect(node.fix).toMatch(/reached its end of life on 2026-04-30/);
  expect(stderr).not.toMatch(/end of life/);
}, 120_000);
