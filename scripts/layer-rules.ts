/**
 * The layer rules of src/ checked on the real code (issue 20): the import rules of .dependency-cruiser.cjs on
 * the import graph, and SQL outside the modules that own tables (scripts/sql-owners.ts). Used by
 * `npm run deps:check` (prints them) and by test/unit/layers.test.ts (fails on any).
 */
import { resolve } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { sqlOutsideOwners } from './sql-owners.js';

export const ROOT = resolve(import.meta.dirname, '..');

export interface Breach {
  rule: string;
  /** `from → to` for an import, `a → b → a` for a circle, `file:line  statement` for SQL */
  what: string;
}

async function importBreaches(root: string): Promise<Breach[]> {
  const cwd = process.cwd();
  process.chdir(root); // dependency-cruiser resolves its config and tsconfig from the working directory
  try {
    const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
    const tsConfig = extractTSConfig('tsconfig.json');
    const reported = await cruise(['src'], { ...options, validate: true }, {}, { tsConfig });
    return (reported.output as ICruiseResult).summary.violations.map((v: IViolation) => ({
      rule: v.rule.name,
      what: v.cycle?.length ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`,
    }));
  } finally {
    process.chdir(cwd);
  }
}

/** Every breach, sorted by rule then place. */
export async function layerBreaches(root = ROOT): Promise<Breach[]> {
  const sql = sqlOutsideOwners(root).map((s) => ({
    rule: 'sql-outside-owners',
    what: `${s.file}:${s.line}  ${s.text}`,
  }));
  return [...(await importBreaches(root)), ...sql].sort(
    (a, b) => a.rule.localeCompare(b.rule) || a.what.localeCompare(b.what),
  );
}
