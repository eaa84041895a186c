/**
 * What a user installs: `npm pack`, then `npm install <tarball>` into an empty directory (dependencies
 * from the npm registry, native modules built or fetched as npm does), then the INSTALLED binary driven
 * by the MCP SDK client over stdio and by plain HTTP requests.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { tools } from '../../src/catalog/index.js';

let dir: string;
let cleanup: () => void;
let bin: string;
const env = { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off', VAULT_TOOLS_LOG: 'warn' };

beforeAll(() => {
  ({ dir, cleanup } = tempDir('vt-package-'));
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  // --ignore-scripts: dist/ is already built by the test command; rebuilding it here would race the other test files.
  npm(['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], ROOT);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  npm(['install', '--no-audit', '--no-fund', join(dir, tarball)], app);
  bin = join(app, 'node_modules', '.bin', 'vault-tools');
}, 600_000);

afterAll(() => cleanup?.());

it('installs with its build, fixtures and docs, and no sources', () => {
  const pkg = join(dir, 'app', 'node_modules', 'vault-tools');
  for (const f of ['bin/vault-tools.js', 'dist/cli.js', 'fixtures/northwind/vault.json', 'fixtures/meridian/vault.json', 'docs/fixture-format.md', 'README.md']) {
    expect(existsSync(join(pkg, f)), f).toBe(true);
  }
  expect(existsSync(join(pkg, 'src'))).toBe(false);
  expect(existsSync(join(pkg, 'test'))).toBe(false);  // The native matrix kernel ships as source and is built by the install (scripts/build-native.mjs), here on x64 Linux.
  expect(existsSync(join(pkg, 'native', 'matmul.cc'))).toBe(true);
  if (process.arch === 'x64' && process.platform === 'linux') expect(existsSync(join(pkg, 'native', 'vault-tools-matmul.node'))).toBe(true);
});

it('runs the installed demo over stdio with the MCP SDK client', async () => {
  const data = join(dir, 'data');
  execFileSync(bin, ['demo', '--data-dir', data, '--no-serve'], { env, stdio: 'ignore' });
  const client = new Client({ name: 'package-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: bin, args: ['demo', '--data-dir', data], env: env as Record<string, string>, stderr: 'pipe' }));
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    const stats = await client.callTool({ name: 'stats', arguments: { vault: 'meridian-health' } });
    expect((stats.structuredContent as { vault: { id: string } }).vault.id).toBe('meridian-health');
    // The chart renderer is a child process started from the installed bundle.
    const spec = { data: { values: [{ a: 1 }, { a: 2 }] }, mark: 'tick', encoding: { x: { field: 'a', type: 'quantitative' } } };
    const chart = await client.callTool({ name: 'render_chart', arguments: { vault: 'meridian-health', title: 'Installed', vega_lite_spec: spec } });
    expect(chart.isError, JSON.stringify(chart.content)).toBeFalsy();
    expect(chart.structuredContent).toMatchObject({ mimeType: 'image/png' });
  } finally {
    await client.close();
  }
}, 60_000);

it('serves the installed REST API on a free port', async () => {
  const data = join(dir, 'data');
  const child = spawn(bin, ['serve', '--data-dir', data, '--http', '0', '--no-stdio'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
        const m = /REST API on (http:\/\/[^/\s]+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const index = (await (await fetch(`${url}/v1`)).json()) as { version: string };
    expect(index.version).toBe('2026-09-02');
    const key = execFileSync('cat', [join(data, 'owner.key')], { encoding: 'utf8' }).trim();
    const r = await fetch(`${url}/v1/tools/list_vaults`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
    expect(((await r.json()) as { data: { vaults: unknown[] } }).data.vaults).toHaveLength(2);
    expect((await fetch(`${url}/v1/vaults`)).status).toBe(401);
  } finally {
    child.kill('SIGTERM');
  }
}, 60_000);
