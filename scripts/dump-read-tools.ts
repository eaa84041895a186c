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
import { loadFixture } from '../src/vault-format/load.js';
import { readVaultDir } from '../src/vault-format/read.js';
import type { VaultFixture } from '../src/vault-format/schema.js';
import { Service } from '../src/service/invoke.js';
import { openDb } from '../src/store/db.js';
import { DAY_MS } from '../src/time.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const ROOT = resolve(import.meta.dirname, '..');
const VAULTS = { northwind: 'fixtures/northwind', meridian: 'fixtures/meridian' } as const;

type Args = Record<string, unknown>;
interface Call {
  /** file name stem: `<vault>.<tool>.<n>` or `all.<tool>.<n>` */
  id: string;
  tool: string;
  args: Args;
}

const daysAgo = (n: number) => new Date(NOW.getTime() - n * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The fixed argument sets of one vault; the fixture decides ids and words, the pinned clock decides dates. */
function vaultCalls(key: string, f: VaultFixture): Call[] {
  const vault = f.vault.id;
  const linked = f.entities.find((e) => f.edges.some((x) => x.from === e.id))!;
  const meetings = f.meetings.filter((m) => m.extractionStatus === 'extracted');
  const meeting = meetings[0]!;
  const file = f.files.find((x) => x.visibility === 'public')!;
  const person = f.people[0]!;
  const other = f.people[2] ?? person;
  const [k0, k1, k2] = f.vault.keywords as [string, string, string];
  const speaker = meeting.transcript[0]!.speaker;
  const subjectWord = f.mailbox[0]!.subject.split(/\W+/).find((w) => w.length > 5)!;
  const sets: Record<string, Args[]> = {
    stats: [{}],
    get_brief: [{}, { kind: 'weekly-plan' }, { kind: 'weekly-digest' }],
    search_knowledge: [
      { query: linked.name.split(' ')[0]!, limit: 5 },
      { query: k0 },
      { query: `${k1} ${k2}`, limit: 20 },
      { query: linked.name, type: linked.type },
      { query: 'zzzz-no-such-word' },
    ],
    search_transcripts: [
      { query: `what was said about ${k0}`, limit: 3 },
      { query: k1, limit: 10 },
      { query: k2, meetingId: meeting.id },
      { query: k0, speaker },
      { query: k0, after: daysAgo(200), before: daysAgo(150) },
      { query: 'zzzz-no-such-word' },
    ],
    get_entity: [{ entityId: linked.id, includeEvidence: true }, { entityId: f.entities.at(-1)!.id }],
    expand_graph: [{ entityId: linked.id, depth: 1 }, { entityId: linked.id, depth: 2 }],
    list_findings: [
      {},
      { sort: 'recent', limit: 20, compact: false },
      { sort: 'mentions', limit: 5, compact: true },
      { type: linked.type },
      { meetingId: meeting.id },
    ],
    list_conflicts: [{}, { status: 'all' }, { status: 'resolved' }],
    changes_since: [{ since: daysAgo(14) }, { since: daysAgo(190) }, { since: daysAgo(400) }],
    list_meetings: [{}],
    get_meeting: meetings.slice(0, 3).map((m) => ({ meetingId: m.id })),
    get_transcript: [{ meetingId: meeting.id }, { meetingId: meeting.id, offset: 2, limit: 5 }],
    list_calendar: [{}],
    list_tasks: [{}, { status: 'open' }, { status: 'done' }, { milestoneId: f.milestones[0]!.id }],
    list_milestones: [{}],
    list_plan_steps: [{}],
    list_files: [{}],
    get_file: [{ fileId: file.id }],
    find_artifact: [{ limit: 5 }, { query: 'conflicts' }, { query: k0 }, { kind: 'csv', limit: 1 }],
    find_person: [{ query: person.name.split(' ')[0] }, { query: other.email }, { query: 'Nobody Atall' }],
    list_sent_emails: [{}, { limit: 5 }, { to: person.email }],
    find_email_thread: [
      { query: 'has:attachment newer_than:120d', limit: 10 },
      { query: k0 },
      { query: `from:${person.email}` },
      { query: `subject:${subjectWord} older_than:30d` },
      { query: `"${subjectWord}" -${k0}`, limit: 3 },
    ],
    search_agent_memory: [
      { query: k0, limit: 5 },
      { query: `${k1} ${k2}` },
      { query: k0, person_email: other.email },
    ],
  };
  return expand(key, sets, { vault });
}

function globalCalls(fixtures: Record<string, VaultFixture>): Call[] {
  const [nw, mh] = Object.values(fixtures) as [VaultFixture, VaultFixture];
  return expand('all', {
    list_vaults: [{}],
    suggest_vault_scope: [
      { conversation: `Let's review what ${nw.people[0]!.name} said about ${nw.vault.keywords[0]}.` },
      { conversation: `Where are we on ${mh.vault.keywords[1]} and ${mh.vault.keywords[5]}?` },
      { conversation: 'What is the weather tomorrow?' },
    ],
  }, {});
}

function expand(prefix: string, sets: Record<string, Args[]>, base: Args): Call[] {
  return Object.entries(sets).flatMap(([tool, list]) => list.map((args, n) => ({ id: `${prefix}.${tool}.${n}`, tool, args: { ...base, ...args } })));
}

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

/** Objects with their keys sorted (key order is not part of an answer); arrays keep their order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Args)[k])]));
  }
  return value;
}

async function dump(out: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vt-dump-'));
  const db = openDb(dataDir);
  try {
    const fixtures = Object.fromEntries(Object.entries(VAULTS).map(([k, dir]) => [k, readVaultDir(join(ROOT, dir))]));
    for (const f of Object.values(fixtures)) loadFixture(db, f, { origin: 'fixture', now: NOW });
    const owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key, NOW);
    const service = new Service(db, { dataDir, now: () => NOW });

    const volatile = await seedArtifacts(service, owner, Object.values(fixtures).map((f) => f.vault.id));
    const calls = [...globalCalls(fixtures), ...Object.entries(fixtures).flatMap(([k, f]) => vaultCalls(k, f))];
    const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    const uncovered = readOnly.filter((name) => !calls.some((c) => c.tool === name));
    if (uncovered.length) throw new Error(`no arguments for read-only tool(s) ${uncovered.join(', ')}: add them to scripts/dump-read-tools.ts`);

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
    console.log(`${calls.length} calls of ${readOnly.length} read-only tools written to ${out} (${failed} answered an error)`);
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

/** The path of the first place two JSON values differ, with both values there (shortened). */
function firstDifference(x: unknown, y: unknown, path: string): string {
  if (x && y && typeof x === 'object' && typeof y === 'object' && Array.isArray(x) === Array.isArray(y)) {
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
    for (const k of keys) {
      const [vx, vy] = [(x as Args)[k], (y as Args)[k]];
      if (!isDeepStrictEqual(vx, vy)) return firstDifference(vx, vy, Array.isArray(x) ? `${path}[${k}]` : `${path}.${k}`);
    }
  }
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 120));
  return `${path}: ${show(x)} → ${show(y)}`;
}

const { values, positionals } = parseArgs({ options: { out: { type: 'string' }, compare: { type: 'boolean' } }, allowPositionals: true });
if (values.compare) {
  if (positionals.length !== 2) throw new Error('--compare takes two dump directories: --compare DIR_A DIR_B');
  process.exitCode = compare(positionals[0]!, positionals[1]!);
} else if (values.out) {
  await dump(resolve(values.out));
} else {
  console.error('usage: dump-read-tools --out DIR | --compare DIR_A DIR_B');
  process.exitCode = 2;
}
