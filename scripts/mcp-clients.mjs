#!/usr/bin/env node
/**
 * `node scripts/mcp-clients.mjs`: the built server checked by real third-party MCP clients, not our own.
 *
 * 1. MCP Inspector's CLI over stdio (`node bin/vault-tools.js serve`): tools/list and tools/call stats.
 * 2. MCP Inspector's CLI over Streamable HTTP (`/v1/mcp`) with the bearer header: the same two calls.
 * 3. The official conformance suite (@modelcontextprotocol/conformance, server mode) against /v1/mcp, with the
 *    requirement set of each protocol revision (2026-07-28 stateless, 2025-11-25 with the handshake); the
 *    scenarios that cannot apply to this server are listed with their reason in test/conformance-baseline.json
 *    and passed to the suite as its expected failures (so one that starts passing fails the run too).
 *
 * Both tools need Node 22: npx brings it from the npm registry (the `node` package) next to them. The server
 * itself runs on this script's own Node (process.execPath): its native module (better-sqlite3) is built for it.
 * Versions are pinned so runs are reproducible. Exit code 0 only when every check passed; progress goes to
 * stderr, and the last line says how long the run took.
 *
 * The suite's server mode cannot send headers, and every request to /v1/mcp needs the bearer key: so it talks
 * to a small loopback proxy here that adds `Authorization` and changes nothing else (Host and Origin pass
 * through untouched, so the DNS-rebinding scenario still tests the server's own Host/Origin checks; the server
 * is told to accept the proxy's address with --allow-host, exactly as a user would for a port forward).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'vault-tools.js');
const NODE22 = 'node@22.23.3';
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
/** The protocol revisions whose requirement sets the suite checks, each at its own wire (2026: stateless, `_meta`). */
const REVISIONS = ['2026-07-28', '2025-11-25'];
/** One npx environment with all three, so it is downloaded once and then reused from the npx cache. */
const NPX = ['-y', '-p', NODE22, '-p', INSPECTOR, '-p', CONFORMANCE, '--'];
const BASELINE = join(ROOT, 'test', 'conformance-baseline.json');
const VAULT = 'northwind-logistics';
const STEP_TIMEOUT_MS = 240_000; // the first npx run downloads Node 22 and both tools

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'vt-mcp-clients-'));
const dataDir = join(work, 'data');
const failures = [];
const say = (line) => process.stderr.write(`[mcp-clients] ${line}\n`);
const children = [];

function check(name, ok, detail = '') {
  say(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures.push(name);
}

/**
 * Runs a command to completion; resolves with exit code, stdout and stderr (npm's warnings filtered out).
 * Asynchronous on purpose: the bearer proxy below lives in this process and must keep serving meanwhile.
 */
function run(command, args, env = {}) {
  const t0 = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The Inspector keeps a server catalog and client settings in the home directory: keep them in the temp dir.
      env: {
        ...process.env,
        MCP_CATALOG_PATH: join(work, 'inspector-catalog.json'),
        MCP_CLIENT_CONFIG_PATH: join(work, 'inspector-client.json'),
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), STEP_TIMEOUT_MS);
    child.on('error', (err) => (stderr += `\n${err.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const kept = stderr
        .split('\n')
        .filter((l) => !/^npm (warn|notice)/.test(l))
        .join('\n')
        .trim();
      resolvePromise({
        status: code ?? `killed by ${signal} (timeout ${STEP_TIMEOUT_MS / 1000} s?)`,
        stdout,
        stderr: kept,
        ms: Date.now() - t0,
      });
    });
  });
}

const npx = (args) => run('npx', [...NPX, ...args]);

/**
 * Inspector CLI, JSON output; resolves with the call's result, or records a failure. `target` goes last:
 * for stdio it is `-- <command...>`, so the server's own flags are not read as the Inspector's.
 */
async function inspector(name, method, target, extra = []) {
  const r = await npx(['mcp-inspector', '--cli', '--format', 'json', '-q', '--method', method, ...extra, ...target]);
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    out = undefined;
  }
  if (r.status !== 0 || !out?.result) {
    check(name, false, `exit ${r.status}; stdout: ${r.stdout.slice(0, 400)} stderr: ${r.stderr.slice(-800)}`);
    return undefined;
  }
  say(`     ${name} answered in ${(r.ms / 1000).toFixed(1)} s`);
  return out.result;
}

function checkToolsList(name, result) {
  if (!result) return;
  const names = result.tools?.map((t) => t.name) ?? [];
  check(
    name,
    names.includes('list_vaults') && names.includes('export_report') && names.length >= 30,
    `${names.length} tools`,
  );
}

function checkStats(name, result) {
  if (!result) return;
  const total = result.structuredContent?.entities?.total;
  check(name, !result.isError && typeof total === 'number' && total > 0, `${VAULT}: ${total} entities`);
}

/** Starts `vault-tools serve --http`; resolves with its base URL once it prints it. */
function startServer(args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--no-stdio', ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, VAULT_TOOLS_INDEX: 'off', VAULT_TOOLS_KEY: '', VAULT_TOOLS_LOG: 'warn' },
      },
    );
    children.push(child);
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), 30_000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /REST API on (http:\/\/[^/\s]+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${err}`)));
  });
}

