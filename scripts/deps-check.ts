/**
 * `npm run deps:check`: every breach of the layer rules of issue 20, in two parts: the import rules of
 * .dependency-cruiser.cjs checked on the real import graph, and SQL outside the modules that own tables
 * (scripts/sql-owners.ts). Prints each violation and exits 1 when there is any.
 *
 *   npm run deps:check -- --baseline docs/architecture-baseline.md   also writes the list as that document
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { sqlOutsideOwners, type SqlSite } from './sql-owners.js';

const ROOT = resolve(import.meta.dirname, '..');
const SQL_RULE = 'sql-outside-owners';

interface Breach {
  rule: string;
  /** `from → to` for an import, `a → b → a` for a circle, `file:line  statement` for SQL */
  what: string;
}

async function importBreaches(): Promise<Breach[]> {
  process.chdir(ROOT);
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const tsConfig = extractTSConfig('tsconfig.json');
  const reported = await cruise(['src'], { ...options, validate: true }, {}, { tsConfig });
  const violations = (reported.output as ICruiseResult).summary.violations;
  return violations.map((v: IViolation) => ({
    rule: v.rule.name,
    what: v.cycle?.length ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`,
  }));
}

const sqlBreaches = (sites: SqlSite[]): Breach[] => sites.map((s) => ({ rule: SQL_RULE, what: `${s.file}:${s.line}  ${s.text}` }));

function byRule(breaches: Breach[]): Map<string, string[]> {
  const rules = new Map<string, string[]>();
  for (const b of breaches) rules.set(b.rule, [...(rules.get(b.rule) ?? []), b.what]);
  for (const list of rules.values()) list.sort();
  return new Map([...rules].sort(([a], [b]) => a.localeCompare(b)));
}

/** The list as a document the refactor works down: counts per rule, then each rule's file pairs. */
function baselineDoc(rules: Map<string, string[]>, sites: SqlSite[]): string {
  const total = [...rules.values()].reduce((n, l) => n + l.length, 0);
  const sqlFiles = new Map<string, number>();
  for (const s of sites) sqlFiles.set(s.file, (sqlFiles.get(s.file) ?? 0) + 1);
  const lines = [
    '# Architecture baseline: where the layer rules are broken today',
    '',
    'Written by `npm run deps:check -- --baseline docs/architecture-baseline.md` (issue 20). The rules are in',
    '`.dependency-cruiser.cjs` (layers bottom to top: core → store → domain (search, render, vault format, keys) →',
    'catalog → service (and sync) → surfaces and CLI; no import circle; no surface or CLI module imports the store)',
    'and `scripts/sql-owners.ts` (SQL only in `src/store` and the search index modules `word-index`, `chunk-index`,',
    '`vectors`). The refactor of issue 20 works this list down to nothing; then `deps:check` joins `npm test`.',
    '',
    `${total} violations in all.`,
    '',
    '| rule | violations |',
    '| --- | ---: |',
    ...[...rules].map(([rule, list]) => `| ${rule} | ${list.length} |`),
    '',
  ];
  for (const [rule, list] of rules) {
    lines.push(`## ${rule} (${list.length})`, '');
    if (rule === SQL_RULE) {
      lines.push('| file | statements |', '| --- | ---: |', ...[...sqlFiles].map(([f, n]) => `| ${f} | ${n} |`), '', '<details><summary>each statement</summary>', '');
    }
    lines.push(...list.map((w) => `- \`${w}\``), '');
    if (rule === SQL_RULE) lines.push('</details>', '');
  }
  return lines.join('\n');
}

const { values } = parseArgs({ options: { baseline: { type: 'string' } } });
const sites = sqlOutsideOwners(ROOT);
const rules = byRule([...(await importBreaches()), ...sqlBreaches(sites)]);
let total = 0;
for (const [rule, list] of rules) {
  total += list.length;
  console.log(`${rule} (${list.length})`);
  for (const what of list) console.log(`  ${what}`);
}
console.log(total ? `${total} violation(s) of the layer rules` : 'no violations of the layer rules');
if (values.baseline) writeFileSync(resolve(values.baseline), baselineDoc(rules, sites));
process.exitCode = total ? 1 : 0;
