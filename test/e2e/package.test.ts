/**
 * What a user installs, on every Node.js line vault-tools supports, on a machine that is not ours: `npm pack` once,
 * then for each line `npm install <tarball>` into an empty directory with that Node first on PATH, with an empty npm
 * user config, a fresh HOME and an empty npm cache of its own, and every host but the npm registry refused
 * (test/clean-npm.ts). npm's install log then says what ran and what was fetched: nothing but the registry, no
 * node-gyp, and no install script but the package's own (the embedder's optional kernel, built with the headers of
 * the Node that runs it, never downloaded ones). Then the INSTALLED binary, run by that Node, is driven by the MCP
 * SDK clients over stdio in both protocol eras (a tool call, a chart, a PDF export) and by plain HTTP requests
 * (`serve --http`: the REST API and the OAuth metadata), and `npx` of the tarball starts on this test's own line.
 * On Node 20, which vault-tools no longer supports, the installed bin and `npx` say which Node it needs and exit 1.
 *
 * The lines: this test's own Node, plus the others of package.json's `engines` and Node 20, brought from the npm
 * registry by scripts/node-version.mjs (pinned releases, cached in .cache/node/). CI runs the suite on Node 26, so
 * this file covers 26, 24, 22 and 20. The installs run two at a time, started together in beforeAll so they overlap
 * with the checks of the lines already installed.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { connectMcp, type Era } from '../mcp-clients.js';
import { cleanNpm, readInstallLog, type CleanNpm } from '../clean-npm.js';
import { tools } from '../../src/catalog/index.js';
import { endOfLifeNotice, TESTED_NODE_LINES } from '../../src/cli/node-support.js';

const run = promisify(execFile);
const OWN = Number(process.versions.node.split('.')[0]);
/** This Node's line first, then the other supported lines, newest first. */
const LINES = [OWN, ...[...TESTED_NODE_LINES].reverse().filter((l) => l !== OWN)];
/** The line vault-tools dropped (past its end of life): installed too, to see every entry point refuse it. */
const REFUSED = 20;
/** How many installs run at once: two cores. */
const PARALLEL_INSTALLS = 2;
/** A runtime warning from Node or a dependency that would reach a user's terminal. */
const RUNTIME_WARNING = /unsupported runtime|deprecationwarning|experimentalwarning|\bwarning:|\(node:\d+\)/i;
/** The one sentence on a Node older than `engines`, as bin/vault-tools.js words it. */
const NEEDS_NODE =
  /^vault-tools needs Node\.js 22, 24 or 26 and this is Node\.js 20\.[\d.]+ \(\S+\): install Node\.js 26 \(https:\/\/nodejs\.org\/en\/download, or `nvm install 26`\) and run vault-tools with it\.\n$/;

interface Installed {
  node: string;
  version: string;
  bin: string;
  app: string;
  env: Record<string, string>;
  /** npm's log of the install (--loglevel info --foreground-scripts). */
  log: string;
  /** Its clean npm set-up; `refused` lists what anything run in `env` asked the refusing proxy for. */
  npm: CleanNpm;
}

let tmp: { dir: string; cleanup(): void };
let tarball: string;
const installs = new Map<number, Promise<Installed>>();
const npms: CleanNpm[] = [];

/** The bin folder of a Node line: this process's own, or the pinned release scripts/node-version.mjs brings. */
async function nodeBinOf(line: number): Promise<string> {
  if (line === OWN) return dirname(process.execPath);
  const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'node-version.mjs'), String(line)], {
    encoding: 'utf8',
  });
  return stdout.trim();
}

