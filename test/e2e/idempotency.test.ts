/**
 * Idempotency-Key over real HTTP: a key belongs to the caller who sent it and is bound to the call it was first
 * sent with. Two callers racing with the same key each get their own write; the same key with other arguments
 * is refused; the same caller repeating the same call gets the first answer back.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';
import { callTool, demoServer } from '../http-helpers.js';

const NW = 'northwind-logistics';
const MH = 'meridian-health';
const running = demoServer();

/** A manager key granted one vault only. */
function managerKeyFor(vault: string): string {
  return JSON.parse(
    cli([
      'keys',
      'create',
      '--manager',
      '--vault',
      vault,
      '--json',
      '--name',
      `manager of ${vault}`,
      '--data-dir',
      running.store.dir,
    ]),
  ).key;
}

const workbook = (vault: string, title: string) => ({
  vault,
  title,
  sheets: [
    {
      name: 'KPIs',
      columns: [
        { header: 'KPI', key: 'kpi' },
        { header: 'Value', key: 'value' },
      ],
      rows: [{ kpi: 'Accuracy', value: 0.961 }],
    },
  ],
});

const artifactTitles = async (vault: string, key: string): Promise<string[]> => {
  const r = await callTool(running.server.url, 'find_artifact', { vault, limit: 25 }, key);
  expect(r.status, r.body).toBe(200);
  return r.json().data.artifacts.map((a: { title: string }) => a.title);
};

describe('Idempotency-Key', () => {
  it('two callers racing with the same key each get their own write, never the other vault’s', async () => {
    const [northKey, meridianKey] = [managerKeyFor(NW), managerKeyFor(MH)];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const headers = { 'idempotency-key': `race-${attempt}` };
      const [north, meridian] = await Promise.all([
        callTool(running.server.url, 'export_workbook', workbook(NW, `North race ${attempt}`), northKey, headers),
        callTool(running.server.url, 'export_workbook', workbook(MH, `Meridian race ${attempt}`), meridianKey, headers),
      ]);
      expect(north.status, north.body).toBe(200);
      expect(meridian.status, meridian.body).toBe(200);
      expect(north.json().data.title).toBe(`North race ${attempt}`);
      expect(meridian.json().data.title).toBe(`Meridian race ${attempt}`);
      expect(north.headers['idempotent-replayed']).toBeUndefined();
      expect(meridian.headers['idempotent-replayed']).toBeUndefined();
    }
    // Each write was done, in its own vault.
    expect((await artifactTitles(NW, northKey)).filter((t) => t.startsWith('North race'))).toHaveLength(5);
    expect((await artifactTitles(MH, meridianKey)).filter((t) => t.startsWith('Meridian race'))).toHaveLength(5);
  });

  it('the same key with other arguments is a 409 idempotency_key_reused, and nothing is written', async () => {
    const key = running.store.ownerKey;
    const headers = { 'idempotency-key': 'reuse-with-other-args' };
    const first = await callTool(
      running.server.url,
      'add_task',
      { vault: NW, title: 'Reuse check, first' },
      key,
      headers,
    );
    expect(first.status, first.body).toBe(200);
    for (const [tool, args] of [
      ['add_task', { vault: NW, title: 'Reuse check, second' }],
      ['add_task', { vault: MH, title: 'Reuse check, first' }],
      ['update_task', { vault: NW, identifier: first.json().data.identifier, status: 'doing' }],
    ] as const) {
      const reused = await callTool(running.server.url, tool, args, key, headers);
      expect(reused.status, `${tool} ${JSON.stringify(args)}: ${reused.body}`).toBe(409);
      expect(reused.json().error.code).toBe('idempotency_key_reused');
      expect(reused.json().error.message).toContain('"reuse-with-other-args"');
    }
    const titles = async (vault: string) =>
      (await callTool(running.server.url, 'list_tasks', { vault }, key))
        .json()
        .data.tasks.map((t: { title: string }) => t.title)
        .filter((t: string) => t.startsWith('Reuse check'));
    expect(await titles(NW)).toEqual(['Reuse check, first']);
    expect(await titles(MH)).toEqual([]);
  });

  it('another caller may use the same key for its own call', async () => {
    const headers = { 'idempotency-key': 'shared-by-two-callers' };
    const owner = await callTool(
      running.server.url,
      'add_task',
      { vault: NW, title: 'Owner’s keyed task' },
      running.store.ownerKey,
      headers,
    );
    const manager = managerKeyFor(NW);
    const other = await callTool(
      running.server.url,
      'add_task',
      { vault: NW, title: 'Manager’s keyed task' },
      manager,
      headers,
    );
    expect(owner.status, owner.body).toBe(200);
    expect(other.status, other.body).toBe(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.json().data.title).toBe('Manager’s keyed task');
    expect(other.json().data.identifier).not.toBe(owner.json().data.identifier);
  });

  it('the same caller repeating the same call gets the first answer, at once or concurrently', async () => {
    const key = managerKeyFor(MH);
    const headers = { 'idempotency-key': 'same-call-twice' };
    const args = workbook(MH, 'Replayed workbook');
    const [a, b] = await Promise.all([
      callTool(running.server.url, 'export_workbook', args, key, headers),
      callTool(running.server.url, 'export_workbook', args, key, headers),
    ]);
    const later = await callTool(running.server.url, 'export_workbook', args, key, headers);
    for (const r of [a, b, later]) expect(r.status, r.body).toBe(200);
    expect(b.json().data).toEqual(a.json().data);
    expect(later.json().data).toEqual(a.json().data);
    expect([a, b, later].filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(2);
    expect((await artifactTitles(MH, key)).filter((t) => t === 'Replayed workbook')).toHaveLength(1);
  });
});
