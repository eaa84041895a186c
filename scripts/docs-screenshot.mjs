#!/usr/bin/env node
/** Refreshes docs/api-reference.png: the /docs page of a demo store's listener, in headless Chromium. */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { screenshot } from './chromium.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'vault-tools.js');
const data = mkdtempSync(join(tmpdir(), 'vt-docs-'));
execFileSync(process.execPath, [BIN, 'demo', '--data-dir', data, '--no-serve'], { stdio: 'ignore' });
const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', data, '--http', '127.0.0.1:0', '--no-stdio'], {
  stdio: ['ignore', 'ignore', 'pipe'],
  env: { ...process.env, VAULT_TOOLS_INDEX: 'off' },
});
const url = await new Promise((ok, fail) => {
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
    const m = /REST API on (http:\/\/[^/\s]+)/.exec(err);
    if (m) ok(m[1]);
  });
  child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
});
try {
  screenshot(`${url}/docs`, join(ROOT, 'docs', 'api-reference.png'));
  process.stdout.write('docs/api-reference.png\n');
} finally {
  child.kill('SIGTERM');
  rmSync(data, { recursive: true, force: true });
}
