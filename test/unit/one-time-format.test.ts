/**
 * One format for every stored moment (issue 53): UTC to the whole second, as fixtures and the hosted service write
 * them, so text order is time order. The service's clock here has milliseconds (12:00:05.700), and local writes
 * land in the same second as records that came in whole seconds (loaded the way a sync stores them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.js';
import type { Db } from '../../src/store/db.js';
import { wholeSecondTimes } from '../../src/store/migrations.js';
import { harness, type Harness } from '../harness.js';

const WHOLE_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const NOW = new Date(Date.UTC(2026, 10, 29, 12, 0, 5, 700));

let h: Harness;
beforeAll(() => {
  h = harness({ vaults: ['northwind'], now: NOW });
});
afterAll(() => h.close());

/** Every stored moment: the TEXT columns named `at` or `…_at` that hold a date-time, read straight from SQLite. */
function storedMoments(db: Db): { where: string; value: string }[] {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
    .pluck()
    .all() as string[];
  const out: { where: string; value: string }[] = [];
  for (const table of tables) {
    const columns = db.prepare('SELECT name, type FROM pragma_table_info(?)').all(table) as {
      name: string;
      type: string;
    }[];
    for (const c of columns.filter((c) => /^(.+_)?at$/.test(c.name) && c.type === 'TEXT')) {
      const values = db
        .prepare(`SELECT "${c.name}" FROM "${table}" WHERE "${c.name}" LIKE '____-__-__T%'`)
        .pluck()
        .all() as string[];
      out.push(...values.map((value) => ({ where: `${table}.${c.name}`, value })));
    }
  }
  return out;
}

describe('one timestamp format', () => {
  it('local writes store whole seconds from the call clock, in every table (tasks, outbox, artifacts, keys, events)', async () => {
    const vault = h.vaults[0]!;
    const task = await h.ok('add_task', { vault, title: 'Same second as the load' });
    expect(task.createdAt).toBe('2026-11-29T12:00:05Z');
    await h.ok('update_task', { vault, taskId: task.id, status: 'doing' });
    const exported = await h.ok('export_report', { vault, dataset: 'findings', format: 'csv' });
    expect(exported.createdAt).toBe('2026-11-29T12:00:05Z');
    createKey(h.db, { name: 'clocked', role: 'member', vaults: '*' }, NOW);

    const moments = storedMoments(h.db);
    const places = new Set(moments.map((m) => m.where));
    for (const place of [
      'tasks.created_at',
      'outbox.created_at',
      'artifacts.created_at',
      'api_keys.created_at',
      'entities.first_seen_at',
    ])
      expect(places).toContain(place);
    expect(moments.length).toBeGreaterThan(0);
    expect(moments.filter((m) => !WHOLE_SECOND.test(m.value))).toEqual([]);
    // The outbox entry's time is the call's clock, not the machine's.
    expect(h.outbox(vault).map((e) => e.createdAt)).toContain('2026-11-29T12:00:05Z');
  });

  it('a meeting scheduled in the same second as an upstream event sorts with it, not before it', async () => {
    const vault = h.vaults[0]!;
    const events = (await h.ok('list_calendar', { vault })).events as {
      id: string;
      start: string;
      attendees: string[];
    }[];
    const upstream = events.find((e) => Date.parse(e.start) > NOW.getTime() && e.attendees.length > 0);
    expect(upstream, 'a future event with attendees in the fixture').toBeDefined();
    const half = new Date(Date.parse(upstream!.start) + 500).toISOString(); // 500 ms into the upstream event's second
    const local = await h.ok('schedule_meeting', {
      vault,
      title: 'Half a second later',
      startIso: half,
      attendees: upstream!.attendees.slice(0, 1),
    });

    const listed = (await h.ok('list_calendar', { vault })).events as { id: string; start: string }[];
    expect(listed.length).toBeGreaterThan(1);
    const at = (id: string) => listed.findIndex((e) => e.id === id);
    // Time order read from the strings themselves (Date.parse), against the order the store listed them in.
    const times = listed.map((e) => Date.parse(e.start));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(local.start).toMatch(WHOLE_SECOND);
    expect(at(local.id)).toBeGreaterThanOrEqual(0);
    expect(at(upstream!.id)).toBeGreaterThanOrEqual(0);
  });

  it('changes_since at a moment inside a second does not report what was first seen at the start of that second', async () => {
    const vault = h.vaults[0]!;
    const all = (await h.ok('changes_since', { vault, since: '2000-01-01T00:00:00Z', limit: 200 })).newEntities as {
      id: string;
      firstSeenAt: string;
    }[];
    expect(all.length).toBeGreaterThan(0);
    const seen = all.at(-1)!;
    const since = new Date(Date.parse(seen.firstSeenAt) + 500).toISOString(); // after the entity was first seen
    const later = (await h.ok('changes_since', { vault, since, limit: 200 })).newEntities as { id: string }[];
    expect(later.map((e) => e.id)).not.toContain(seen.id);
  });

  it('a store written with milliseconds and offsets is migrated to whole seconds', () => {
    const db = h.db;
    const key = createKey(db, { name: 'old format', role: 'member', vaults: '*' }).info.id;
    db.prepare('UPDATE api_keys SET created_at = ?, expires_at = ? WHERE id = ?').run(
      '2026-11-29T02:19:29.065Z',
      '2026-12-01T10:00:00.5+02:00',
      key,
    );
    wholeSecondTimes(db);
    expect(db.prepare('SELECT created_at, expires_at FROM api_keys WHERE id = ?').get(key)).toEqual({
      created_at: '2026-11-29T02:19:29Z',
      expires_at: '2026-12-01T08:00:00Z',
    });
  });
});
