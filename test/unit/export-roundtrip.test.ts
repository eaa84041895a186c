/**
 * Issue 41's round trip: a vault exported to the folder format and imported into a fresh store answers every
 * read-only tool of the catalog exactly as before (ids, counts, text, dates), on both demo vaults and on a vault
 * after local writes (add_task, update_task, resolve_conflict, schedule_meeting, send_email). In-process, real
 * SQLite files, the argument sets of `npm run dump:read-tools`, a pinned clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { authenticate, createKey } from '../../src/auth/keys.js';
import type { Principal } from '../../src/core/principal.js';
import { tools } from '../../src/catalog/index.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, type Db } from '../../src/store/db.js';
import { exportVault } from '../../src/vault-format/export.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import type { VaultFixture } from '../../src/vault-format/schema.js';
import { firstDifference, globalCalls, sortKeys, vaultCalls, type Call } from '../../scripts/read-tool-calls.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

const NOW = new Date('2026-06-01T00:00:00Z');

interface Side {
  dir: string;
  db: Db;
  service: Service;
  owner: Principal;
}

function openSide(dir: string): Side {
  const db = openDb(dir);
  const owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key, NOW);
  return { dir, db, owner, service: new Service(db, { dataDir: dir, now: () => NOW }) };
}

/** Every call's answer, keyed by call id, with the data dir's own path made neutral. */
async function answers(side: Side, calls: Call[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (const call of calls) {
    const result = await side.service.invoke(call.tool, call.args, side.owner);
    const text = JSON.stringify(sortKeys(result))
      .replaceAll(pathToFileURL(side.dir).href, '<dataDir>')
      .replaceAll(side.dir, '<dataDir>');
    out.set(call.id, JSON.parse(text));
  }
  return out;
}

function differences(before: Map<string, unknown>, after: Map<string, unknown>): string[] {
  return [...before]
    .filter(([id, a]) => !isDeepStrictEqual(a, after.get(id)))
    .map(([id, a]) => `${id}: ${firstDifference(a, after.get(id), '$')}`);
}

describe('export then import answers every read tool the same', () => {
  const tmp = tempDir('vt-roundtrip-');
  let source: Side;
  let copy: Side;
  let fixtures: Record<string, VaultFixture>;
  let calls: Call[];

  /** Exports `vaultId` from the source store and imports the folder into the copy store. */
  function roundTrip(vaultId: string, folder: string): void {
    exportVault(source.db, vaultId, join(tmp.dir, folder), { now: NOW });
    loadFixture(copy.db, readVaultDir(join(tmp.dir, folder)), { origin: 'import', now: NOW, force: true });
  }

  beforeAll(() => {
    source = openSide(join(tmp.dir, 'source'));
    copy = openSide(join(tmp.dir, 'copy'));
    fixtures = { northwind: readVaultDir(FIXTURE_DIRS.northwind), meridian: readVaultDir(FIXTURE_DIRS.meridian) };
    for (const f of Object.values(fixtures)) loadFixture(source.db, f, { origin: 'fixture', now: NOW });
    calls = [...globalCalls(fixtures), ...Object.entries(fixtures).flatMap(([k, f]) => vaultCalls(k, f, NOW))];
  });
  afterAll(() => {
    source.db.close();
    copy.db.close();
    tmp.cleanup();
  });

  it('covers every read-only tool of the catalog', () => {
    const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    expect(readOnly.length).toBeGreaterThanOrEqual(24);
    expect(readOnly.filter((name) => !calls.some((c) => c.tool === name))).toEqual([]);
  });

  it('on both demo vaults', async () => {
    for (const f of Object.values(fixtures)) roundTrip(f.vault.id, `plain-${f.vault.id}`);
    const [before, after] = [await answers(source, calls), await answers(copy, calls)];
    expect(differences(before, after)).toEqual([]);
    // The answers are real ones, not a pair of empty lists or errors.
    expect([...before.values()].filter((r) => !(r as { ok: boolean }).ok)).toEqual([]);
    expect((before.get('northwind.list_tasks.0') as { data: { tasks: unknown[] } }).data.tasks.length).toBeGreaterThan(
      10,
    );
  });

  it('on a vault that went through local writes', async () => {
    const vault = fixtures.northwind!.vault.id;
    const write = async (tool: string, args: Record<string, unknown>) => {
      const r = await source.service.invoke(tool, { vault, ...args }, source.owner);
      if (!r.ok) throw new Error(`${tool}: ${r.message}`);
      return r.data as Record<string, unknown>;
    };
    const person = fixtures.northwind!.people[0]!;
    const added = await write('add_task', {
      title: 'Export round trip check',
      description: 'Written locally',
      priority: 'high',
      labels: ['offline'],
      checklist: [{ text: 'export' }],
    });
    await write('update_task', { taskId: added.identifier, status: 'doing', assigneeName: person.name });
    const conflict = fixtures.northwind!.conflicts.find((c) => c.status === 'open')!;
    await write('resolve_conflict', {
      conflictId: conflict.id,
      status: 'resolved',
      note: 'Confirmed with the client on site',
    });
    await write('schedule_meeting', {
      title: 'Round trip review',
      startIso: '2026-06-03T10:00:00Z',
      attendees: [person.email],
      durationMinutes: 45,
    });
    await write('send_email', {
      to: person.email,
      subject: 'Offline week summary',
      body: 'What changed while offline.',
    });
    await write('send_email', { to: person.email, subject: 'Draft only', body: 'Not sent.', asDraft: true });

    roundTrip(vault, 'after-writes');
    const [before, after] = [await answers(source, calls), await answers(copy, calls)];
    expect(differences(before, after)).toEqual([]);
    // The writes are in what was compared: the task, the resolution, the event and the mail.
    const text = JSON.stringify([...after.values()]);
    for (const made of [
      'Export round trip check',
      'Confirmed with the client on site',
      'Round trip review',
      'Offline week summary',
    ])
      expect(text).toContain(made);
  });
});
