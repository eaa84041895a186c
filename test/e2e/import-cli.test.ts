/**
 * `vault-tools import` and `keys create` as a user runs them: a key granted by a vault's name reaches it;
 * an import whose name clashes, or that would discard local work not pushed upstream, is refused with one
 * line saying what and how to fix it (from --check too); --force says what it discarded.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../helpers.js';
import { tinyVault, writeTinyVault } from '../tiny-vault.js';
import { loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

let root: string;
let data: string;
let cleanup: () => void;
beforeEach(() => {
  const t = tempDir();
  root = t.dir;
  data = join(t.dir, 'data');
  cleanup = t.cleanup;
});
afterEach(() => cleanup());

/** The built CLI on `data`: exit status, stdout, stderr (import and keys report on stderr). */
function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' };
  return spawnSync(process.execPath, [BIN, ...args, '--data-dir', data], { encoding: 'utf8', env });
}

function ok(...args: string[]): { stdout: string; stderr: string } {
  const r = run(...args);
  expect(r.status, r.stderr).toBe(0);
  return r;
}

/** A refusal: exit 1, one line on stderr, no stack trace, nothing on stdout. */
function refused(...args: string[]): string {
  const r = run(...args);
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/unexpected failure|\n\s+at /);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  return r.stderr.trim();
}

const vaultDir = (id: string, name: string) => writeTinyVault(join(root, `vault-${id}`), tinyVault({ id, name }));
const data_ = (out: string) => JSON.parse(out) as Record<string, any>;

describe('keys create --vault', () => {
  it('grants a vault given by its exact name (any case) as its id, and a call with that key reaches it', () => {
    ok('import', vaultDir('tiny', 'Tiny Vault'));
    ok('import', vaultDir('other', 'Other Books'));
    const grant = (given: string) => {
      const created = ok('keys', 'create', '--vault', given, '--json');
      expect(created.stderr).toBe(''); // no "not in this store yet"
      return data_(created.stdout) as { key: string; vaults: string[] };
    };
    const { key, vaults } = grant('Tiny Vault');
    expect(vaults).toEqual(['tiny']);
    expect(data_(ok('call', 'stats', '--key', key).stdout).vault).toEqual({ id: 'tiny', name: 'Tiny Vault' });
    expect(data_(run('call', 'stats', '{"vault": "Other Books"}', '--key', key).stderr).error.code).toBe(
      'vault_not_found',
    );
    expect(grant('tiny vault').vaults).toEqual(['tiny']);
    expect(grant('TINY').vaults).toEqual(['tiny']);
  });

  it('a vault not in the store yet is granted by the id given with --allow-unknown-vault, with a note; a name two vaults answer to is refused, listing their ids', () => {
    ok('import', vaultDir('tiny', 'Tiny Vault'));
    expect(run('keys', 'create', '--vault', 'synced-later').status).toBe(2); // a typo, unless said otherwise
    const later = ok('keys', 'create', '--vault', 'synced-later', '--allow-unknown-vault', '--json');
    expect(data_(later.stdout).vaults).toEqual(['synced-later']);
    expect(later.stderr).toContain(
      'note: no vault in this store has the id or name "synced-later" yet; the grant applies once a vault with that id is synced or imported',
    );
    // Imports refuse names differing only in case; a sync could still bring one in.
    const db = new Database(join(data, 'vault-tools.db'));
    db.prepare(
      "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('tiny-2', 'TINY VAULT', 'sync', '2026-01-10T00:00:00Z')",
    ).run();
    db.close();
    const r = run('keys', 'create', '--vault', 'Tiny Vault');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'vault-tools: keys create: vault "Tiny Vault" matches 2 vaults (names and ids ignoring case): tiny, tiny-2; grant one by its id\n',
    );
    expect(data_(ok('keys', 'create', '--vault', 'tiny-2', '--json').stdout).vaults).toEqual(['tiny-2']);
  });
});

