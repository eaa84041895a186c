/**
 * Whether a SQLite file has exactly the schema this program writes (restore's check, issue 45): every table,
 * column, index, trigger and view is compared with a fresh store made by the migrations up to the file's own
 * schema version, plus the objects the search indexes make at run time (a word index per vault, the vector
 * table), each rebuilt here by the code that makes it. Anything else (a trigger on api_keys that undoes a
 * revoke, a view, a table, a changed column) is named and refused: SQL a backup carries would run on every
 * write this program makes.
 *
 * The shadow tables of a virtual table (FTS5's `_data`, `_idx`…, sqlite-vec's `_chunks`…) are compared by name
 * and kind only: their text comes from the SQLite or sqlite-vec build that made them, and they hold no code.
 */
import * as sqliteVec from 'sqlite-vec';
import { printable } from '../core/printable.js';
import { loadSqlite, type Db } from './db.js';
import { migrations } from './migrations.js';

/**
 * An object the migrations do not make but a search index does: given a name (and its SQL) found in the file,
 * the statements that make it as that index would, or undefined when it is not one of its own.
 */
export type RuntimeSchema = (name: string, sql: string | null) => string | undefined;

interface SchemaObject {
  type: string;
  name: string;
  table: string;
  sql: string | null;
}

const readSchema = (db: Db): SchemaObject[] =>
  // sqlite_stat* hold the planner's statistics (ANALYZE), not schema.
  db
    .prepare(
      "SELECT type, name, tbl_name AS 'table', sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY name",
    )
    .all() as SchemaObject[];

/** Same statement, whatever the spacing (a statement written in a migration is stored as written). */
const normal = (sql: string | null) => (sql ?? '').replace(/\s+/g, ' ').trim();

/** The schema a store at `version` has, made in memory by the migrations and `extra` statements. */
function referenceSchema(
  version: number,
  extra: string[],
): { objects: SchemaObject[]; virtual: string[] } | { error: string } {
  const ref = new (loadSqlite())(':memory:');
  try {
    try {
      sqliteVec.load(ref);
    } catch {
      // without sqlite-vec a file with a vector table cannot be checked: it is refused below, by name
    }
    for (let v = 0; v < version; v++) {
      const step = migrations[v]!;
      if (typeof step === 'string') ref.exec(step);
      else step(ref);
    }
    for (const statement of extra) {
      try {
        ref.exec(statement);
      } catch (err) {
        return { error: `its index ${statement.slice(0, 60)}… cannot be made here (${(err as Error).message})` };
      }
    }
    const objects = readSchema(ref);
    const virtual = objects
      .filter((o) => o.type === 'table' && /^CREATE VIRTUAL TABLE/i.test(o.sql ?? ''))
      .map((o) => o.name);
    return { objects, virtual };
  } finally {
    ref.close();
  }
}

/** An object as a message names it: its names come from the file, so they are printed escaped and cut. */
const kindOf = (o: SchemaObject) =>
  printable(`${o.type} ${o.name}${o.type === 'trigger' || o.type === 'index' ? ` on ${o.table}` : ''}`, 120);

/**
 * What differs between the schema of `db` and the one this program makes at `version` (empty: the same), in
 * words, at most `limit` of them.
 */
export function schemaProblems(db: Db, version: number, runtime: RuntimeSchema[], limit = 5): string[] {
  const found = readSchema(db);
  const extra: string[] = [];
  for (const o of found) {
    for (const make of runtime) {
      const ddl = make(o.name, o.sql);
      if (ddl) extra.push(ddl);
    }
  }
  const reference = referenceSchema(version, extra);
  if ('error' in reference) return [reference.error];
  const expected = new Map(reference.objects.map((o) => [`${o.type} ${o.name}`, o]));
  const isShadow = (name: string) => reference.virtual.some((v) => name.startsWith(`${v}_`));
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const o of found) {
    const key = `${o.type} ${o.name}`;
    seen.add(key);
    const want = expected.get(key);
    if (!want) problems.push(`a ${kindOf(o)} this program does not make`);
    else if (want.table !== o.table) problems.push(`its ${kindOf(o)} is on another table than this program's`);
    else if (normal(want.sql) !== normal(o.sql) && !(o.type === 'table' && isShadow(o.name)))
      problems.push(`its ${kindOf(o)} differs from the one this program makes`);
  }
  for (const [key, o] of expected) if (!seen.has(key)) problems.push(`no ${kindOf(o)}`);
  return problems.slice(0, limit);
}
