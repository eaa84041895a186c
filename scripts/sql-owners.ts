/**
 * The rule dependency-cruiser cannot check (issue 20): SQL runs only in the modules that own tables, the store
 * and the one module of each search index. Finds every string or template literal under src/ that is an SQL
 * statement, and every `.pragma(` call, by parsing the TypeScript (comments and regexes are not text).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The modules allowed to hold SQL: the store, and the search indexes that own their tables: words (FTS5),
 * chunks, vectors (the table and its search in vectors.ts, filling it in vector-indexing.ts), and the name
 * index (names.ts reads the entity_name_changes log its triggers keep).
 */
export const SQL_OWNERS = [
  /^src\/store\//,
  /^src\/search\/(word-index|chunk-index|vectors|vector-indexing|names)\.ts$/,
];

// A statement's opening words; upper case only, as the code base writes SQL (prose rarely opens so).
const STATEMENT =
  /^\s*(SELECT\b[\s\S]*\bFROM\b|SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\b|REPLACE\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(TABLE|INDEX|UNIQUE|VIRTUAL|TRIGGER|VIEW)\b|DROP\s+(TABLE|INDEX|TRIGGER|VIEW)\b|ALTER\s+TABLE\b|WITH\s+(RECURSIVE\s+)?\w+(\s*\([^)]*\))?\s+AS\b|PRAGMA\s)/;

export interface SqlSite {
  file: string;
  line: number;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every SQL statement or pragma in one file, with its line. */
export function sqlSites(root: string, path: string): SqlSite[] {
  const file = relative(root, path).split('\\').join('/');
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const sites: SqlSite[] = [];
  const add = (node: ts.Node, text: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    sites.push({ file, line, text: text.replace(/\s+/g, ' ').trim().slice(0, 60) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (STATEMENT.test(node.text)) add(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      if (STATEMENT.test(node.head.text)) add(node, `${node.head.text}…`);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'pragma'
    ) {
      add(node, `pragma(${node.arguments[0]?.getText(source) ?? ''})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** The SQL under `src/` outside its owners, in file and line order. */
export function sqlOutsideOwners(root: string): SqlSite[] {
  return sourceFiles(join(root, 'src'))
    .sort()
    .flatMap((path) => sqlSites(root, path))
    .filter((site) => !SQL_OWNERS.some((owner) => owner.test(site.file)));
}
