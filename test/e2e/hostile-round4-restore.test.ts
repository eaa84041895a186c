/**
 * Hostile input, round 4 (issue 45, items 1-5; issue 48, "nothing goes missing quietly"): restore trusts
 * only a store this program could have written. Each case builds the hostile backup from a real demo backup
 * with SQLite itself, runs the real CLI, and checks the store it would have replaced still answers as before.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as sqliteVec from 'sqlite-vec';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, cliFails, demoStore, tempDir, type DemoStore } from '../helpers.js';
import { migrations } from '../../src/store/migrations.js';
import { loadSqlite } from '../../src/store/db.js';
import { hashKey } from '../../src/auth/keys.js';
import { processIdentity } from '../../src/core/process-alive.js';

const Database = loadSqlite();
const VAULT = 'northwind-logistics';
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const storeFile = (dir: string) => join(dir, 'vault-tools.db');

let store: DemoStore;
let good: string;
const tmp = tempDir('vt-hostile4-');
const children: ChildProcess[] = [];

beforeAll(() => {
  store = demoStore();
  good = join(tmp.dir, 'good.backup');
  cli(['backup', good, '--data-dir', store.dir]);
}, 60_000);
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  store?.cleanup();
  tmp.cleanup();
});

/** A copy of the good backup changed by `edit` (run on the file with SQLite). */
function craft(name: string, edit: (db: InstanceType<typeof Database>) => void): string {
  const file = join(tmp.dir, name);
  copyFileSync(good, file);
  const db = new Database(file);
  try {
    edit(db);
  } finally {
    db.close();
  }
  return file;
}

/** A data dir holding a restored copy of the good backup, and the sha of its store. */
function target(name: string): { dir: string; before: string } {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { mode: 0o700 });
  copyFileSync(good, storeFile(dir));
  copyFileSync(join(store.dir, 'owner.key'), join(dir, 'owner.key'));
  return { dir, before: sha(storeFile(dir)) };
}

const activeKeys = (dir: string) => {
  const db = new Database(storeFile(dir), { readonly: true });
  try {
    return db.prepare('SELECT name, role, revoked_at FROM api_keys ORDER BY created_at').all() as {
      name: string;
      role: string;
      revoked_at: string | null;
    }[];
  } finally {
    db.close();
  }
};

