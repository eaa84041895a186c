/**
 * The store's files are the user's alone, whatever the data dir's mode and the umask: a data dir made by
 * someone else with open permissions (`mkdir -m 755`) still gets files 0600 and folders 0700 inside, and
 * `doctor` warns about the data dir itself with the fix.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../helpers.js';
import { callTool, startServer, type RunningServer } from '../http-helpers.js';
import { sampleArgs } from '../sample-args.js';

const VAULT = 'northwind-logistics';
const ENV = { VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' };

let tmp: { dir: string; cleanup(): void };
let data: string;
let server: RunningServer | undefined;

/** Runs the CLI under a wide-open umask (000): the modes must come from vault-tools, not the umask. */
const cliOpenUmask = (args: string[]) =>
  execFileSync('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...ENV },
  });

function walk(dir: string): { path: string; dir: boolean; mode: number }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    const entry = { path, dir: d.isDirectory(), mode: statSync(path).mode & 0o777 };
    return d.isDirectory() ? [entry, ...walk(path)] : [entry];
  });
}

beforeAll(async () => {
  tmp = tempDir();
  data = join(tmp.dir, 'D');
  mkdirSync(data);
  chmodSync(data, 0o755);
  cliOpenUmask(['demo', '--data-dir', data, '--no-serve']);
  server = await startServer(data, ['--rate-limit', '0']);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  tmp?.cleanup();
});

describe('a data dir that already existed with open permissions', () => {
  it('holds only 0600 files and 0700 folders after a demo, a chart, exports and an e-mail', async () => {
    const key = readFileSync(join(data, 'owner.key'), 'utf8').trim();
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await callTool(server!.url, tool, args, key);
      expect(r.status, `${tool}: ${r.body}`).toBe(200);
      return r.json().data;
    };
    const chart = await call('render_chart', sampleArgs('render_chart', VAULT));
    const csv = await call('export_report', { vault: VAULT, dataset: 'conflicts', format: 'csv' });
    await call('export_report', { vault: VAULT, dataset: 'findings', format: 'xlsx' });
    await call('export_report', { vault: VAULT, dataset: 'conflicts', format: 'pdf' });
    await call('export_workbook', sampleArgs('export_workbook', VAULT));
    await call('send_email', { ...sampleArgs('send_email', VAULT), attachmentIds: [chart.artifactId, csv.artifactId] });

    const entries = walk(data);
    const names = entries.map((e) => relative(data, e.path));
    // What the test means to cover is there: the store and SQLite's own files, keys, artifacts and mail.
    expect(names).toEqual(
      expect.arrayContaining([
        'vault-tools.db',
        'vault-tools.db-wal',
        'vault-tools.db-shm',
        'owner.key',
        'artifacts',
        'mail',
      ]),
    );
    expect(names.filter((n) => n.endsWith('.eml'))).toHaveLength(1);
    expect(names.filter((n) => /\.(png|csv|xlsx|pdf)$/.test(n))).toHaveLength(5);
    const open = entries
      .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
      .map((e) => `${relative(data, e.path)} ${e.mode.toString(8)}`);
    expect(open).toEqual([]);
  });

  it('doctor warns that the data dir itself is open to others, with the fix, without failing', () => {
    const out = execFileSync(process.execPath, [BIN, 'doctor', '--data-dir', data], {
      encoding: 'utf8',
      env: { ...process.env, ...ENV },
    });
    expect(out).toMatch(new RegExp(`warn data dir .*${data}.*(group|others)`));
    expect(out).toContain(`fix: chmod 700 ${data}`);
    const report = JSON.parse(
      execFileSync(process.execPath, [BIN, 'doctor', '--json', '--data-dir', data], {
        encoding: 'utf8',
        env: { ...process.env, ...ENV },
      }),
    );
    expect(report.ok).toBe(true);
    expect(report.checks.find((c: { name: string }) => c.name === 'data dir')).toMatchObject({
      ok: true,
      warning: true,
    });
  });
});

describe('the sync lock', () => {
  it('is 0600 while a sync runs, like every other file of the store', async () => {
    // A remote that never answers keeps the sync (and its lock file) alive while the mode is read.
    const remote = createServer(() => {});
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    const { port } = remote.address() as { port: number };
    const child = spawn(
      'sh',
      [
        '-c',
        'umask 000 && exec "$0" "$@"',
        process.execPath,
        BIN,
        'sync',
        '--remote',
        `http://127.0.0.1:${port}`,
        '--remote-key',
        'vt_remote',
        '--data-dir',
        data,
      ],
      {
        env: { ...process.env, ...ENV },
        stdio: 'ignore',
      },
    );
    const lock = join(data, 'sync.lock');
    try {
      const deadline = Date.now() + 20_000;
      while (!existsSync(lock) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect((statSync(lock).mode & 0o777).toString(8)).toBe('600');
    } finally {
      child.kill();
      remote.closeAllConnections();
      remote.close();
      await new Promise((r) => child.once('exit', r));
    }
  }, 30_000);
});
