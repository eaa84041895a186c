/**
 * The vault format refuses what would otherwise load wrong without a word: unknown (misspelled) files,
 * duplicates the store would merge or drop; it reads what editors write (a BOM, `.JSON`), and every
 * problem names its file, record (counted from 1, with its id) and field.
 */
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FixtureError, readVaultDir } from '../../src/vault-format/read.js';
import { tempDir } from '../helpers.js';
import { tinyVault, writeTinyVault, type TinyVault } from '../tiny-vault.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  dir = join(t.dir, 'vault');
});
afterEach(() => cleanup());

/** The problems readVaultDir reports for `dir` (fails the test when the vault reads as valid). */
function problems(): string[] {
  try {
    readVaultDir(dir);
  } catch (err) {
    if (err instanceof FixtureError) return err.problems;
    throw err;
  }
  throw new Error(`expected ${dir} to be refused, but it read as valid`);
}

function write(change: (v: TinyVault) => void): void {
  const v = tinyVault();
  change(v);
  writeTinyVault(dir, v);
}

describe('the files of a vault directory', () => {
  it('the tiny vault reads as valid', () => {
    writeTinyVault(dir);
    const f = readVaultDir(dir);
    expect(f.meetings).toHaveLength(1);
    expect(f['plan-steps']).toHaveLength(1);
  });

  it('a misspelled file is an error with the name it was meant to be, not an empty family', () => {
    writeTinyVault(dir);
    renameSync(join(dir, 'plan-steps.json'), join(dir, 'plan_steps.json'));
    renameSync(join(dir, 'sent-emails.json'), join(dir, 'sent_emials.json'));
    renameSync(join(dir, 'meetings'), join(dir, 'meeting'));
    const p = problems();
    expect(p).toContain(
      `${join(dir, 'plan_steps.json')}: not a file of the vault format: did you mean plan-steps.json?`,
    );
    expect(p).toContain(
      `${join(dir, 'sent_emials.json')}: not a file of the vault format: did you mean sent-emails.json?`,
    );
    expect(p).toContain(`${join(dir, 'meeting')}: not a directory of the vault format: did you mean meetings/?`);
  });

  it('a file far from every known name lists the names; hidden files are left alone', () => {
    writeTinyVault(dir);
    writeFileSync(join(dir, 'notes.txt'), 'to do');
    writeFileSync(join(dir, '.DS_Store'), '');
    writeFileSync(join(dir, 'meetings', 'agenda.md'), '# agenda');
    const p = problems();
    expect(p).toHaveLength(2);
    expect(p).toContainEqual(
      expect.stringMatching(
        /notes\.txt: not a file of the vault format; a vault directory holds vault\.json, people\.json, .*meetings\//,
      ),
    );
    expect(p).toContain(
      `${join(dir, 'meetings', 'agenda.md')}: not a meeting file; meetings/ holds only one <id>.json per meeting`,
    );
  });

  it('reads .JSON (any case) and a UTF-8 byte-order mark', () => {
    writeTinyVault(dir);
    renameSync(join(dir, 'meetings', 'm1.json'), join(dir, 'meetings', 'm1.JSON'));
    renameSync(join(dir, 'people.json'), join(dir, 'People.Json'));
    const tasks = JSON.stringify(tinyVault().tasks);
    writeFileSync(join(dir, 'tasks.json'), `\uFEFF${tasks}`);
    const f = readVaultDir(dir);
    expect(f.meetings.map((m) => m.id)).toEqual(['m1']);
    expect(f.people).toHaveLength(2);
    expect(f.tasks).toHaveLength(1);
  });

  it('a symbolic link that stays inside the folder is read like what it leads to', () => {
    writeTinyVault(dir);
    renameSync(join(dir, 'meetings'), join(dir, '.meetings-2026'));
    symlinkSync('.meetings-2026', join(dir, 'meetings'));
    renameSync(join(dir, 'people.json'), join(dir, '.people-v2.json'));
    symlinkSync(join(dir, '.people-v2.json'), join(dir, 'people.json'));
    const f = readVaultDir(dir);
    expect(f.meetings).toHaveLength(1);
    expect(f.people).toHaveLength(2);
  });

  it('two files for one family (names differing in case) are an error naming both', () => {
    writeTinyVault(dir);
    writeFileSync(join(dir, 'TASKS.json'), '[]');
    expect(problems()).toEqual([
      `${join(dir, 'tasks.json')}: a second tasks file next to TASKS.json (file names are matched ignoring case); keep one`,
    ]);
  });

  it('a missing vault.json is a clear error, not ENOENT', () => {
    writeTinyVault(dir);
    rmSync(join(dir, 'vault.json'));
    const p = problems();
    expect(p).toEqual([
      `${join(dir, 'vault.json')}: missing; every vault directory has one, with the vault's formatVersion, id, name and the rest (docs/fixture-format.md)`,
    ]);
  });

  it('bad JSON says where (line and column); an empty file says it is empty', () => {
    writeTinyVault(dir);
    writeFileSync(join(dir, 'edges.json'), '[\n  {"from": "a",}\n]');
    writeFileSync(join(dir, 'briefs.json'), '');
    const p = problems().join('\n');
    expect(p).toMatch(/edges\.json: not valid JSON \(.*\(line 2, column \d+\)\)/);
    expect(p).toContain(`${join(dir, 'briefs.json')}: is empty; expected JSON (an empty list is [])`);
  });
});

