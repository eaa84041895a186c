/**
 * Issue 45, item 3: does a write confirmed by a `serve` started while `restore` copies a backup survive the
 * restore? Each trial restores a padded demo backup (large enough that the copy takes a while) over a data dir
 * and, once the copy is under way, starts `serve --http` on that data dir and sends one add_task; after both
 * are done it looks for that task in the store. Prints one line per trial and the count of confirmed writes lost.
 *
 *   npx tsx bench/restore-race.ts [BIN] [TRIALS] [PAD_MB]
 *
 * BIN defaults to this checkout's bin/vault-tools.js (pass another checkout's to measure its build).
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadSqlite } from '../src/store/db.js';

const BIN = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'bin', 'vault-tools.js'));
const TRIALS = Number(process.argv[3] ?? 5);
const PAD_MB = Number(process.argv[4] ?? 256);
const env = {
  ...process.env,
  VAULT_TOOLS_KEY: '',
  VAULT_TOOLS_HOME: '',
  VAULT_TOOLS_INDEX: 'off',
  VAULT_TOOLS_LOG: 'warn',
};
const run = (args: string[]) =>
  execFileSync(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const root = mkdtempSync(join(tmpdir(), 'vt-restore-race-'));

const source = join(root, 'source');
run(['demo', '--data-dir', source, '--no-serve']);
const pad = new (loadSqlite())(join(source, 'vault-tools.db'));
const chunk = 'x'.repeat(16 * 1024 * 1024);
for (let i = 0; i < PAD_MB / 16; i++)
  pad.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(`padding-${i}`, chunk);
pad.close();
const backup = join(root, 'padded.backup');
run(['backup', backup, '--data-dir', source]);
const key = readFileSync(join(source, 'owner.key'), 'utf8').trim();

const waitFor = async (test: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
  return true;
};

let lost = 0;
let confirmed = 0;
for (let t = 1; t <= TRIALS; t++) {
  const dir = join(root, `trial-${t}`);
  mkdirSync(dir, { mode: 0o700 });
  copyFileSync(join(source, 'vault-tools.db'), join(dir, 'vault-tools.db'));
  copyFileSync(join(source, 'owner.key'), join(dir, 'owner.key'));
  const restore = spawn(process.execPath, [BIN, 'restore', backup, '--data-dir', dir, '--force'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let restoreErr = '';
  restore.stderr.on('data', (d) => (restoreErr += d));
  const restoreDone = new Promise<number>((r) => restore.once('exit', (c) => r(c ?? -1)));
  // The copy is under way once its temp file is there (both the old and the new restore name it *.restoring).
  await waitFor(() => readdirSync(dir).some((n) => n.includes('restoring')), 30_000);
  const serve = spawn(
    process.execPath,
    [BIN, 'serve', '--data-dir', dir, '--http', '127.0.0.1:0', '--no-stdio', '--rate-limit', '0'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let serveErr = '';
  serve.stderr.on('data', (d) => (serveErr += d));
  const serveDone = new Promise<number>((r) => serve.once('exit', (c) => r(c ?? -1)));
  await waitFor(() => /REST API on http:\/\/\S+/.test(serveErr) || serve.exitCode !== null, 30_000);
  const url = /REST API on (http:\/\/[^/\s]+)/.exec(serveErr)?.[1];
  let identifier: string | undefined;
  let status = 0;
  if (url) {
    const r = await fetch(`${url}/v1/tools/add_task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ vault: 'northwind-logistics', title: `race ${t}` }),
    });
    status = r.status;
    if (r.ok) identifier = ((await r.json()) as { data: { identifier: string } }).data.identifier;
  }
  const restoreCode = await restoreDone;
  if (serve.exitCode === null) serve.kill('SIGTERM');
  await serveDone;
  const db = new (loadSqlite())(join(dir, 'vault-tools.db'), { readonly: true });
  const present = identifier
    ? db.prepare('SELECT 1 FROM tasks WHERE identifier = ? AND title = ?').get(identifier, `race ${t}`) !== undefined
    : false;
  db.close();
  if (identifier) confirmed++;
  if (identifier && !present) lost++;
  const why = url
    ? `serve up, add_task ${status}`
    : `serve refused: ${serveErr.trim().split('\n').at(-1)?.slice(0, 110)}`;
  console.log(
    `trial ${t}: restore exit ${restoreCode}${restoreCode ? ` (${restoreErr.trim().split('\n').at(-1)?.slice(0, 100)})` : ''}; ${why}; write ${identifier ? (present ? 'kept' : 'LOST') : 'not confirmed'}`,
  );
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `${BIN}: ${confirmed} writes confirmed during a restore, ${lost} lost, over ${TRIALS} trials (backup ${PAD_MB} MB of padding)`,
);
rmSync(root, { recursive: true, force: true });
