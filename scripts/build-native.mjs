#!/usr/bin/env node
/**
 * Builds the optional native matrix kernel (native/matmul.cc → native/vault-tools-matmul.node) at install time.
 *
 * It only speeds up the offline embedder (about 2× on the model's dense layers); everything works without it, so
 * this script never fails an install: no x64 CPU, no C++ compiler, no Node headers on this machine, or
 * VAULT_TOOLS_NATIVE=0, and it says so in one line and leaves the WASM kernels to do the work.
 *
 * One source file and one compiler call, no node-gyp: node-gyp needs python and make, fetches Node's headers from
 * the network when the machine has none (installs here must not), and its `build/` folder is where
 * `npm run bundle` writes. The headers are Node's own (<prefix>/include/node), as npm's `nodedir` names them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SOURCE = join(ROOT, 'native', 'matmul.cc');
const TARGET = join(ROOT, 'native', 'vault-tools-matmul.node');
const say = (line) => process.stderr.write(`vault-tools: ${line}\n`);
const skip = (why) => {
  say(`native matrix kernel not built (${why}); the offline embedder uses its WASM kernels, about half as fast.`);
  process.exit(0);
};

if (process.env.VAULT_TOOLS_NATIVE === '0') skip('VAULT_TOOLS_NATIVE=0');
if (process.arch !== 'x64') skip(`it is written for x64 CPUs, this is ${process.arch}`);
if (process.platform !== 'linux' && process.platform !== 'darwin') skip(`no build recipe for ${process.platform}`);
if (!existsSync(SOURCE)) skip('native/matmul.cc is missing');

const headers = [process.env.npm_config_nodedir, resolve(dirname(process.execPath), '..')]
  .filter(Boolean)
  .map((dir) => join(dir, 'include', 'node'))
  .find((dir) => existsSync(join(dir, 'node_api.h')));
if (!headers) skip("Node's headers (include/node/node_api.h) are not on this machine");

const compiler = [process.env.CXX, 'c++', 'g++', 'clang++'].find((cxx) => {
  if (!cxx) return false;
  try {
    execFileSync(cxx, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
if (!compiler) skip('no C++ compiler (c++, g++ or clang++) on PATH');

// A .node name of its own: require() loads a native module only by that extension.
const partial = join(ROOT, 'native', `vault-tools-matmul.partial-${process.pid}.node`);
const firstLine = (e) =>
  String(e.stderr?.length ? e.stderr : (e.message ?? e))
    .trim()
    .split('\n')[0]
    .slice(0, 200);
const link = process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : [];
try {
  execFileSync(
    compiler,
    ['-O3', '-std=c++17', '-fPIC', '-shared', '-fvisibility=hidden', `-I${headers}`, ...link, SOURCE, '-o', partial],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
} catch (e) {
  rmSync(partial, { force: true });
  skip(`${compiler} failed: ${firstLine(e)}`);
}
try {
  // It must load in this very Node (its ABI) before it takes the place of an older build.
  execFileSync(process.execPath, ['-e', `require(${JSON.stringify(partial)}).supported()`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  renameSync(partial, TARGET);
} catch (e) {
  rmSync(partial, { force: true });
  skip(`the built kernel did not load: ${firstLine(e)}`);
}
say(`native matrix kernel built (${TARGET}).`);
