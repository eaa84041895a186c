/**
 * A behaviour baseline for refactors that must not change what tools answer (issue 20): loads both shipped
 * vaults into a temp store on a pinned clock, calls every read-only tool of the catalog through the service
 * with a fixed set of arguments, and writes one JSON file per call. Run it before and after a change and
 * compare the two directories.
 *
 *   npm run dump:read-tools -- --out DIR
 *   npm run dump:read-tools -- --compare DIR_A DIR_B
 *
 * The clock is pinned (store import and the service's `now`), so dumps taken on different days compare equal.
 * Volatile text is replaced, nothing is dropped: the temp data dir (in `file://` links) becomes `<dataDir>`, and
 * the random id and real-clock creation time of each artifact seeded for find_artifact become `<artifact-N…>`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { authenticate, createKey } from '../src/auth/keys.js';
import type { Principal } from '../src/core/principal.js';
import { tools } from '../src/catalog/index.js';
import { loadFixture } from '../src/load/load.js';
import { readVaultDir } from '../src/vault-format/read.js';
import { Service } from '../src/service/invoke.js';
import { openDb } from '../src/store/db.js';
import { firstDifference, globalCalls, sortKeys, vaultCalls } from './read-tool-calls.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const ROOT = resolve(import.meta.dirname, '..');
const VAULTS = { northwind: 'fixtures/northwind', meridian: 'fixtures/meridian' } as const;

/**
 * Artifacts made by write tools before the dump, so find_artifact has something to find. Their ids are random
 * and their creation times the real clock's (src/render/artifacts.ts): each maps to a stable placeholder.
 */
async function seedArtifacts(service: Service, owner: Principal, vaults: string[]): Promise<Map<string, string>> {
  const volatile = new Map<string, string>();
  for (const vault of vaults) {
    for (const dataset of ['conflicts', 'findings']) {
      const r = await service.invoke('export_report', { vault, dataset, format: 'csv' }, owner);
      if (!r.ok) throw new Error(`export_report ${vault} ${dataset}: ${r.message}`);
      const n = volatile.size / 2 + 1;
      volatile.set(String(r.data.artifactId), `<artifact-${n}>`);
      volatile.set(String(r.data.createdAt), `<artifact-${n}-createdAt>`);
      await new Promise((done) => setTimeout(done, 5)); // distinct creation times keep find_artifact's order stable
    }
  }
  return volatile;
}

async function dump(out: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vt-dump-'));
  const db = openDb(dataDir);
  try {
    const fixtures = Object.fromEntries(Object.entries(VAULTS).map(([k, dir]) => [k, readVaultDir(join(ROOT, dir))]));
    for (const f of Object.values(fixtures)) loadFixture(db, f, { origin: 'fixture', now: NOW });
    const owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key, NOW);
    const service = new Service(db, { dataDir, now: () => NOW });

    const volatile = await seedArtifacts(
      service,
      owner,
      Object.values(fixtures).map((f) => f.vault.id),
    );
    const calls = [...globalCalls(fixtures), ...Object.entries(fixtures).flatMap(([k, f]) => vaultCalls(k, f, NOW))];
    const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    const uncovered = readOnly.filter((name) => !calls.some((c) => c.tool === name));
    if (uncovered.length)
      throw new Error(
        `no arguments for read-only tool(s) ${uncovered.join(', ')}: add them to scripts/dump-read-tools.ts`,
      );

    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const dirUrl = pathToFileURL(dataDir).href;
    let failed = 0;
    for (const call of calls) {
      const result = await service.invoke(call.tool, call.args, owner);
      if (!result.ok) failed++;
      let text = JSON.stringify(sortKeys({ tool: call.tool, args: call.args, result }), null, 2)
        .replaceAll(dirUrl, '<dataDir>')
        .replaceAll(dataDir, '<dataDir>');
      for (const [value, name] of volatile) text = text.replaceAll(value, name);
      writeFileSync(join(out, `${call.id}.json`), `${text}\n`);
    }
    console.log(
      `${calls.length} calls of ${readOnly.length} read-only tools written to ${out} (${failed} answered an error)`,
    );
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prints how many calls both dumps hold and every difference; exits 1 on any. */
function compare(a: string, b: string): number {
  const names = (dir: string) => new Set(readdirSync(dir).filter((n) => n.endsWith('.json')));
  const inA = names(a);
  const inB = names(b);
  const differences: string[] = [];
  for (const n of inA) if (!inB.has(n)) differences.push(`${n}: only in ${a}`);
  for (const n of inB) if (!inA.has(n)) differences.push(`${n}: only in ${b}`);
  let compared = 0;
  for (const n of [...inA].filter((x) => inB.has(x)).sort()) {
    compared++;
    const left = JSON.parse(readFileSync(join(a, n), 'utf8'));
    const right = JSON.parse(readFileSync(join(b, n), 'utf8'));
    if (!isDeepStrictEqual(left, right)) differences.push(`${n}: ${firstDifference(left, right, '$')}`);
  }
  console.log(`${compared} calls compared, ${differences.length} difference(s)`);
  for (const d of differences) console.log(`  ${d}`);
  return differences.length ? 1 : 0;
}

const { values, positionals } = parseArgs({
  options: { out: { type: 'string' }, compare: { type: 'boolean' } },
  allowPositionals: true,
});
if (values.compare) {
  if (positionals.length !== 2) throw new Error('--compare takes two dump directories: --compare DIR_A DIR_B');
  process.exitCode = compare(positionals[0]!, positionals[1]!);
} else if (values.out) {
  await dump(resolve(values.out));
} else {
  console.error('usage: dump-read-tools --out DIR | --compare DIR_A DIR_B');
  process.exitCode = 2;
}