/** A loopback proxy that adds the bearer key to every request and forwards everything else unchanged. */
function bearerProxy(key) {
  let target;
  const server = createServer((req, res) => {
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  return new Promise((resolvePromise) =>
    server.listen(0, '127.0.0.1', () =>
      resolvePromise({
        port: server.address().port,
        forwardTo: (url) => (target = new URL(url)),
        close: () => server.close(),
      }),
    ),
  );
}

/** One revision's baseline as the suite's expected-failures YAML: `server:` and one scenario per line. */
function expectedFailuresFile(revision) {
  const baseline = JSON.parse(readFileSync(BASELINE, 'utf8'));
  const names = Object.keys(baseline.notApplicable[revision] ?? {});
  const file = join(work, `conformance-baseline-${revision}.yml`);
  writeFileSync(file, names.length ? `server:\n${names.map((n) => `  - ${n}\n`).join('')}` : 'server: []\n');
  return { file, names };
}

/**
 * The checks that failed in a baselined scenario without being listed for it: a baselined scenario must still
 * pass every check that does not need the suite's reference fixtures. The suite writes each scenario's checks to
 * <out>/server-<scenario>-<time>/checks.json.
 */
function unexpectedFailures(revision, outDir) {
  const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')).notApplicable[revision] ?? {};
  const found = [];
  for (const dir of readdirSync(outDir)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    if (!baseline[scenario]) continue;
    const checks = JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8'));
    for (const c of checks)
      if ((c.status === 'FAILURE' || c.status === 'WARNING') && !baseline[scenario].failingChecks.includes(c.id))
        found.push(`${scenario}: ${c.id} (${String(c.errorMessage ?? '').slice(0, 200)})`);
  }
  return found;
}

try {
  say(`Node ${process.version} for the server; ${NODE22}, ${INSPECTOR}, ${CONFORMANCE} through npx`);
  const demo = await run(process.execPath, [BIN, 'demo', '--data-dir', dataDir, '--no-serve'], {
    VAULT_TOOLS_INDEX: 'off',
  });
  if (demo.status !== 0) throw new Error(`vault-tools demo failed: ${demo.stderr}`);
  const key = readFileSync(join(dataDir, 'owner.key'), 'utf8').trim();
  const statsCall = ['--tool-name', 'stats', '--tool-arg', `vault=${VAULT}`];

  // 1. Inspector over stdio: the command a client config would hold (absolute Node, so the native module loads).
  const stdio = ['--', process.execPath, BIN, 'serve', '--data-dir', dataDir];
  checkToolsList('inspector stdio tools/list', await inspector('inspector stdio tools/list', 'tools/list', stdio));
  checkStats(
    'inspector stdio tools/call stats',
    await inspector('inspector stdio tools/call stats', 'tools/call', stdio, statsCall),
  );

  // 2. Inspector over Streamable HTTP with the bearer header (`--server-url`, since --header takes several values).
  const proxy = await bearerProxy(key);
  const base = await startServer(['--allow-host', `127.0.0.1:${proxy.port}`]);
  proxy.forwardTo(base);
  const http = ['--server-url', `${base}/v1/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`];
  checkToolsList('inspector http tools/list', await inspector('inspector http tools/list', 'tools/list', http));
  checkStats(
    'inspector http tools/call stats',
    await inspector('inspector http tools/call stats', 'tools/call', http, statsCall),
  );
  // And a wrong key is refused (exit non-zero), so the two calls above did depend on the header.
  const refused = await npx([
    'mcp-inspector',
    '--cli',
    '--format',
    'json',
    '-q',
    '--stored-auth-only',
    '--method',
    'tools/list',
    '--server-url',
    `${base}/v1/mcp`,
    '--transport',
    'http',
    '--header',
    'Authorization: Bearer not-a-key',
  ]);
  check('inspector http with a wrong key is refused', refused.status !== 0, `exit ${refused.status}`);

  // 3. The conformance suite, through the bearer proxy: exactly what each revision requires, at that revision's
  // wire; the scenarios that cannot apply to this server are that revision's baseline.
  for (const revision of REVISIONS) {
    const { file, names } = expectedFailuresFile(revision);
    const conf = await npx([
      'conformance',
      'server',
      '--url',
      `http://127.0.0.1:${proxy.port}/v1/mcp`,
      '--requirements',
      revision,
      '--expected-failures',
      file,
      '-o',
      join(work, `conformance-${revision}`),
    ]);
    const summary = conf.stdout.slice(conf.stdout.lastIndexOf('=== SUMMARY ===')).trim();
    for (const line of summary.split('\n')) say(`     ${line}`);
    check(
      `conformance ${revision} requirements, ${names.length} scenarios baselined as not applicable`,
      conf.status === 0,
      conf.status === 0
        ? `${(conf.ms / 1000).toFixed(1)} s`
        : `exit ${conf.status}\n${conf.stdout.slice(-6000)}\n${conf.stderr.slice(-2000)}`,
    );
    const unexpected = unexpectedFailures(revision, join(work, `conformance-${revision}`));
    check(
      `conformance ${revision}: baselined scenarios fail only their listed checks`,
      unexpected.length === 0,
      unexpected.join('; '),
    );
  }
  proxy.close();
} catch (err) {
  check('run', false, err instanceof Error ? err.message : String(err));
} finally {
  // Stop the server and wait for it, so its store is closed before the temp dir goes.
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null ? undefined : new Promise((done) => child.once('exit', done).kill('SIGTERM')),
    ),
  );
  if (process.env.KEEP_MCP_CLIENTS_DIR) say(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

say(
  `${failures.length ? `${failures.length} failed: ${failures.join(', ')}` : 'all passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failures.length ? 1 : 0);
