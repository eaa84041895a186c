/**
 * What a user installs, on every Node.js line vault-tools supports: `npm pack` once, then for each line
 * `npm install <tarball>` into an empty directory with that Node first on PATH (dependencies from the npm
 * registry, better-sqlite3 compiled for that Node against its own headers), then the INSTALLED binary, run by
 * that Node, driven by the MCP SDK clients over stdio in both protocol eras (a tool call, a chart, a PDF export)
 * and by plain HTTP requests (`serve --http`: the REST API and the OAuth metadata).
 *
 * The lines: this test's own Node, plus the others of package.json's `engines`, brought from the npm registry by
 * scripts/node-version.mjs (pinned releases, cached in .cache/node/). CI runs the suite on Node 26, so this file
 * covers 26, 20, 22 and 24. The installs run two at a time (each one compiles SQLite, one core for a minute and
 * more), started together in beforeAll so they overlap with the checks of the lines already installed.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { connectMcp, type Era } from '../mcp-clients.js';
import { tools } from '../../src/catalog/index.js';
import { TESTED_NODE_LINES } from '../../src/cli/node-support.js';

const run = promisify(execFile);
const OWN = Number(process.versions.node.split('.')[0]);
/** This Node's line first (its install needs no download), then the other supported lines, newest first. */
const LINES = [OWN, ...[...TESTED_NODE_LINES].reverse().filter((l) => l !== OWN)];
/** How many installs compile at once: two cores. */
const PARALLEL_INSTALLS = 2;
/** A runtime warning from Node or a dependency that would reach a user's terminal. */
const RUNTIME_WARNING = /unsupported runtime|deprecationwarning|experimentalwarning|\bwarning:|\(node:\d+\)/i;

interface Installed {
  node: string;
  version: string;
  bin: string;
  app: string;
  env: Record<string, string>;
}

let tmp: { dir: string; cleanup(): void };
const installs = new Map<number, Promise<Installed>>();

/** The bin folder of a Node line: this process's own, or the pinned release scripts/node-version.mjs brings. */
async function nodeBinOf(line: number): Promise<string> {
  if (line === OWN) return dirname(process.execPath);
  const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'node-version.mjs'), String(line)], { encoding: 'utf8' });
  return stdout.trim();
}

async function install(line: number, tarball: string): Promise<Installed> {
  const started = Date.now();
  const nodeBin = await nodeBinOf(line);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_update_notifier: 'false',
    VAULT_TOOLS_KEY: '',
    VAULT_TOOLS_HOME: '',
    VAULT_TOOLS_INDEX: 'off',
    VAULT_TOOLS_LOG: 'warn',
  };
  // That Node's own headers for the native builds (a release from the registry carries include/node); this
  // process's Node keeps whatever the environment says, as a user's install would.
  if (line !== OWN) env.npm_config_nodedir = dirname(nodeBin);
  const app = join(tmp.dir, `node-${line}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  // npm itself is this machine's, run by the Node first on PATH, as `npm install` in that user's shell would be.
  await run('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: app, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const node = join(nodeBin, 'node');
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  // In the run's output (CI's record of which Node each install ran on, and what an install costs under that load).
  console.log(`package test: Node ${version} brought and the tarball installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { node, version, bin: join(app, 'node_modules', '.bin', 'vault-tools'), app, env };
}

beforeAll(() => {
  tmp = tempDir('vt-package-');
  // --ignore-scripts: dist/ is already built by the test command; rebuilding it here would race the other test files.
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp.dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
  const tarball = join(tmp.dir, readdirSync(tmp.dir).find((f) => f.endsWith('.tgz'))!);
  // Every line's install starts now, in LINES order, PARALLEL_INSTALLS at a time.
  for (const line of LINES) {
    const p = limited(() => install(line, tarball));
    p.catch(() => undefined); // reported by that line's tests
    installs.set(line, p);
  }
}, 900_000); // npm pack, then the installs start (each line's own hook waits for its install)