describe('what a vault folder may not bring in', () => {
  const outside =
    'is a symbolic link leading outside the vault folder; import reads only what is inside it (copy the file in instead)';

  it('a file or a meetings/ linked from outside the folder is refused, naming it', () => {
    writeTinyVault(dir);
    renameSync(join(dir, 'people.json'), join(dir, '..', 'people.json'));
    symlinkSync(join(dir, '..', 'people.json'), join(dir, 'people.json'));
    renameSync(join(dir, 'meetings'), join(dir, '..', 'shared-meetings'));
    symlinkSync(join(dir, '..', 'shared-meetings'), join(dir, 'meetings'));
    expect(problems()).toEqual([`${join(dir, 'meetings')}: ${outside}`, `${join(dir, 'people.json')}: ${outside}`]);
  });

  it('a meeting linked to a file outside, through a relative link, is refused', () => {
    writeTinyVault(dir);
    renameSync(join(dir, 'meetings', 'm1.json'), join(dir, '..', 'm1.json'));
    symlinkSync(join('..', '..', 'm1.json'), join(dir, 'meetings', 'm1.json'));
    expect(problems()).toEqual([`${join(dir, 'meetings', 'm1.json')}: ${outside}`]);
  });

  it('vault.json linked to a secret outside is refused without a character of it in the message', () => {
    writeTinyVault(dir);
    const secret = join(dir, '..', 'owner.key');
    writeFileSync(secret, 'vt_secretkeymaterial0123456789');
    rmSync(join(dir, 'vault.json'));
    symlinkSync(secret, join(dir, 'vault.json'));
    const p = problems();
    expect(p).toEqual([`${join(dir, 'vault.json')}: ${outside}`]);
    expect(p.join('\n')).not.toMatch(/vt_|secret/);
  });

  it('a named pipe (FIFO) is refused at once, never opened', () => {
    writeTinyVault(dir);
    execFileSync('mkfifo', [join(dir, 'meetings', 'x.json')]);
    execFileSync('mkfifo', [join(dir, 'tasks.json.fifo')]);
    rmSync(join(dir, 'edges.json'));
    execFileSync('mkfifo', [join(dir, 'edges.json')]);
    const p = problems();
    expect(p).toContain(
      `${join(dir, 'meetings', 'x.json')}: is a named pipe (FIFO), not a regular file; a vault directory holds JSON files`,
    );
    expect(p).toContain(
      `${join(dir, 'edges.json')}: is a named pipe (FIFO), not a regular file; a vault directory holds JSON files`,
    );
  });

  it('a dangling link says its target does not exist', () => {
    writeTinyVault(dir);
    rmSync(join(dir, 'tasks.json'));
    symlinkSync('tasks-gone.json', join(dir, 'tasks.json'));
    expect(problems()).toEqual([
      `${join(dir, 'tasks.json')}: is a symbolic link to nothing (its target does not exist)`,
    ]);
  });
});

