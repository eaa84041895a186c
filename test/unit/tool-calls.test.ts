/**
 * Tool calls through the service, in-process, on a real store holding the fixture vaults: the argument forms
 * the hosted SDKs send, refusals that name what is wrong, and what the store keeps (issue 16).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import type { Principal } from '../../src/core/principal.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import type { VaultFixture } from '../../src/vault-format/schema.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, storePath, type Db, loadSqlite } from '../../src/store/db.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const NW = 'northwind-logistics';
const MH = 'meridian-health';

let db: Db;
let dir: string;
let cleanup: () => void;
let service: Service;
let owner: Principal;
const nw = readVaultDir(FIXTURE_DIRS.northwind);

beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  db = openDb(dir);
  loadFixture(db, nw, { origin: 'fixture' });
  loadFixture(db, readVaultDir(FIXTURE_DIRS.meridian), { origin: 'fixture' });
  owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key);
  service = new Service(db, { dataDir: dir });
});
afterAll(() => {
  db.close();
  cleanup();
});

type Data = Record<string, any>;
async function ok(tool: string, args: Record<string, unknown>): Promise<Data> {
  const r = await service.invoke(tool, args, owner);
  if (!r.ok) throw new Error(`${tool}: ${r.code}: ${r.message}`);
  return r.data;
}
async function refused(tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await service.invoke(tool, args, owner);
  if (r.ok) throw new Error(`${tool} accepted ${JSON.stringify(args)}`);
  expect(r.code).toBe('invalid_arguments');
  return r.message;
}

describe('the fields the SDKs send', () => {
  const helen = 'helen.marsh@meridianhealth.org.uk';

  it('search_agent_memory narrows by `person_email`, and still by `personEmail`', async () => {
    const all = await ok('search_agent_memory', { vault: MH, query: 'bed turnaround discharge porter agency' });
    expect(new Set(all.results.map((x: Data) => x.personEmail)).size).toBeGreaterThan(1);
    const snake = await ok('search_agent_memory', {
      vault: MH,
      query: 'bed turnaround discharge porter agency',
      person_email: helen,
    });
    expect(snake.results.length).toBeGreaterThan(0);
    expect(snake.results.every((x: Data) => x.personEmail === helen)).toBe(true);
    const camel = await ok('search_agent_memory', {
      vault: MH,
      query: 'bed turnaround discharge porter agency',
      personEmail: helen,
    });
    expect(camel).toEqual(snake);
    const both = await ok('search_agent_memory', {
      vault: MH,
      query: 'bed turnaround',
      person_email: helen,
      personEmail: helen.toUpperCase(),
    });
    expect(both.results.every((x: Data) => x.personEmail === helen)).toBe(true);
  });

  it('search_agent_memory refuses `person_email` and `personEmail` naming two people', async () => {
    const message = await refused('search_agent_memory', {
      vault: MH,
      query: 'bed',
      person_email: helen,
      personEmail: 'ana.ruiz@clearpath.io',
    });
    expect(message).toContain('`person_email`');
    expect(message).toContain('`personEmail`');
    expect(message).toContain('ana.ruiz@clearpath.io');
  });

  it('export_workbook takes `sources` as one string (and still as an array), onto the provenance sheet', async () => {
    const ExcelJS = (await import('exceljs')).default;
    const sheets = [{ name: 'KPIs', columns: [{ header: 'KPI', key: 'kpi' }], rows: [{ kpi: 'Dock-to-stock' }] }];
    const provenance = async (sources: unknown) => {
      const r = await ok('export_workbook', { vault: NW, title: 'Sources', sheets, sources });
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.readFile(fileURLToPath(r.url));
      const prov = wb.getWorksheet('Provenance')!;
      return Array.from({ length: prov.rowCount }, (_, i) => [
        prov.getCell(i + 1, 1).value,
        prov.getCell(i + 1, 2).value,
      ]);
    };
    expect(await provenance('stats tool')).toContainEqual(['Source', 'stats tool']);
    expect(await provenance(['stats tool', 'list_findings'])).toEqual(
      expect.arrayContaining([
        ['Source 1', 'stats tool'],
        ['Source 2', 'list_findings'],
      ]),
    );
    // The outbox keeps the one-string form: what a push sends upstream, where the SDKs' type is a string.
    const pushed = db
      .prepare("SELECT args_json FROM outbox WHERE tool = 'export_workbook' ORDER BY seq")
      .pluck()
      .all() as string[];
    expect(pushed.map((a) => JSON.parse(a).sources)).toEqual(['stats tool', 'stats tool\nlist_findings']);
  });
});

describe('update_task with both `identifier` and `taskId`', () => {
  it('refuses two fields naming different tasks, naming both, and changes nothing', async () => {
    const { tasks } = await ok('list_tasks', { vault: NW });
    const [a, b] = tasks as Data[];
    const message = await refused('update_task', {
      vault: NW,
      identifier: a!.identifier,
      taskId: b!.id,
      title: 'Renamed',
    });
    expect(message).toContain('`identifier`');
    expect(message).toContain('`taskId`');
    expect(message).toContain(a!.identifier);
    expect(message).toContain(b!.identifier);
    const after = (await ok('list_tasks', { vault: NW })).tasks as Data[];
    expect(after.find((t) => t.id === a!.id)!.title).toBe(a!.title);
    expect(after.find((t) => t.id === b!.id)!.title).toBe(b!.title);
  });

  it('accepts both when they name the same task', async () => {
    const { tasks } = await ok('list_tasks', { vault: NW });
    const t = tasks[0] as Data;
    expect(
      await ok('update_task', { vault: NW, identifier: t.number, taskId: t.id, labels: ['checked'] }),
    ).toMatchObject({ id: t.id, labels: ['checked'] });
  });
});

describe('lastMentionedAt of an entity never mentioned', () => {
  const unmentioned = () =>
    db.prepare('SELECT id FROM entities WHERE vault_id = ? AND mention_count = 0').pluck().all(NW) as string[];

  it('is null, and `sort: recent` lists such entities after every mentioned one', async () => {
    expect(unmentioned().length).toBeGreaterThan(0);
    const { findings } = await ok('list_findings', { vault: NW, sort: 'recent', limit: 200 });
    const firstNull = findings.findIndex((f: Data) => f.lastMentionedAt === null);
    expect(
      findings
        .slice(firstNull)
        .map((f: Data) => f.id)
        .sort(),
    ).toEqual(unmentioned().sort());
    expect(findings.slice(firstNull).every((f: Data) => f.mentionCount === 0)).toBe(true);
    const dates = findings.slice(0, firstNull).map((f: Data) => f.lastMentionedAt);
    expect(dates).toEqual([...dates].sort().reverse());
    // Paging through the nulls with the cursor gives the same order.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page: Data = await ok('list_findings', {
        vault: NW,
        sort: 'recent',
        limit: 7,
        compact: true,
        ...(cursor ? { cursor } : {}),
      });
      paged.push(...page.findings.map((f: Data) => f.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(findings.map((f: Data) => f.id));
  });

  it('get_entity shows no recency for it', async () => {
    const e = await ok('get_entity', { vault: NW, entityId: unmentioned()[0]! });
    expect(e.lastMentionedAt).toBeNull();
    expect(e.recency).toMatchObject({ lastMentionedAt: null, daysSinceLastMention: null });
    expect(e.recency.firstSeenAt).toMatch(/^\d{4}-/);
  });

  it('a store loaded before the fix is mended by its migration', () => {
    const t = tempDir();
    try {
      const old = openDb(t.dir);
      loadFixture(old, nw, { origin: 'fixture' });
      old.close();
      // What the loader used to write: the first-seen time as the last mention, at schema version 5.
      const raw = new Database(storePath(t.dir));
      raw.prepare('UPDATE entities SET last_mentioned_at = first_seen_at WHERE mention_count = 0').run();
      raw.pragma('user_version = 5');
      raw.close();
      const mended = openDb(t.dir);
      const rows = mended
        .prepare('SELECT mention_count, last_mentioned_at FROM entities WHERE vault_id = ?')
        .all(NW) as { mention_count: number; last_mentioned_at: string | null }[];
      mended.close();
      expect(rows.filter((r) => r.last_mentioned_at === null).length).toBe(unmentioned().length);
      expect(rows.every((r) => (r.mention_count === 0) === (r.last_mentioned_at === null))).toBe(true);
    } finally {
      t.cleanup();
    }
  });
});

describe('schedule_meeting attendees', () => {
  it('keeps each attendee once, spelled as the people registry spells them', async () => {
    const [ana, tom] = nw.people;
    const startIso = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const shout = ana!.email.toUpperCase();
    const r = await ok('schedule_meeting', {
      vault: NW,
      title: 'Dedupe',
      startIso,
      attendees: [shout, ana!.email, tom!.email, tom!.email],
    });
    expect(r.attendees).toEqual([ana!.email, tom!.email]);
    const { events } = await ok('list_calendar', { vault: NW });
    expect(events.find((e: Data) => e.id === r.id).attendees).toEqual([ana!.email, tom!.email]);
  });
});

describe('union-typed fields name what they expect', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['expand_graph', { entityId: 'x', depth: 3 }, '`depth`', 'expected 1 or 2 (got 3)'],
    [
      'search_transcripts',
      { query: 'dock', after: 3 },
      '`after`',
      'expected an ISO 8601 datetime (e.g. 2026-11-01T09:00:00Z) or an ISO 8601 date (YYYY-MM-DD) (got 3)',
    ],
    [
      'search_transcripts',
      { query: 'dock', before: 'last week' },
      '`before`',
      'expected an ISO 8601 datetime (e.g. 2026-11-01T09:00:00Z) or an ISO 8601 date (YYYY-MM-DD) (got "last week")',
    ],
    [
      'update_task',
      { identifier: true, title: 'x' },
      '`identifier`',
      'expected a non-empty string or a positive integer (got true)',
    ],
    [
      'send_email',
      { to: 3, subject: 's', body: 'b' },
      '`to`',
      'expected an e-mail address or an array of e-mail addresses (got 3)',
    ],
    [
      'send_email',
      { subject: 's', body: 'b' },
      '`to`',
      'required, an e-mail address or an array of e-mail addresses expected',
    ],
    [
      'export_workbook',
      { title: 't', sheets: [{ name: 'S', columns: [{ header: 'A', key: 'a' }], rows: [] }], sources: 3 },
      '`sources`',
      'expected a non-empty string or an array of non-empty strings (got 3)',
    ],
  ];
  for (const [tool, args, field, expected] of cases) {
    it(`${tool} ${field}`, async () => {
      const message = await refused(tool, { vault: NW, ...args });
      expect(message).toContain(`${field}: ${expected}`);
      expect(message).not.toMatch(/Invalid input/);
    });
  }
});

describe('a wrong value quoted in an error', () => {
  it('is cut when long, so a huge argument does not come back whole', async () => {
    const query = 'dock door '.repeat(100_000);
    const message = await refused('search_transcripts', { vault: NW, query });
    expect(message).toContain('`query`: expected string to have <=500 characters (got "dock door dock door');
    expect(message).toContain('…" of 1,000,000 characters)');
    expect(message.length).toBeLessThan(300);
  });
  it('is cut in a not-found answer and in an unknown vault, escaped', async () => {
    const entity = await service.invoke('get_entity', { vault: NW, entityId: `e"\n${'x'.repeat(99_997)}` }, owner);
    expect(entity.ok).toBe(false);
    if (entity.ok) return;
    expect(entity.code).toBe('not_found');
    expect(entity.message).toBe(
      `No entity "e\\"\\n${'x'.repeat(57)}…" of 100,000 characters in vault "Northwind Logistics".`,
    );
    const vault = await service.invoke('stats', { vault: 'v'.repeat(50_000) }, owner);
    expect(vault.ok || vault.message.length).toBeLessThan(200);
  });
  it('is quoted whole when short', async () => {
    const message = await refused('search_transcripts', {
      vault: NW,
      query: 'dock',
      before: 'the week before the kickoff meeting, more or less',
    });
    expect(message).toContain('(got "the week before the kickoff meeting, more or less")');
  });
});

describe('the speaker filter of search_transcripts', () => {
  it('ignores accents and case, like every other name match', async () => {
    // Northwind's transcripts with one speaker renamed to a name with accents, as a vault of its own.
    const accented = structuredClone(nw) as VaultFixture;
    accented.vault = { ...accented.vault, id: 'accents', name: 'Accents' };
    for (const m of accented.meetings)
      for (const t of m.transcript) if (t.speaker === 'Tom Becker') t.speaker = 'José Ibáñez';
    loadFixture(db, accented, { origin: 'import' });
    const spoken = (speaker: string) =>
      ok('search_transcripts', { vault: 'accents', query: 'inventory accuracy dock', speaker, limit: 10 });
    const exact = await spoken('José Ibáñez');
    expect(exact.results.length).toBeGreaterThan(0);
    expect(exact.results.every((r: Data) => r.speakers.includes('José Ibáñez'))).toBe(true);
    for (const spelling of ['Jose Ibanez', 'jose ibanez', 'IBANEZ', 'Ibáñez'])
      expect(await spoken(spelling), spelling).toEqual(exact);
    expect((await spoken('Ibanes')).results).toEqual([]);
  });
});