async function install(line: number): Promise<Installed> {
  const nodeBin = await nodeBinOf(line);
  // An npm cache of its own per line, empty: the time below is an install from nothing but the registry.
  const npm = await cleanNpm(join(tmp.dir, `npm-${line}`));
  npms.push(npm);
  const env: Record<string, string> = {
    ...npm.env,
    PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`,
    VAULT_TOOLS_KEY: '',
    VAULT_TOOLS_HOME: '',
    VAULT_TOOLS_INDEX: 'off',
    VAULT_TOOLS_LOG: 'warn',
  };
  const app = join(tmp.dir, `node-${line}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  const started = Date.now();
  // npm itself is this machine's, run by the Node first on PATH, as `npm install` in that user's shell would be.
  const { stdout, stderr } = await run('npm', ['install', '--foreground-scripts', '--loglevel', 'info', tarball], {
    cwd: app,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (Date.now() - started) / 1000;
  const node = join(nodeBin, 'node');
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const log = `${stdout}\n${stderr}`;
  const kernel = existsSync(join(app, 'node_modules', 'vault-tools', 'native', 'vault-tools-matmul.node'))
    ? 'the native kernel built'
    : 'no native kernel';
  // In the run's output: CI's record of what an install costs on each line, from an empty npm cache, and what ran.
  console.log(
    `package test: Node ${version}: tarball installed in ${seconds.toFixed(0)} s from an empty npm cache (load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}); install scripts: ${readInstallLog(log).scripts.join(', ') || 'none'}; ${kernel}`,
  );
  return { node, version, bin: join(app, 'node_modules', '.bin', 'vault-tools'), app, env, log, npm };
}

beforeAll(() => {
  tmp = tempDir('vt-package-');
  // --ignore-scripts: dist/ is already built by the test command; rebuilding it here would race the other test files.
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp.dir, '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  tarball = join(tmp.dir, readdirSync(tmp.dir).find((f) => f.endsWith('.tgz'))!);
  // Every line's install starts now, in LINES order, PARALLEL_INSTALLS at a time.
  for (const line of [...LINES, REFUSED]) {
    const p = limited(() => install(line));
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

/** Runs a command to its end without blocking this process (the refusing proxy lives here). */
function runToEnd(
  command: string,
  args: string[],
  opts: { cwd?: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      command,
      args,
      { ...opts, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (_e, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/** What every install on every line must show: only the registry, no compiler but the kernel's, no analytics ping. */
function expectRegistryOnly(inst: Installed): void {
  const log = readInstallLog(inst.log);
  expect(log.fetched.length).toBeGreaterThan(0);
  expect(log.fetched.filter((url) => !url.startsWith(inst.npm.registry))).toEqual([]);
  expect(inst.npm.refused).toEqual([]);
  expect(log.gyp).toEqual([]);
  // Each dependency's install script, reviewed: vault-tools's own (scripts/build-native.mjs: a compiler call with this
  // Node's own headers, or a one-line skip), and no other. Swagger UI's files ship inside dist/ (swagger-ui-dist is a
  // dev dependency), so its @scarf/scarf install-analytics ping is not installed at all.
  expect(log.scripts.map((s) => s.replace(/@[\d.]+ /, ' ')).sort()).toEqual(['vault-tools install']);
}

afterAll(async () => {
  // Anything asked of the refusing proxy after a line's checks (by a server the tests started) shows in the output.
  for (const npm of npms)
    if (npm.refused.length) console.log(`package test: the refusing proxy was asked for ${npm.refused.join(', ')}`);
  await Promise.all(npms.map((npm) => npm.close()));
  // About 2 GB of installs and npm caches: removing them took minutes on a loaded disk, so it runs on after the test.
  if (tmp) spawn('rm', ['-rf', tmp.dir], { detached: true, stdio: 'ignore' }).unref();
});

describe.each(LINES)('installed on Node %i', (line) => {
  let inst: Installed;
  let data: string;
  beforeAll(async () => {
    inst = await installs.get(line)!;
    data = join(inst.app, 'data');
  }, 1_800_000); // waits for its install, which may queue behind two others: minutes each on a loaded machine

  it('installed from the npm registry alone: nothing compiled but the optional kernel, nothing fetched elsewhere', () => {
    expectRegistryOnly(inst);
  });

  it('runs on that Node, with its build, fixtures and docs, and no sources', () => {
    expect(inst.version).toMatch(new RegExp(`^v${line}\\.`));
    const pkg = join(inst.app, 'node_modules', 'vault-tools');
    for (const f of [
      'bin/vault-tools.js',
      'dist/cli.js',
      'fixtures/northwind/vault.json',
      'fixtures/meridian/vault.json',
      'docs/fixture-format.md',
      'README.md',
    ]) {
      expect(existsSync(join(pkg, f)), f).toBe(true);
    }
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(existsSync(join(pkg, 'test'))).toBe(false);
    // The native matrix kernel ships as source and is built by the install (scripts/build-native.mjs), here on x64 Linux.
    expect(existsSync(join(pkg, 'native', 'matmul.cc'))).toBe(true);
    if (process.arch === 'x64' && process.platform === 'linux')
      expect(existsSync(join(pkg, 'native', 'vault-tools-matmul.node'))).toBe(true);
  });

  it('demo says so on an end-of-life Node and nothing about the runtime on a maintained one; doctor finds everything working', () => {
    const r = spawnSyncText(inst.bin, ['demo', '--data-dir', data, '--no-serve'], inst.env);
    expect(r.status, r.stderr).toBe(0);
    const notices = r.stderr.split('\n').filter((l) => /end of life/.test(l));
    // A supported line that has since ended (Node 22 from 30 April 2027) gets the one-line notice.
    expect(notices).toHaveLength(endOfLifeNotice(inst.version) ? 1 : 0);
    expect(r.stderr).not.toMatch(RUNTIME_WARNING);
    // The installed bin's `#!/usr/bin/env node` finds that Node on PATH: doctor names it, and everything it needs
    // works (better-sqlite3 built for it, sqlite-vec, the embedder), a warning on an end-of-life line.
    const report = JSON.parse(
      execFileSync(inst.bin, ['doctor', '--json', '--data-dir', data], {
        env: inst.env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as {
      ok: boolean;
      checks: { name: string; detail: string; warning?: boolean }[];
    };
    expect(report.ok, JSON.stringify(report.checks)).toBe(true);
    const node = report.checks.find((c) => c.name === 'node')!;
    expect(node.detail).toContain(`Node.js ${inst.version} `);
    expect(node.warning === true).toBe(Boolean(endOfLifeNotice(inst.version)));
    expect(report.checks.find((c) => c.name === 'sqlite')!.detail).toMatch(
      /^better-sqlite3 loads; SQLite [\d.]+ with FTS5$/,
    );
  });

  it.each(['modern', 'v1'] as Era[])(
    'answers the %s MCP client over stdio: every tool, a call, a chart, a PDF export',
    async (era) => {
      let stderr = '';
      const key = readFileSync(join(data, 'owner.key'), 'utf8').trim();
      const client = await connectMcp({
        era,
        wire: 'stdio',
        dataDir: data,
        key,
        server: { command: inst.bin, args: [], env: inst.env },
        onStderr: (t) => (stderr += t),
      }).catch((err: Error) => {
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
        const spec = {
          data: { values: [{ a: 1 }, { a: 2 }] },
          mark: 'tick',
          encoding: { x: { field: 'a', type: 'quantitative' } },
        };
        const chart = await client.callTool({
          name: 'render_chart',
          arguments: { vault: 'meridian-health', title: 'Installed', vega_lite_spec: spec },
        });
        expect(chart.isError, JSON.stringify(chart.content)).toBeFalsy();
        const png = readFileSync(fileURLToPath((chart.structuredContent as { url: string }).url));
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
        const pdf = await client.callTool({
          name: 'export_report',
          arguments: { vault: 'meridian-health', dataset: 'conflicts', format: 'pdf' },
        });
        expect(pdf.isError, JSON.stringify(pdf.content)).toBeFalsy();
        expect(pdf.structuredContent).toMatchObject({ kind: 'report', mimeType: 'application/pdf' });
        expect(
          readFileSync(fileURLToPath((pdf.structuredContent as { url: string }).url))
            .subarray(0, 5)
            .toString('latin1'),
        ).toBe('%PDF-');
      } finally {
        await client.close();
      }
      expect(stderr).not.toMatch(RUNTIME_WARNING);
    },
    120_000,
  );

  it('serves the REST API and the OAuth metadata on a free port, with no runtime warning', async () => {
    const child = spawn(inst.bin, ['serve', '--data-dir', data, '--http', '0', '--no-stdio'], {
      env: inst.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
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
      const r = await fetch(`${url}/v1/tools/list_vaults`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(((await r.json()) as { data: { vaults: unknown[] } }).data.vaults).toHaveLength(2);
      expect((await fetch(`${url}/v1/vaults`)).status).toBe(401);
      // The OAuth authorization server (oidc-provider, loaded on this first listener) answers its metadata.
      const as = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as Record<
        string,
        unknown
      >;
      expect(as).toMatchObject({
        issuer: url,
        code_challenge_methods_supported: ['S256'],
        token_endpoint: `${url}/oauth/token`,
      });
    } finally {
      await new Promise((done) =>
        child.exitCode !== null ? done(undefined) : child.once('exit', done).kill('SIGTERM'),
      );
    }
    expect(err).not.toMatch(RUNTIME_WARNING);
  }, 60_000);
});

describe(`npx of the tarball on Node ${OWN}, as a client config's \`npx -y vault-tools\` starts it`, () => {
  it("installs into npx's own folder from the registry alone and runs", async () => {
    const inst = await installs.get(OWN)!; // that line's clean npm and its cache: this measures npx, not the registry again
    const r = await runToEnd('npx', ['--yes', `--package=${tarball}`, 'vault-tools', '--version'], {
      cwd: tmp.dir,
      env: inst.env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    expect(inst.npm.refused).toEqual([]);
  }, 600_000);
});

describe(`installed on Node ${REFUSED}, which vault-tools no longer supports`, () => {
  let inst: Installed;
  beforeAll(async () => {
    inst = await installs.get(REFUSED)!;
  }, 1_800_000);

  it('installs from the registry alone (npm warns EBADENGINE) and nothing loads the SQLite binding', () => {
    expect(inst.version).toMatch(/^v20\./);
    expectRegistryOnly(inst);
    expect(inst.log).toMatch(/EBADENGINE[\s\S]*package: 'vault-tools@/);
  });

  it('the bin says in one sentence which Node it needs, and exits 1', () => {
    const r = spawnSync(inst.bin, ['demo', '--data-dir', join(inst.app, 'data'), '--no-serve'], {
      env: inst.env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(NEEDS_NODE);
    expect(existsSync(join(inst.app, 'data'))).toBe(false); // refused before it touched anything
  });

  it('so does `npx` of the tarball', async () => {
    const r = await runToEnd('npx', ['--yes', `--package=${tarball}`, 'vault-tools', 'serve'], {
      cwd: tmp.dir,
      env: inst.env,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(
      r.stderr
        .split('\n')
        .filter((l) => l && !/^npm (warn|notice)/.test(l))
        .join('\n') + '\n',
    ).toMatch(NEEDS_NODE);
  }, 600_000);
});

function spawnSyncText(
  command: string,
  args: string[],
  env: Record<string, string>,
): { status: number | null; stderr: string } {
  const r = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}