describe('duplicates are errors naming both records', () => {
  it('the same edge twice', () => {
    write((v) => (v.edges as unknown[]).push({ from: 'sys-ledger', to: 'kpi-close', relation: 'affects' }));
    expect(problems()).toEqual([
      `${join(dir, 'edges.json')}: 2nd record (sys-ledger → kpi-close, affects): the same edge as the 1st record`,
    ]);
  });

  it('two entities with one name (ignoring case and accents), and an alias two entities share', () => {
    write((v) => {
      const entities = v.entities as Record<string, unknown>[];
      entities.push({
        id: 'sys-ledger-2',
        type: 'system',
        name: 'LEDGER',
        aliases: [],
        description: 'x',
        source: 'agent-assumption',
        firstSeenAt: '2026-01-05T09:00:00Z',
      });
      entities.push({
        id: 'proc-close',
        type: 'process',
        name: 'Month-end close',
        aliases: ['Géneral Ledger'],
        description: 'x',
        source: 'agent-assumption',
        firstSeenAt: '2026-01-05T09:00:00Z',
      });
    });
    expect(problems()).toEqual([
      `${join(dir, 'entities.json')}: 3rd record (id "sys-ledger-2"), field "name": name or alias "LEDGER" is already in the 1st record (id "sys-ledger")`,
      `${join(dir, 'entities.json')}: 4th record (id "proc-close"), field "aliases[0]": name or alias "Géneral Ledger" is already in the 1st record (id "sys-ledger")`,
    ]);
  });

  it('an entity repeating its own name as an alias is fine', () => {
    write((v) => ((v.entities as { aliases: string[] }[])[0]!.aliases = ['ledger', 'general ledger']));
    expect(readVaultDir(dir).entities[0]!.aliases).toEqual(['ledger', 'general ledger']);
  });

  it('two people with one e-mail address (ignoring case), and one Message-ID twice in the mailbox', () => {
    write((v) => {
      (v.people as Record<string, unknown>[]).push({
        id: 'p-ana-2',
        name: 'Ana R.',
        email: 'Ana@Tiny.test',
        title: 'COO',
        organisation: 'Tiny Ltd',
      });
      const thread = (v.mailbox as { messages: unknown[] }[])[0]!;
      thread.messages.push({ ...(thread.messages[0] as object), body: 'again' });
    });
    expect(problems()).toEqual([
      `${join(dir, 'people.json')}: 3rd record (id "p-ana-2"), field "email": e-mail address "Ana@Tiny.test" is already in the 1st record (id "p-ana")`,
      `${join(dir, 'mailbox.json')}: 1st record (id "t2"), field "messages[1].id": Message-ID "<m1@tiny.test>" is already in the 1st record (id "t2")`,
    ]);
  });
});

describe('every problem names file, record (from 1, with its id) and field', () => {
  it('shape errors keep the record id', () => {
    write((v) => {
      (v.tasks as Record<string, unknown>[])[0]!.status = 'finished';
      (v.people as Record<string, unknown>[])[1]!.emial = 'bo@tiny.test';
    });
    const p = problems();
    expect(p).toContainEqual(
      expect.stringMatching(new RegExp(`^${join(dir, 'tasks.json')}: 1st record \\(number 1\\), field "status": `)),
    );
    expect(p).toContain(
      `${join(dir, 'people.json')}: 2nd record (id "p-bo"), field "emial": not a field of this record (a typo?)`,
    );
  });

  it('reference errors name the record and the position inside it', () => {
    write((v) => ((v.conflicts as { claims: { quote: string }[] }[])[0]!.claims[1]!.quote = 'seven days'));
    expect(problems()).toEqual([
      `${join(dir, 'conflicts.json')}: 1st record (id "c1"), field "claims[1].quote": not found verbatim in turn 1 of m1`,
    ]);
  });
});