describe('item 1: a backup carries no SQL of its own, and no key its author knows that works at once', () => {
  it('a trigger that undoes `keys revoke`, a trigger on the outbox, a view: refused by name, the store untouched', () => {
    const { dir, before } = target('t1');
    const cases: [string, (db: InstanceType<typeof Database>) => void, RegExp][] = [
      [
        'undo-revoke.backup',
        (db) =>
          db.exec(
            'CREATE TRIGGER keep_key AFTER UPDATE OF revoked_at ON api_keys BEGIN UPDATE api_keys SET revoked_at = NULL WHERE id = new.id; END;',
          ),
        /a trigger keep_key on api_keys this program does not make/,
      ],
      [
        'outbox-trigger.backup',
        (db) =>
          db.exec(
            "CREATE TRIGGER spy AFTER INSERT ON outbox BEGIN INSERT INTO settings (key, value) VALUES ('x', new.args_json); END;",
          ),
        /a trigger spy on outbox this program does not make/,
      ],
      [
        'view.backup',
        (db) => db.exec('CREATE VIEW all_keys AS SELECT * FROM api_keys'),
        /a view all_keys this program does not make/,
      ],
      [
        'column.backup',
        (db) => db.exec('ALTER TABLE settings ADD COLUMN extra TEXT'),
        /its table settings .*differs from the one this program makes/,
      ],
      ['dropped-index.backup', (db) => db.exec('DROP INDEX meetings_started'), /no index meetings_started on meetings/],
    ];
    for (const [name, edit, message] of cases) {
      const r = cliFails(['restore', craft(name, edit), '--data-dir', dir, '--force']);
      expect(r.stderr).toMatch(
        /is not a store this program wrote: its schema is not vault-tools' own at schema version \d+/,
      );
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('nothing was restored');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(sha(storeFile(dir))).toBe(before);
    }
  });

  it('a manager key planted in a backup is listed by name and role and revoked; --keep-keys keeps it, and says so', () => {
    const planted = 'vt_plantedByTheAuthorOfTheBackup0000000000';
    const file = craft('planted-key.backup', (db) => {
      db.prepare(
        "INSERT INTO api_keys (id, name, key_hash, key_prefix, role, all_vaults, created_at) VALUES ('key_planted', 'backup admin', ?, 'vt_plante', 'manager', 1, '2026-01-01T00:00:00Z')",
      ).run(hashKey(planted));
    });
    // Over the store it was taken from: the keys that store held stay, the planted one is revoked.
    const { dir } = target('t1-keys');
    const out = cli(['restore', file, '--data-dir', dir, '--force'], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
    const r = cliFails(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', dir, '--key', planted]);
    expect(r.stderr).toMatch(/revoked/i);
    const owner = JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', dir]));
    expect(owner.tasks.total).toBeGreaterThan(0);

    const kept = join(tmp.dir, 't1-kept');
    const said = spawnSyncStderr(['restore', file, '--data-dir', kept, '--keep-keys']);
    const keptLine = said.split('\n').find((l) => l.includes('kept 4 keys new to this data dir (--keep-keys): ')) ?? '';
    for (const k of [
      /"backup admin" \(manager, all vaults, vt_plante…\)/,
      /"owner" \(manager, all vaults, vt_\w+…\)/,
      /"demo member \(meridian-health\)" \(member, meridian-health, vt_\w+…\)/,
    ])
      expect(keptLine).toMatch(k);
    expect(keptLine).toContain('whoever holds them can use this store');
    expect(
      JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', kept, '--key', planted])).tasks
        .total,
    ).toBeGreaterThan(0);

    const revoked = spawnSyncStderr(['restore', file, '--data-dir', join(tmp.dir, 't1-new')]);
    const revokedLine =
      revoked
        .split('\n')
        .find((l) => l.includes('revoked 4 keys the backup brought that this data dir did not hold: ')) ?? '';
    for (const k of [/"backup admin" \(manager, all vaults, vt_plante…\)/, /"owner" \(manager, all vaults, vt_\w+…\)/])
      expect(revokedLine).toMatch(k);
    expect(revoked).toContain('--keep-keys');
  });
});

describe('item 2: a store that does not migrate never replaces one that works', () => {
  it('five expected table names at user_version 1 or 10: refused before the store is touched', () => {
    const { dir } = target('t2');
    for (const version of [1, 10]) {
      const before = sha(storeFile(dir));
      const file = join(tmp.dir, `five-tables-${version}.db`);
      const db = new Database(file);
      db.exec(
        'CREATE TABLE vaults (id TEXT); CREATE TABLE meetings (id TEXT); CREATE TABLE api_keys (id TEXT); CREATE TABLE outbox (id TEXT); CREATE TABLE settings (key TEXT)',
      );
      db.pragma(`user_version = ${version}`);
      db.close();
      const r = cliFails(['restore', file, '--data-dir', dir, '--force']);
      expect(r.stderr).toMatch(new RegExp(`its schema is not vault-tools' own at schema version ${version}`));
      expect(sha(storeFile(dir))).toBe(before);
      expect(
        JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', dir])).tasks.total,
      ).toBeGreaterThan(0);
    }
  });

  it('a backup whose data makes a migration fail: refused, the old store still opens', () => {
    const { dir, before } = target('t2-migrate');
    // A store at schema version 6 (its exact schema) whose data makes migration 7 fail: a vector bookkept under
    // the embedder '' collides with the chunk count migration 7 keeps under that name (a primary key).
    const file = join(tmp.dir, 'v6.backup');
    const db = new Database(file);
    sqliteVec.load(db);
    for (let v = 0; v < 6; v++) {
      const step = migrations[v]!;
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.pragma('user_version = 6');
    db.exec(`INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('v', 'V', 'import', '2026-01-01T00:00:00Z');
      INSERT INTO meetings (vault_id, id, name, started_at, extraction_status, created_at) VALUES ('v', 'm', 'M', '2026-01-01T00:00:00Z', 'extracted', '2026-01-01T00:00:00Z');
      INSERT INTO transcript_chunks (id, vault_id, meeting_id, chunk_index, turn_start, turn_end, speakers_json, text, content_hash, vault_token) VALUES (1, 'v', 'm', 0, 0, 0, '[]', 'hello', 'h', 'vx');
      INSERT INTO chunk_embeddings (chunk_id, embedder, content_hash) VALUES (1, '', 'h');`);
    db.close();
    const r = cliFails(['restore', file, '--data-dir', dir, '--force']);
    expect(r.stderr).toMatch(/does not migrate from schema version 6 to \d+: UNIQUE constraint failed/);
    expect(r.stderr).toContain('nothing was restored');
    expect(sha(storeFile(dir))).toBe(before);
    expect(readdirSync(dir).filter((n) => n.includes('restoring'))).toEqual([]);
    expect(
      JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', dir])).tasks.total,
    ).toBeGreaterThan(0);
  });
});

describe('item 3: no server starts on a data dir while a restore replaces its store', () => {
  it('a live restore lock stops serve and call with a clear message; a stale one is ignored', async () => {
    const { dir } = target('t3');
    // The lock as a running restore writes it: a live process, with its identity.
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(holder);
    await new Promise((r) => holder.once('spawn', r));
    const lock = join(dir, 'restore.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: holder.pid, identity: processIdentity(holder.pid!), startedAt: '2026-11-29T03:00:00Z' }),
    );
    const serve = cliFails(['serve', '--http', '127.0.0.1:0', '--data-dir', dir]);
    expect(serve.stderr).toMatch(
      new RegExp(
        `a \`vault-tools restore\` \\(pid ${holder.pid}, since 2026-11-29T03:00:00Z\\) is replacing the store in .*t3; start again when it has finished`,
      ),
    );
    expect(serve.stderr).not.toMatch(/\n\s+at /);
    expect(cliFails(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', dir]).stderr).toMatch(
      /is replacing the store/,
    );
    expect(cliFails(['restore', good, '--data-dir', dir, '--force']).stderr).toMatch(/is replacing the store/);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    expect(
      JSON.parse(cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', dir])).tasks.total,
    ).toBeGreaterThan(0);
  });
});

describe('item 5: a running/ entry counts only while its process is the vault-tools that wrote it', () => {
  it('pid -1, 0, garbage, and a pid now held by another program: ignored with why, and restore goes on', async () => {
    const { dir } = target('t5');
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(other);
    await new Promise((r) => other.once('spawn', r));
    mkdirSync(join(dir, 'running'), { recursive: true });
    const entries: Record<string, unknown> = {
      [`${other.pid}.json`]: {
        pid: other.pid,
        command: 'vault-tools serve --http 8787',
        startedAt: '2026-11-01T00:00:00Z',
      },
      '0.json': { pid: 0, command: 'vault-tools serve', startedAt: '' },
      '-1.json': { pid: -1, command: 'vault-tools serve', startedAt: '' },
      'abc.json': 'not json at all',
    };
    for (const [name, body] of Object.entries(entries))
      writeFileSync(join(dir, 'running', name), typeof body === 'string' ? body : JSON.stringify(body));
    const said = spawnSyncStderr(['restore', good, '--data-dir', dir, '--force']);
    expect(said).toMatch(
      new RegExp(`ignored running/${other.pid}\\.json: process ${other.pid} is not vault-tools \\(sleep 60\\)`),
    );
    expect(said).toMatch(/ignored running\/0\.json: pid 0 is not a process id/);
    expect(said).toMatch(/ignored running\/-1\.json: .*not a process id/);
    expect(said).toMatch(/ignored running\/abc\.json/);
    expect(said).toMatch(/^restored /m);
    expect(readdirSync(join(dir, 'running'))).toEqual([]);
  });
});

describe('issue 48: nothing goes missing quietly', () => {
  it('backup then restore adds no key: one active owner, whichever way it is restored', () => {
    const before = activeKeys(store.dir);
    const owners = (dir: string) => activeKeys(dir).filter((k) => k.name === 'owner' && !k.revoked_at).length;
    // Into a new data dir, keys not kept: the backup's owner is revoked, and the new one is the only active owner.
    const fresh = join(tmp.dir, 'fresh-owner');
    cli(['restore', good, '--data-dir', fresh]);
    cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', fresh]);
    expect(owners(fresh)).toBe(1);

    // Over the same data dir: its keys are the backup's, nothing is revoked or added.
    const same = join(tmp.dir, 'same');
    mkdirSync(same);
    copyFileSync(storeFile(store.dir), storeFile(same));
    copyFileSync(join(store.dir, 'owner.key'), join(same, 'owner.key'));
    cli(['restore', good, '--data-dir', same, '--force']);
    cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', same]);
    expect(activeKeys(same)).toEqual(before);

    // Into a new data dir with the backup's keys kept: the owner key stays the only owner; without its
    // owner.key, call says how to get it rather than making a second "owner".
    const kept = join(tmp.dir, 'kept-owner');
    cli(['restore', good, '--data-dir', kept, '--keep-keys']);
    const r = cliFails(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', kept]);
    expect(r.stderr).toMatch(
      /The store's owner key \(vt_\w+…\) is not the one in .*owner\.key: it came with a restored backup\. Copy owner\.key from the data dir the backup was made from/,
    );
    copyFileSync(join(store.dir, 'owner.key'), join(kept, 'owner.key'));
    cli(['call', 'stats', JSON.stringify({ vault: VAULT }), '--data-dir', kept]);
    expect(activeKeys(kept)).toEqual(before);
    expect(owners(kept)).toBe(1);
  });
});

describe('issue 48: artifacts whose files a backup does not hold', () => {
  it('are said at backup, flagged after restore (find_artifact fileMissing), and counted by doctor', () => {
    const source = target('with-artifact').dir;
    const made = JSON.parse(
      cli([
        'call',
        'export_workbook',
        JSON.stringify({
          vault: VAULT,
          title: 'Dock waits',
          sheets: [{ name: 'Waits', columns: [{ header: 'Dock', key: 'dock' }], rows: [{ dock: 'A' }] }],
        }),
        '--data-dir',
        source,
      ]),
    );
    const file = join(tmp.dir, 'with-artifact.backup');
    const said = spawnSyncStderr(['backup', file, '--data-dir', source]);
    expect(said).toMatch(
      /Not in it: the files of 1 artifact \(charts, exports under .*with-artifact\/artifacts\); a store restored from it lists it without its file \(find_artifact: fileMissing\)/,
    );

    const elsewhere = join(tmp.dir, 'artifact-restored');
    const restored = spawnSyncStderr(['restore', file, '--data-dir', elsewhere, '--keep-keys']);
    expect(restored).toMatch(/1 artifact \(charts, exports\) has its file missing here: a backup holds no files/);
    copyFileSync(join(store.dir, 'owner.key'), join(elsewhere, 'owner.key'));
    const found = JSON.parse(cli(['call', 'find_artifact', JSON.stringify({ vault: VAULT }), '--data-dir', elsewhere]))
      .artifacts as { artifactId: string; fileMissing?: boolean }[];
    expect(found.find((a) => a.artifactId === made.artifactId)).toMatchObject({ fileMissing: true });
    // In the store it was made in, the file is there and nothing is flagged.
    const there = JSON.parse(cli(['call', 'find_artifact', JSON.stringify({ vault: VAULT }), '--data-dir', source]))
      .artifacts as { artifactId: string; fileMissing?: boolean }[];
    expect(there.find((a) => a.artifactId === made.artifactId)?.fileMissing).toBeUndefined();

    const doctor = JSON.parse(cli(['doctor', '--json', '--data-dir', elsewhere])) as {
      checks: { name: string; detail: string; warning?: boolean }[];
    };
    const leftovers = doctor.checks.find((c) => c.name === 'leftovers')!;
    expect(leftovers.detail).toMatch(/^1 artifact without its file \(a backup holds no files: restored from one\?\)/);
    expect(leftovers.warning).toBe(true);
  });
});

/** The CLI's stderr on success. */
function spawnSyncStderr(args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
  });
  if (r.status !== 0) throw new Error(`vault-tools ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stderr;
}