describe('import: names that clash', () => {
  it('a name another vault has is one clear line, from --check too, and loads nothing', () => {
    ok('import', vaultDir('tiny', 'Tiny Vault'));
    const copy = vaultDir('copy', 'Tiny Vault');
    const expected = `vault-tools: vault "copy": the name "Tiny Vault" is already used by vault "tiny", and names are unique in a store (ignoring case). Fix: give it another "name" in its vault.json, or set its "id" to "tiny" to replace that vault.`;
    expect(refused('import', '--check', copy)).toBe(expected);
    expect(refused('import', copy)).toBe(expected);
    expect(data_(ok('call', 'list_vaults').stdout).vaults.map((v: { id: string }) => v.id)).toEqual(['tiny']);
  });

  it("a name that is another vault's id is refused: it would only ever reach that vault", () => {
    ok('import', vaultDir('tiny', 'Tiny Vault'));
    const expected = `vault-tools: vault "shadow": the name "tiny" is the id of vault "tiny" ("Tiny Vault"), so tools given "tiny" would reach that vault, never this one. Fix: give it another "name" in its vault.json.`;
    expect(refused('import', '--check', vaultDir('shadow', 'tiny'))).toBe(expected);
    expect(refused('import', vaultDir('shadow', 'tiny'))).toBe(expected);
  });

  it('--check says which store it checked against, and never creates one', () => {
    const check = ok('import', '--check', vaultDir('tiny', 'Tiny Vault'));
    expect(check.stderr).toContain(`  no store in ${data} yet: nothing to clash with\n`);
    expect(existsSync(data)).toBe(false);
    ok('import', vaultDir('tiny', 'Tiny Vault'));
    expect(ok('import', '--check', vaultDir('tiny', 'Tiny Vault')).stderr).toContain(
      `  checked against the store in ${data}: replaces vault "tiny"\n`,
    );
  });
});

describe('import over local work not pushed upstream', () => {
  it('refuses and says what would be lost; --force discards it with its outbox entries and says so', () => {
    const dir = vaultDir('tiny', 'Tiny Vault');
    // Counts read as a person writes them: "1 meeting", not "1 meetings".
    expect(ok('import', dir).stderr).toMatch(
      /^imported "Tiny Vault" \(tiny\) into .*: 1 meeting, 2 entities, 1 conflict, 1 task; dates shifted by \d+ days\n$/,
    );
    ok('call', 'add_task', '{"title": "Reconcile the bank feed"}');
    ok(
      'call',
      'resolve_conflict',
      '{"conflictId": "c1", "status": "resolved", "note": "six days since the ledger upgrade"}',
    );
    ok('call', 'send_email', '{"to": ["ana@tiny.test"], "subject": "Close time", "body": "Six days, confirmed."}');
    const lost = 'add_task 1, resolve_conflict 1, send_email 1 (3 outbox entries: 3 pending)';
    const expected = `vault-tools: vault "tiny" has local work not pushed upstream, which re-importing would discard: ${lost}. Fix: push it first (vault-tools sync), or import with --force to discard it (its outbox entries are then dropped too: they name records the import replaces).`;
    expect(refused('import', dir)).toBe(expected);
    expect(refused('import', '--check', dir)).toBe(expected);
    expect(data_(ok('call', 'list_tasks').stdout).tasks).toHaveLength(2); // nothing was replaced
    expect(ok('import', '--check', '--force', dir).stderr).toContain(
      `replaces vault "tiny", discarding its local work (--force): ${lost}`,
    );

    const forced = ok('import', '--force', dir).stderr;
    expect(forced).toContain(
      `discarded the local work of the earlier copy (--force): ${lost}; their outbox entries were dropped with them, since they name records the import replaced\n`,
    );
    expect(data_(ok('outbox', '--vault', 'tiny', '--json').stdout)).toEqual([]);
    expect(data_(ok('call', 'list_tasks').stdout).tasks).toHaveLength(1);
  });
});

describe('import: what the folder may not bring in', () => {
  it('a FIFO named like a meeting and a people.json linked from outside are refused at once, naming them', () => {
    const dir = vaultDir('fifo-vault', 'FIFO Vault');
    spawnSync('mkfifo', [join(dir, 'meetings', 'x.json')]);
    writeFileSync(join(root, 'elsewhere.json'), '[]');
    rmSync(join(dir, 'people.json'));
    symlinkSync(join(root, 'elsewhere.json'), join(dir, 'people.json'));
    // Before, the import opened the FIFO and waited for a writer forever: the timeout turns a hang into a failure.
    const r = spawnSync(process.execPath, [BIN, 'import', dir, '--data-dir', data], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, VAULT_TOOLS_INDEX: 'off' },
    });
    expect(r.signal, 'the import hung').toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'meetings', 'x.json')}: is a named pipe (FIFO), not a regular file`);
    expect(r.stderr).toContain(`${join(dir, 'people.json')}: is a symbolic link leading outside the vault folder`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(data, 'vault-tools.db'))).toBe(false);
  });
});
