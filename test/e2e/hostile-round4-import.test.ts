/**
 * Hostile input, round 4 (issue 45, items 6-9): import bounds every field the way the fixture schema names it
 * (and `import --check` says exactly what `import` says); nothing a folder holds makes chunking loop; export
 * refuses synced meeting ids that cannot be file names, by name; a folder export is private to its owner.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../helpers.js';
import { tinyVault, writeTinyVault, type TinyVault } from '../tiny-vault.js';
import { loadSqlite } from '../../src/store/db.js';

const Database = loadSqlite();
const tmp = tempDir('vt-hostile4i-');
afterAll(() => tmp.cleanup());

/**
 * The built CLI. The heap is capped and the run timed out, so a chunker that loops fails here in seconds
 * (it used to take 2.6 GB and 26 s to die) rather than taking the machine with it.
 */
function run(args: string[]): { status: number | null; stderr: string; stdout: string } {
  const env = {
    ...process.env,
    VAULT_TOOLS_KEY: '',
    VAULT_TOOLS_HOME: '',
    VAULT_TOOLS_INDEX: 'off',
    NODE_OPTIONS: '--max-old-space-size=256',
  };
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
}

/** The problems import lists for a folder (the lines after the header), from `import` and from `import --check`. */
function problems(dir: string): {
  check: string[];
  load: string[];
  checkStatus: number | null;
  loadStatus: number | null;
  stderr: string;
} {
  const data = join(tmp.dir, `data-${readdirSync(tmp.dir).length}`);
  const check = run(['import', dir, '--check', '--data-dir', data]);
  const load = run(['import', dir, '--data-dir', data]);
  const lines = (s: string) =>
    s
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.replace(/^- /, ''));
  return {
    check: lines(check.stderr),
    load: lines(load.stderr),
    checkStatus: check.status,
    loadStatus: load.status,
    stderr: `${check.stderr}\n${load.stderr}`,
  };
}

function hostile(name: string, edit: (v: TinyVault & Record<string, any>) => void): string {
  const v = tinyVault() as TinyVault & Record<string, any>;
  edit(v);
  return writeTinyVault(join(tmp.dir, name), v);
}

describe('item 6: a 2,000-character speaker name', () => {
  it('is refused by name by import --check and by import alike; nothing loops', () => {
    const dir = hostile('long-speaker', (v) => {
      const long = 'S'.repeat(2000);
      v.meetings[0]!.attendees = [long, 'Bo Lind'];
      (v.meetings[0]!.transcript as { speaker: string }[])[0]!.speaker = long;
    });
    const p = problems(dir);
    expect(p.checkStatus).toBe(1);
    expect(p.loadStatus).toBe(1);
    expect(p.load).toContain(
      `${dir}/meetings/m1.json: field "transcript[0].speaker": a name of at most 200 characters`,
    );
    expect(p.load).toContain(`${dir}/meetings/m1.json: field "attendees[0]": a name of at most 200 characters`);
    expect(p.check).toEqual(p.load);
    expect(p.stderr).not.toMatch(/\n\s+at |RangeError|heap/);
  });
});