let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(work: () => Promise<T>): Promise<T> {
  while (running >= PARALLEL_INSTALLS) await new Promise<void>((resume) => waiting.push(resume));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

afterAll(() => tmp?.cleanup());

describe.each(LINES)('installed on Node %i', (line) => {
  let inst: Installed;
  let data: string;
  beforeAll(async () => {
    inst = await installs.get(line)!;
    data = join(inst.app, 'data');
  }, 1_800_000); // waits for its install, which may queue behind two others: minutes each on a loaded machine

  it('runs on that Node, with its build, fixtures and docs, and no sources', () => {
    expect(inst.version).toMatch(new RegExp(`^v${line}\\.`));
    const pkg = join(inst.app, 'node_modules', 'vault-tools');
    for (const f of ['bin/vault-tools.js', 'dist/cli.js', 'fixtures/northwind/vault.json', 'fixtures/meridian/vault.json', 'docs/fixture-format.md', 'README.md']) {
      expect(existsSync(join(pkg, f)), f).toBe(true);
    }
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(existsSync(join(pkg, 'test'))).toBe(false);
    // The native matrix kernel ships as source and is built by the install (scripts/build-native.mjs), here on x64 Linux.
    expect(existsSync(join(pkg, 'native', 'matmul.cc'))).toBe(true);
    if (process.arch === 'x64' && process.platform === 'linux') expect(existsSync(join(pkg, 'native', 'vault-tools-matmul.node'))).toBe(true);
  });

  it('demo says so on an end-of-life Node and nothing about the runtime on a maintained one; doctor finds everything working', () => {
    const r = spawnSyncText(inst.bin, ['demo', '--data-dir', data, '--no-serve'], inst.env);
    expect(r.status, r.stderr).toBe(0);
    const notices = r.stderr.split('\n').filter((l) => /end of life/.test(l));
    if (line <= 20) expect(notices).toEqual([expect.stringMatching(new RegExp(`^vault-tools: Node\\.js ${inst.version.slice(1)} reached its end of life on 2026-04-30 .*install Node\\.js 22, 24 or 26`))]);
    else expect(notices).toEqual([]);
    expect(r.stderr).not.toMatch(RUNTIME_WARNING);
    // The installed bin's `#!/usr/bin/env node` finds that Node on PATH: doctor names it, and everything it needs
    // works (better-sqlite3 built for it, sqlite-vec, the embedder), a warning on an end-of-life line.
    const report = JSON.parse(execFileSync(inst.bin, ['doctor', '--json', '--data-dir', data], { env: inst.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as {
      ok: boolean;
      checks: { name: string; detail: string; warning?: boolean }[];
    };
    expect(report.ok, JSON.stringify(report.checks)).toBe(true);
    const node = report.checks.find((c) => c.name === 'node')!;
    expect(node.detail).toContain(`Node.js ${inst.version} `);
    expect(node.warning === true).toBe(line <= 20);
    expect(report.checks.find((c) => c.name === 'sqlite')!.detail).toMatch(/^better-sqlite3 loads; SQLite [\d.]+ with FTS5$/);
  });

  it.each(['modern', 'v1'] as Era[])('answers the %s MCP client over stdio: every tool, a call, a chart, a PDF export', async (era) => {
    let stderr = '';
    const key = readFileSync(join(data, 'owner.key'), 'utf8').trim();
    const client = await connectMcp({ era, wire: 'stdio', dataDir: data, key, server: { command: inst.bin, args: [], env: inst.env }, onStderr: (t) => (stderr += t) }).catch((err: Error) => {
      // What the server said before it went, in the failure (a start-up crash on one Node line shows only here).
      throw new Error(`${err.message}; the server's stderr: ${stderr.slice(-2000) || '(nothing)'}`);
    });
    try {
      if (era === 'modern') expect(client.protocolVersion()).toBe('2026-07-28');
      else expect(client.protocolVersion()).not.toBe('2026-07-28');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
      const stats = await client.callTool({ name: 'stats', arguments: { vault: 'meridian-health' } });
      expect((stats.structuredContent as { vault: { id: string } }).vault.id).toBe('meridian-health');
      // The chart renderer is a child process started from the installed bundle, on the same Node.
      const spec = { data: { values: [{ a: 1 }, { a: 2 }] }, mark: 'tick', encoding: { x: { field: 'a', type: 'quantitative' } } };
      const chart = await client.callTool({ name: 'render_chart', arguments: { vault: 'meridian-health', title: 'Installed', vega_lite_spec: spec } });
      expect(chart.isError, JSON.stringify(chart.content)).toBeFalsy();
      const png = readFileSync(fileURLToPath((chart.structuredContent as { url: string }).url));
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      const pdf = await client.callTool({ name: 'export_report', arguments: { vault: 'meridian-health', dataset: 'conflicts', format: 'pdf' } });
      expect(pdf.isError, JSON.stringify(pdf.content)).toBeFalsy();
      expect(pdf.structuredContent).toMatchObject({ kind: 'report', mimeType: 'application/pdf' });
      expect(readFileSync(fileURLToPath((pdf.structuredContent as { url: string }).url)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    } finally {
      await client.close();
    }
    expect(stderr).not.toMatch(RUNTIME_WARNING);
  }, 120_000);

  it('serves the REST API and the OAuth metadata on a free port, with no runtime warning', async () => {
    const child = spawn(inst.bin, ['serve', '--data-dir', data, '--http', '0', '--no-stdio'], { env: inst.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (d) => {
          err += d;
          const m = /REST API on (http:\/\/[^/\s]+)/.exec(err);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      const index = (await (await fetch(`${url}/v1`)).json()) as { version: string };
      expect(index.version).toBe('2026-09-02');
      const key = readFileSync(join(data, 'owner.key'), 'utf8').trim();
      const r = await fetch(`${url}/v1/tools/list_vaults`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
      expect(((await r.json()) as { data: { vaults: unknown[] } }).data.vaults).toHaveLength(2);
      expect((await fetch(`${url}/v1/vaults`)).status).toBe(401);
      // The OAuth authorization server (oidc-provider, loaded on this first listener) answers its metadata.
      const as = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(as).toMatchObject({ issuer: url, code_challenge_methods_supported: ['S256'], token_endpoint: `${url}/oauth/token` });
    } finally {
      await new Promise((done) => (child.exitCode !== null ? done(undefined) : child.once('exit', done).kill('SIGTERM')));
    }
    expect(err).not.toMatch(RUNTIME_WARNING);
  }, 60_000);
});

function spawnSyncText(command: string, args: string[], env: Record<string, string>): { status: number | null; stderr: string } {
  const r = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}
