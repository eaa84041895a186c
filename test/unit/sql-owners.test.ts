/**
 * The SQL-owner check of `npm run deps:check` (issue 20) finds statements by parsing TypeScript: SQL in a
 * string or template outside src/store and the index modules is reported with its line; regexes, comments,
 * prose and SQL inside the owners are not.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOutsideOwners } from '../../scripts/sql-owners.js';
import { tempDir } from '../helpers.js';

let root: { dir: string; cleanup(): void };
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root.dir, path)), { recursive: true });
  writeFileSync(join(root.dir, path), text);
};

beforeAll(() => {
  root = tempDir();
  write(
    'src/catalog/actions/tool.ts',
    [
      '// SELECT id FROM tasks in a comment is not a statement',
      "const a = db.prepare('SELECT id FROM tasks WHERE vault_id = ?');",
      'const b = sql(db, `INSERT INTO tasks (id) VALUES (${1})`);',
      'const c = /^SELECT (.*)$/.exec(line);',
      "const d = 'Select the rows you want, from the list';",
      "db.pragma('user_version = 5');",
      'const e = `UPDATE tasks SET title = ? WHERE id = ?`;',
    ].join('\n'),
  );
  write('src/store/tasks.ts', "db.prepare('DELETE FROM tasks WHERE id = ?');\n");
  write('src/search/word-index.ts', "db.exec('CREATE VIRTUAL TABLE words USING fts5(text)');\n");
  write('src/search/transcripts.ts', 'db.prepare(`WITH hits AS (SELECT 1) SELECT * FROM hits`);\n');
});
afterAll(() => root.cleanup());

describe('sqlOutsideOwners', () => {
  it('reports each statement outside the owners with its line, and nothing else', () => {
    const sites = sqlOutsideOwners(root.dir).map((s) => `${s.file}:${s.line} ${s.text}`);
    expect(sites).toEqual([
      'src/catalog/actions/tool.ts:2 SELECT id FROM tasks WHERE vault_id = ?',
      'src/catalog/actions/tool.ts:3 INSERT INTO tasks (id) VALUES (…',
      "src/catalog/actions/tool.ts:6 pragma('user_version = 5')",
      'src/catalog/actions/tool.ts:7 UPDATE tasks SET title = ? WHERE id = ?',
      'src/search/transcripts.ts:1 WITH hits AS (SELECT 1) SELECT * FROM hits',
    ]);
  });
});
