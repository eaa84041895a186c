/**
 * Issue 41: `backup` of a store another process (a `serve`) is writing to, `restore` into a new data dir, and
 * every write committed before the backup began is there, with its outbox entry. Then the broken and hostile
 * cases: each a clear error, the store untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, cli, cliFails, demoStore, tempDir, type DemoStore } from '../helpers.js';
import { callTool, startServer, type RunningServer } from '../http-helpers.js';
import { loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const VAULT = 'northwind-logistics';
const run = promisify(execFile);
const env = { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' };
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const storeFile = (dir: string) => join(dir, 'vault-tools.db');

let store: DemoStore;
let server: RunningServer;
const tmp = tempDir('vt-backup-');

beforeAll(async () => {
  store = demoStore();
  server = await startServer(store.dir, ['--rate-limit', '0']);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  store?.cleanup();
  tmp.cleanup();
});

describe('backup while another process writes, then restore', () => {
  it('finds every write committed before the backup began, with the outbox intact', async () => {
    // The serve process writes add_task after add_task; each is committed when its response arrives.
    const done: { identifier: string; at: number }[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const r = await callTool(
          server.url,
          'add_task',
          { vault: VAULT, title: `written during backup ${i}` },
          store.ownerKey,
        );
        if (r.status !== 200) throw new Error(`add_task: ${r.status} ${r.body}`);
        done.push({ identifier: r.json().data.identifier, at: performance.now() });
      }
    })();
    while (done.length < 15) await new Promise((r) => setTimeout(r, 20));
    const backupFile = join(tmp.dir, 'store.backup');
    const startedAt = performance.now();
    const backup = await run(process.execPath, [BIN, 'backup', backupFile, '--data-dir', store.dir], { env });
    const endedAt = performance.now();
    const committedBefore = done.filter((w) => w.at < startedAt).map((w) => w.identifier);
    writing = false;
    await writer;
    // The writes really went on while the backup ran.
    expect(done.filter((w) => w.at >= startedAt && w.at <= endedAt).length).toBeGreaterThan(0);

    expect(backup.stderr).toMatch(/backed up .* mode 0600/);
    expect(backup.stderr).toMatch(/the personal keys \(hashed\) and OAuth grants\. Keep it as private/);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(tmp.dir).filter((n) => n.includes('partial'))).toEqual([]);

    // Never over a store a server holds, and it says which process.
    const refused = cliFails(['restore', backupFile, '--data-dir', store.dir, '--force']);
    expect(refused.stderr).toContain(`in use by pid ${server.child.pid} (vault-tools serve`);

    const restored = join(tmp.dir, 'restored');
    expect(cliFails(['restore', backupFile, '--data-dir', store.dir]).stderr).toContain('in use by pid');
    cli(['restore', backupFile, '--data-dir', restored]);
    expect(statSync(storeFile(restored)).mode & 0o777).toBe(0o600);
    const db = new Database(storeFile(restored), { readonly: true });
    try {
      const tasks = new Set(
        db.prepare('SELECT identifier FROM tasks WHERE vault_id = ?').pluck().all(VAULT) as string[],
      );
      const outbox = db
        .prepare(
          "SELECT json_extract(result_json, '$.identifier') AS identifier, status FROM outbox WHERE tool = 'add_task'",
        )
        .all() as { identifier: string; status: string }[];
      expect(committedBefore.filter((id) => !tasks.has(id))).toEqual([]);
      const queued = new Map(outbox.map((e) => [e.identifier, e.status]));
      expect(committedBefore.filter((id) => queued.get(id) !== 'pending')).toEqual([]);
      // Consistent: every task written locally has its outbox entry and the reverse (one snapshot, not a torn copy).
      const localTasks = [...tasks].filter((id) => Number(id.split('-')[1]) > 25);
      expect(localTasks.sort()).toEqual([...queued.keys()].sort());
      expect(db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
    } finally {
      db.close();
    }
    // The restored store serves: a call through the CLI reads the tasks.
    const stats = JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', restored]));
    expect(stats.tasks.total).toBeGreaterThanOrEqual(25 + committedBefore.length);
  }, 120_000);
});

describe('broken and hostile cases: a clear error, the store untouched', () => {
  it('backup into a folder that does not exist, or cannot be written', () => {
    const missing = cliFails(['backup', join(tmp.dir, 'no', 'such', 'folder', 'b.db'), '--data-dir', store.dir]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/the folder .*no\/such\/folder does not exist/);
    expect(cliFails(['backup', storeFile(store.dir), '--data-dir', store.dir]).stderr).toContain('is the store itself');
    // Root writes anywhere a mode allows nothing; sysfs is read-only for everyone.
    let locked = join(tmp.dir, 'locked');
    if (process.getuid?.() === 0) locked = '/sys';
    else mkdirSync(locked, { mode: 0o500 });
    const denied = cliFails(['backup', join(locked, 'b.db'), '--data-dir', store.dir]);
    expect(denied.stderr).toMatch(/cannot write in|cannot write the backup there/);
    expect(existsSync(join(locked, 'b.db'))).toBe(false);
  });

  it('backup onto a full disk (ulimit -f): fails clearly, leaves no partial file', async () => {
    const target = join(tmp.dir, 'full', 'b.db');
    mkdirSync(join(tmp.dir, 'full'));
    // 256 blocks of 512 bytes: far less than the demo store.
    const child = await run(
      'sh',
      ['-c', `ulimit -f 256; exec "${process.execPath}" "${BIN}" backup "${target}" --data-dir "${store.dir}"`],
      { env },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(child.code).toBe(1);
    expect(child.stderr).toMatch(
      /backup: failed, nothing written to .* \(the store is untouched\): .*(disk is full|file size limit)/,
    );
    expect(readdirSync(join(tmp.dir, 'full'))).toEqual([]);
    const stats = JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', store.dir]));
    expect(stats.tasks.total).toBeGreaterThan(25);
  });

  it('restore from a truncated file, a foreign SQLite file, a newer store, or no SQLite at all loads nothing', () => {
    const good = join(tmp.dir, 'good.backup');
    cli(['backup', good, '--data-dir', store.dir]);
    const target = join(tmp.dir, 'target');
    cli(['restore', good, '--data-dir', target]);
    const before = sha(storeFile(target));

    const truncated = join(tmp.dir, 'truncated.backup');
    copyFileSync(good, truncated);
    truncateSync(truncated, Math.floor(statSync(good).size / 2));
    const foreign = join(tmp.dir, 'foreign.db');
    const f = new Database(foreign);
    f.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)');
    f.pragma('user_version = 3');
    f.close();
    const newer = join(tmp.dir, 'newer.backup');
    copyFileSync(good, newer);
    const n = new Database(newer);
    n.pragma('user_version = 999');
    n.close();
    const text = join(tmp.dir, 'notes.txt');
    writeFileSync(
      text,
      'not a database at all, but long enough to have a header of a hundred bytes or more. '.repeat(3),
    );

    const cases: [string, RegExp][] = [
      [truncated, /is cut short: \d+ bytes of the \d+ its header declares/],
      [
        foreign,
        /is a SQLite database, but not a vault-tools store \(no vaults, meetings, api_keys, outbox, settings tables\)/,
      ],
      [newer, /was written by a newer vault-tools: its schema version is 999, this one knows up to \d+/],
      [text, /is not a SQLite database/],
    ];
    for (const [file, message] of cases) {
      const r = cliFails(['restore', file, '--data-dir', target, '--force']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('nothing was restored');
      expect(sha(storeFile(target))).toBe(before);
    }
    // Into a new data dir, a bad file makes not even the folder.
    cliFails(['restore', truncated, '--data-dir', join(tmp.dir, 'never')]);
    expect(existsSync(join(tmp.dir, 'never'))).toBe(false);
  });

  it('export refuses a target that is a symbolic link out of the folder, and a non-empty one without --force', () => {
    const outside = join(tmp.dir, 'outside');
    mkdirSync(outside);
    const link = join(tmp.dir, 'export-link');
    symlinkSync(outside, link);
    const r = cliFails(['export', VAULT, link, '--data-dir', store.dir]);
    expect(r.stderr).toMatch(/export-link: is a symbolic link \(to .*outside\); export writes only into a real folder/);
    expect(readdirSync(outside)).toEqual([]);

    const out = join(tmp.dir, 'export');
    cli(['export', VAULT, out, '--data-dir', store.dir]);
    expect(cliFails(['export', VAULT, out, '--data-dir', store.dir]).stderr).toMatch(/is not empty .*pass --force/);
    // With --force, an earlier export is replaced; a link planted inside it is replaced too, never written through.
    const secret = join(outside, 'secret.json');
    writeFileSync(secret, '"keep me"');
    const planted = join(out, 'people.json');
    unlinkSync(planted);
    symlinkSync(secret, planted);
    cli(['export', VAULT, out, '--force', '--data-dir', store.dir]);
    expect(readFileSync(secret, 'utf8')).toBe('"keep me"');
    expect(lstatSync(planted).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(planted, 'utf8')).length).toBeGreaterThan(3);
    // What it wrote is a folder import accepts.
    cli(['import', out, '--check', '--data-dir', join(tmp.dir, 'fresh')]);
  });
});