describe('item 7: dates and numbers in range', () => {
  it('a far-past referenceDate, a year-999 date and durationMinutes 1e12: each a named field error, no stack', () => {
    const dir = hostile('ranges', (v) => {
      v.vault.referenceDate = '0001-01-07';
      v.meetings[0]!.durationMinutes = 1e12;
      (v.meetings[0]!.transcript as { at: number }[])[1]!.at = 1e15;
      v.tasks[0].number = 1e300;
      v.meetings[0]!.startedAt = '0999-01-05T09:00:00Z';
    });
    const p = problems(dir);
    expect(p.loadStatus).toBe(1);
    expect(p.load).toEqual(
      expect.arrayContaining([
        `${dir}/vault.json: field "referenceDate": a day from 1970 to a year from today (the day the vault was written as "today")`,
        `${dir}/meetings/m1.json: field "startedAt": a year from 1000 to 9999`,
        `${dir}/meetings/m1.json: field "durationMinutes": at most 10080 minutes (a week)`,
        `${dir}/meetings/m1.json: field "transcript[1].at": at most 604800 seconds (a week)`,
      ]),
    );
    expect(p.load.some((l) => l.startsWith(`${dir}/tasks.json: `) && l.includes('"number"'))).toBe(true);
    expect(p.check).toEqual(p.load);
    expect(p.stderr).not.toMatch(/\n\s+at |RangeError/);
  });

  it('a date the shift to this week would move past 9999 (the year 12024 of the report): named, by check and import alike', () => {
    const dir = hostile('shifted-past', (v) => {
      v.vault.referenceDate = '1970-01-03';
      v.meetings[0]!.startedAt = '9990-01-05T09:00:00Z';
    });
    const p = problems(dir);
    expect(p.loadStatus).toBe(1);
    expect(p.load).toHaveLength(1);
    expect(p.load[0]).toMatch(
      new RegExp(
        `^${dir}/meetings/m1.json: field "startedAt": 9990-01-05T09:00:00Z moves [\\d,]+ days with referenceDate 1970-01-03 \\(to this week\\) into the year 100\\d\\d; dates load within 1000-9999$`,
      ),
    );
    expect(p.check).toEqual(p.load);
  });

  it('the widest folder the bounds allow loads, and exports back to a folder import reads', () => {
    const dir = hostile('widest', (v) => {
      v.vault.referenceDate = '1970-01-03';
      v.meetings[0]!.startedAt = '9940-12-01T09:00:00Z';
      v.meetings[0]!.durationMinutes = 10080;
    });
    const data = join(tmp.dir, 'widest-data');
    const load = run(['import', dir, '--data-dir', data]);
    expect(load.status, load.stderr).toBe(0);
    const out = join(tmp.dir, 'widest-export');
    const exported = run(['export', 'tiny', out, '--data-dir', data]);
    expect(exported.status, exported.stderr).toBe(0);
    expect(run(['import', out, '--check', '--data-dir', join(tmp.dir, 'widest-fresh')]).status).toBe(0);
  });
});

describe('items 8 and 9: export', () => {
  let data: string;
  beforeAll(() => {
    data = join(tmp.dir, 'export-data');
    const load = run(['import', writeTinyVault(join(tmp.dir, 'export-src')), '--data-dir', data]);
    expect(load.status, load.stderr).toBe(0);
  });

  it('refuses synced meeting ids that cannot be file names, naming them; no stack, nothing written', () => {
    const ids = ['../../../escaped', 'a/b', 'nul\u0000byte', 'x'.repeat(300)];
    const db = new Database(join(data, 'vault-tools.db'));
    try {
      // As a sync would have stored them: copies of the meeting under the remote's ids.
      const meeting = db.prepare("SELECT * FROM meetings WHERE vault_id = 'tiny' AND id = 'm1'").get() as Record<
        string,
        unknown
      >;
      const turns = db
        .prepare("SELECT * FROM transcript_turns WHERE vault_id = 'tiny' AND meeting_id = 'm1'")
        .all() as Record<string, unknown>[];
      const insert = (table: string, row: Record<string, unknown>) =>
        db
          .prepare(
            `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
              .map(() => '?')
              .join(', ')})`,
          )
          .run(...Object.values(row));
      for (const id of ids) {
        insert('meetings', { ...meeting, id });
        for (const t of turns) insert('transcript_turns', { ...t, meeting_id: id });
      }
    } finally {
      db.close();
    }
    const out = join(tmp.dir, 'hostile-export');
    const r = run(['export', 'tiny', out, '--data-dir', data]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'export: meeting ids "../../../escaped", "a/b", "nul\\u0000byte", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" of 300 characters cannot be a file name in the folder format',
    );
    expect(r.stderr).toContain('nothing was written');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(() => statSync(out)).toThrow();
    expect(() => statSync(join(tmp.dir, 'escaped.json'))).toThrow();
    const clean = new Database(join(data, 'vault-tools.db'));
    clean.prepare("DELETE FROM meetings WHERE vault_id = 'tiny' AND id <> 'm1'").run();
    clean.close();
  });

  it('writes every folder 0700 and every file 0600, like a backup, whatever the umask', () => {
    const own = join(tmp.dir, 'private-data');
    expect(run(['import', writeTinyVault(join(tmp.dir, 'private-src')), '--data-dir', own]).status).toBe(0);
    const out = join(tmp.dir, 'private-export');
    const r = spawnSync(
      'sh',
      ['-c', `umask 022; exec "${process.execPath}" "${BIN}" export tiny "${out}" --data-dir "${own}"`],
      {
        encoding: 'utf8',
        env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const modes: [string, number][] = [];
    const walk = (path: string) => {
      const s = statSync(path);
      modes.push([path, s.mode & 0o777]);
      if (s.isDirectory()) for (const n of readdirSync(path)) walk(join(path, n));
    };
    walk(out);
    expect(modes.length).toBeGreaterThan(10);
    for (const [path, mode] of modes)
      expect([path, mode]).toEqual([path, statSync(path).isDirectory() ? 0o700 : 0o600]);
  });
});
