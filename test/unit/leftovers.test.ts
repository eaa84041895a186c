/**
 * The leftovers sweep deletes only inside the data dir's content folders: a path outside is refused before
 * anything is removed, and a link inside artifacts/ to a folder elsewhere is never taken for an orphan folder.
 */
import { existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { findLeftovers, removeLeftovers } from '../../src/store/leftovers.js';
import { tempDir } from '../helpers.js';

let tmp: { dir: string; cleanup(): void };
let data: string;
let db: Db;
const old = new Date(Date.now() - 2 * 3600_000);

beforeEach(() => {
  tmp = tempDir();
  data = join(tmp.dir, 'data');
  db = openDb(data);
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

describe('removing leftovers', () => {
  it('refuses a path outside artifacts/ and mail/ and removes nothing', () => {
    const outside = join(tmp.dir, 'precious.partial');
    const inside = join(data, 'artifacts', 'v', 'a.partial');
    mkdirSync(join(data, 'artifacts', 'v'));
    writeFileSync(outside, 'keep');
    writeFileSync(inside, 'half');
    for (const escaping of [outside, join(data, 'artifacts', '..', 'vault-tools.db'), join(data, 'artifacts')]) {
      expect(() => removeLeftovers(data, { partials: [escaping], orphanFolders: [] })).toThrow(
        /refusing to remove .* outside/,
      );
    }
    expect(() =>
      removeLeftovers(data, { partials: [inside], orphanFolders: [join(data, 'artifacts', '..', '..')] }),
    ).toThrow(/refusing/);
    expect([outside, inside, join(data, 'vault-tools.db')].every(existsSync)).toBe(true);
  });

  it('does not take a link to a folder elsewhere for an orphan artifact folder', () => {
    const elsewhere = join(tmp.dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'file.png'), 'not ours');
    utimesSync(elsewhere, old, old);
    mkdirSync(join(data, 'artifacts', 'v'));
    symlinkSync(elsewhere, join(data, 'artifacts', 'v', 'art_link'));
    symlinkSync(tmp.dir, join(data, 'artifacts', 'linked-vault'));
    expect(findLeftovers(db, data)).toEqual({ partials: [], orphanFolders: [] });
  });
});
