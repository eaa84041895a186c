/**
 * Sync between two real processes on loopback: a "hosted" `vault-tools serve --http` on the fixture vaults,
 * and an empty local data dir that `vault-tools sync` fills. After a pull every read tool answers the same
 * on both; changes upstream come over in an incremental pull that fetches only them; local actions land
 * upstream once, even when a push is repeated; faults and a kill -9 mid-pull end in the same store as a
 * clean sync.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsByName } from '../../src/catalog/index.js';
import { openDb } from '../../src/store/db.js';
import { BIN, cli, cliFails, FIXTURE_DIRS, tempDir } from '../helpers.js';
import { callTool, startServer, type RunningServer } from '../http-helpers.js';
import { answersOf, comparisonArgs, dumpStore, faultProxy, NOT_PULLABLE, syncInBackground } from '../sync-helpers.js';

const READ_TOOLS = [...toolsByName.values()]
  .filter((t) => t.annotations.readOnlyHint && !NOT_PULLABLE.has(t.name))
  .map((t) => t.name);
const ENV = {
  VAULT_TOOLS_KEY: '',
  VAULT_TOOLS_HOME: '',
  VAULT_TOOLS_REMOTE_URL: '',
  VAULT_TOOLS_REMOTE_KEY: '',
  VAULT_TOOLS_INDEX: 'off',
};

interface Report {
  errors: { vault: string; error: string }[];
  push?: { pushed: number; failed: { tool: string; error: string }[]; pending: number };
  pulled: { vaultId: string; mode: string; entitiesFetched: number; meetingsFetched: number; listsChanged: string[] }[];
  requests: { requests: number; retries: number };
}

function sync(dataDir: string, remote: string, key: string, ...extra: string[]): Report {
  return JSON.parse(
    cli(['sync', '--remote', remote, '--remote-key', key, '--data-dir', dataDir, '--json', ...extra], {
      env: { ...process.env, ...ENV },
    }),
  );
}

const readKey = (dir: string) => readFileSync(join(dir, 'owner.key'), 'utf8').trim();

describe('sync against a second vault-tools on loopback', () => {
  const hostedDir = tempDir('vt-hosted-');
  let hosted: RunningServer;
  let hostedKey: string;

  beforeAll(async () => {
    cli(['demo', '--data-dir', hostedDir.dir, '--no-serve']);
    hostedKey = readKey(hostedDir.dir);
    hosted = await startServer(hostedDir.dir, ['--rate-limit', '0']);
  });
  afterAll(async () => {
    await hosted?.stop();
    hostedDir.cleanup();
  });

  /** A local data dir synced from `remote`, with its own listener for comparing answers. */
  async function compareWithHosted(localDir: string): Promise<void> {
    cli(['call', 'list_vaults', '--data-dir', localDir], { env: { ...process.env, ...ENV } }); // creates the local owner key
    const local = await startServer(localDir, ['--rate-limit', '0']);
    try {
      const args = comparisonArgs(READ_TOOLS);
      const [upstream, here] = await Promise.all([
        answersOf(hosted, hostedKey, args),
        answersOf(local, readKey(localDir), args),
      ]);
      expect(here.size).toBe(READ_TOOLS.length * 2);
      for (const [call, answer] of upstream) {
        expect(answer.startsWith('200 '), `${call} upstream`).toBe(true);
        expect(here.get(call), call).toBe(answer);
      }
    } finally {
      await local.stop();
    }
  }

  it('a full pull into an empty data dir makes every read tool answer as upstream does; a second sync fetches nothing', async () => {
    const local = tempDir('vt-local-');
    try {
      const first = sync(local.dir, hosted.url, hostedKey);
      expect(first.pulled.map((p) => [p.vaultId, p.mode]).sort()).toEqual([
        ['meridian-health', 'full'],
        ['northwind-logistics', 'full'],
      ]);
      expect(first.pulled.find((p) => p.vaultId === 'northwind-logistics')!.entitiesFetched).toBe(72);
      await compareWithHosted(local.dir);

      const again = sync(local.dir, hosted.url, hostedKey);
      expect(
        again.pulled.every(
          (p) =>
            p.mode === 'incremental' &&
            p.entitiesFetched === 0 &&
            p.meetingsFetched === 0 &&
            p.listsChanged.length === 0,
        ),
      ).toBe(true);
      // list_vaults, then per vault: list_meetings, changes_since, stats and the small lists (15: 3 brief kinds, 4 artifact kinds)
      expect(again.requests.requests).toBe(1 + 2 * 18);
      const status = JSON.parse(cli(['sync', '--status', '--json', '--data-dir', local.dir]));
      expect(
        status.map((s: { vault: string; pending: number; lastPull: string | null }) => [
          s.vault,
          s.pending,
          !!s.lastPull,
        ]),
      ).toEqual([
        ['meridian-health', 0, true],
        ['northwind-logistics', 0, true],
      ]);
    } finally {
      local.cleanup();
    }
  });

  /** A hosted service of a test's own (for tests that change it), and a local data dir synced from it. */
  async function ownHosted() {
    const hostedCopy = tempDir('vt-hosted-own-');
    const local = tempDir('vt-local-');
    cli(['demo', '--data-dir', hostedCopy.dir, '--no-serve']);
    const key = readKey(hostedCopy.dir);
    const second = await startServer(hostedCopy.dir, ['--rate-limit', '0']);
    sync(local.dir, second.url, key);
    return {
      hostedCopy,
      local,
      key,
      second,
      cleanup: async () => {
        await second.stop();
        hostedCopy.cleanup();
        local.cleanup();
      },
    };
  }

  it('an incremental pull fetches exactly what changed upstream, removals included', async () => {
    const { hostedCopy, local, key, second, cleanup } = await ownHosted();
    const upstream = tempDir('vt-upstream-');
    try {
      // Upstream: extraction of the pending meeting finishes (same fixture, status changed, imported again) …
      cpSync(FIXTURE_DIRS.northwind, upstream.dir, { recursive: true });
      const meetingFile = join(upstream.dir, 'meetings', 'nwl-m07-current-state-playback.json');
      const meeting = JSON.parse(readFileSync(meetingFile, 'utf8'));
      expect(meeting.extractionStatus).toBe('pending');
      writeFileSync(meetingFile, JSON.stringify({ ...meeting, extractionStatus: 'extracted' }, null, 2));
      const before = await callTool(
        second.url,
        'list_findings',
        { vault: 'northwind-logistics', limit: 200, compact: true },
        key,
      );
      cli(['import', upstream.dir, '--data-dir', hostedCopy.dir]);
      const after = await callTool(
        second.url,
        'list_findings',
        { vault: 'northwind-logistics', limit: 200, compact: true },
        key,
      );
      const was = new Map(before.json().data.findings.map((f: { id: string }) => [f.id, JSON.stringify(f)]));
      const changed = after
        .json()
        .data.findings.filter((f: { id: string }) => was.get(f.id) !== JSON.stringify(f)).length;
      expect(changed).toBeGreaterThan(0);
      // … a conflict is resolved, a task added, and one entity disappears.
      expect(
        (
          await callTool(
            second.url,
            'resolve_conflict',
            {
              vault: 'northwind-logistics',
              conflictId: 'conflict-daventry-pick-rate',
              status: 'resolved',
              note: 'one shift checked',
            },
            key,
          )
        ).status,
      ).toBe(200);
      expect(
        (
          await callTool(
            second.url,
            'add_task',
            { vault: 'meridian-health', title: 'Check the winter plan figures' },
            key,
          )
        ).status,
      ).toBe(200);
      const db = openDb(hostedCopy.dir);
      db.prepare(
        "DELETE FROM entities WHERE vault_id = 'meridian-health' AND id = (SELECT id FROM entities WHERE vault_id = 'meridian-health' AND id NOT IN (SELECT entity_id FROM conflicts) ORDER BY mention_count, id LIMIT 1)",
      ).run();
      db.close();

      const report = sync(local.dir, second.url, key);
      const nw = report.pulled.find((p) => p.vaultId === 'northwind-logistics')!;
      const mh = report.pulled.find((p) => p.vaultId === 'meridian-health')!;
      expect(nw).toMatchObject({ mode: 'incremental', meetingsFetched: 1 });
      expect(nw.entitiesFetched).toBe(changed);
      expect(nw.listsChanged).toContain('conflicts');
      expect(mh.listsChanged).toEqual(['tasks']);
      expect(mh.entitiesFetched).toBe(0); // the removal is seen from the totals and the inventory pages
      expect(
        openDb(local.dir).prepare("SELECT count(*) FROM entities WHERE vault_id = 'meridian-health'").pluck().get(),
      ).toBe(76);

      // The store is now what a clean sync of the changed upstream gives.
      const clean = tempDir('vt-clean-');
      try {
        sync(clean.dir, second.url, key);
        expect(dumpStore(local.dir)).toEqual(dumpStore(clean.dir));
      } finally {
        clean.cleanup();
      }
    } finally {
      await cleanup();
      upstream.cleanup();
    }
  });

  it('local actions land upstream once, even when the push is repeated, and come back from upstream', async () => {
    const { hostedCopy, local, key, second, cleanup } = await ownHosted();
    try {
      const call = (tool: string, args: object) =>
        JSON.parse(
          cli(['call', tool, JSON.stringify(args), '--data-dir', local.dir], { env: { ...process.env, ...ENV } }),
        );
      const task = call('add_task', {
        vault: 'northwind-logistics',
        title: 'Confirm the Leeds dock-to-stock week three',
      });
      call('update_task', { vault: 'northwind-logistics', identifier: task.identifier, status: 'doing' });
      call('resolve_conflict', {
        vault: 'northwind-logistics',
        conflictId: 'conflict-leeds-dock-to-stock',
        status: 'dismissed',
        note: 'explained',
      });
      const chart = call('render_chart', {
        vault: 'northwind-logistics',
        title: 'Pick rate by source',
        vega_lite_spec: {
          data: {
            values: [
              { s: 'boards', v: 138 },
              { s: 'logs', v: 92 },
            ],
          },
          mark: 'bar',
          encoding: { y: { field: 's', type: 'nominal' }, x: { field: 'v', type: 'quantitative' } },
        },
      });
      const person = call('find_person', { vault: 'northwind-logistics', query: 'Fiona' }).people[0];
      call('send_email', {
        vault: 'northwind-logistics',
        to: person.email,
        subject: 'Pick rate chart',
        body: 'Attached.',
        attachmentIds: [chart.artifactId],
      });
      // A write upstream refuses (the recipient left its people registry meanwhile) is marked failed; the rest go on.
      // A deck is local (the hosted service has no export_deck): it adds no outbox entry, and the pull keeps it.
      const deck = call('export_deck', { vault: 'northwind-logistics', maxItems: 2 });
      const other = call('find_person', { vault: 'northwind-logistics', query: 'Gavin' }).people[0];
      call('send_email', {
        vault: 'northwind-logistics',
        to: other.email,
        subject: 'Custom reports',
        body: 'Could we go through them?',
      });
      const upstreamDb = openDb(hostedCopy.dir);
      upstreamDb.prepare("DELETE FROM people WHERE vault_id = 'northwind-logistics' AND email = ?").run(other.email);
      upstreamDb.close();

      const pushed = sync(local.dir, second.url, key, '--push-only');
      expect(pushed.push).toMatchObject({ pushed: 5, pending: 0 });
      expect(pushed.push!.failed).toHaveLength(1);
      expect(pushed.push!.failed[0]!.tool).toBe('send_email');
      expect(pushed.push!.failed[0]!.error).toMatch(/^invalid_arguments: .*to/);

      // The push is repeated as if the first one died before recording what it sent: upstream answers from its
      // idempotency records, and nothing is applied twice.
      const db = openDb(local.dir);
      db.prepare("UPDATE outbox SET status = 'pending', pushed_at = NULL WHERE status = 'pushed'").run();
      db.close();
      const repeated = sync(local.dir, second.url, key);
      expect(repeated.push).toMatchObject({ pushed: 5, pending: 0, failed: [] });
      const tasks = (await callTool(second.url, 'list_tasks', { vault: 'northwind-logistics' }, key)).json().data.tasks;
      const mine = tasks.filter((t: { title: string }) => t.title === 'Confirm the Leeds dock-to-stock week three');
      expect(mine).toHaveLength(1);
      expect(mine[0].status).toBe('doing');
      const sent = (
        await callTool(second.url, 'list_sent_emails', { vault: 'northwind-logistics', to: person.email }, key)
      ).json().data.emails;
      expect(sent.filter((e: { subject: string }) => e.subject === 'Pick rate chart')).toHaveLength(1);
      expect(sent.find((e: { subject: string }) => e.subject === 'Pick rate chart').attachments).toEqual([
        chart.fileName,
      ]);
      const charts = (
        await callTool(second.url, 'find_artifact', { vault: 'northwind-logistics', kind: 'chart' }, key)
      ).json().data.artifacts;
      expect(charts).toHaveLength(1);

      // The pull after the push reconciles: the local store now holds upstream's records (one task, upstream's chart).
      const localTasks = call('list_tasks', { vault: 'northwind-logistics' }).tasks.filter(
        (t: { title: string }) => t.title === mine[0].title,
      );
      expect(localTasks.map((t: { id: string }) => t.id)).toEqual([mine[0].id]);
      expect(
        call('find_artifact', { vault: 'northwind-logistics', kind: 'chart' }).artifacts.map(
          (a: { artifactId: string }) => a.artifactId,
        ),
      ).toEqual([charts[0].artifactId]);
      expect(
        call('list_conflicts', { vault: 'northwind-logistics', status: 'dismissed' }).conflicts.map(
          (c: { id: string }) => c.id,
        ),
      ).toContain('conflict-leeds-dock-to-stock');
      expect(
        call('list_sent_emails', { vault: 'northwind-logistics', to: person.email }).emails.filter(
          (e: { subject: string }) => e.subject === 'Pick rate chart',
        ),
      ).toHaveLength(1);
      expect(JSON.parse(cli(['outbox', '--json', '--status', 'failed', '--data-dir', local.dir]))[0].lastError).toMatch(
        /invalid_arguments/,
      );
      expect(
        call('find_artifact', { vault: 'northwind-logistics', kind: 'report' }).artifacts.map(
          (a: { artifactId: string }) => a.artifactId,
        ),
      ).toContain(deck.artifactId);
      expect(existsSync(fileURLToPath(deck.url))).toBe(true);
    } finally {
      await cleanup();
    }
  }, 90_000); // a dozen CLI processes, each a cold start

  it('through a proxy that drops, throttles, fails, truncates and stalls, the pull ends equal to a clean one', async () => {
    const clean = tempDir('vt-clean-');
    const faulty = tempDir('vt-faulty-');
    const plan = (n: number) =>
      n % 5 === 2 ? (['drop', '429', '500', 'truncate', 'slow'] as const)[Math.floor(n / 5) % 5] : undefined;
    const proxy = await faultProxy(hosted.url, plan);
    try {
      sync(clean.dir, hosted.url, hostedKey);
      const report = await syncInBackground<Report>(faulty.dir, proxy.url, hostedKey, {
        ...ENV,
        VAULT_TOOLS_SYNC_TIMEOUT_MS: '1000',
      });
      expect(report.errors).toEqual([]);
      expect(
        Object.values(proxy.faults).every((n) => n > 0),
        JSON.stringify(proxy.faults),
      ).toBe(true);
      expect(report.requests.retries).toBeGreaterThanOrEqual(Object.values(proxy.faults).reduce((a, b) => a + b, 0));
      expect(dumpStore(faulty.dir)).toEqual(dumpStore(clean.dir));
    } finally {
      await proxy.close();
      clean.cleanup();
      faulty.cleanup();
    }
  });

  it('a sync killed mid-pull resumes without fetching again what landed, and ends equal to a clean one', async () => {
    const clean = tempDir('vt-clean-');
    const killed = tempDir('vt-killed-');
    const proxy = await faultProxy(hosted.url, () => undefined, 15); // slow enough to be killed half-way
    try {
      const full = sync(clean.dir, hosted.url, hostedKey);
      const child = spawn(
        process.execPath,
        [BIN, 'sync', '--remote', proxy.url, '--remote-key', hostedKey, '--data-dir', killed.dir],
        {
          stdio: 'ignore',
          env: { ...process.env, ...ENV },
        },
      );
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (proxy.requests >= full.requests.requests / 2) {
            clearInterval(timer);
            child.kill('SIGKILL');
            resolve();
          }
        }, 5);
      });
      await new Promise((resolve) => child.once('exit', resolve));
      const resumed = sync(killed.dir, hosted.url, hostedKey);
      // Entity details come with the inventory pages, which a resumed pull walks again (they are the list of
      // what exists); meetings that landed are not fetched again.
      expect(resumed.requests.requests).toBeLessThan(full.requests.requests);
      expect(dumpStore(killed.dir)).toEqual(dumpStore(clean.dir));
    } finally {
      await proxy.close();
      clean.cleanup();
      killed.cleanup();
    }
  });

  it('the REST listener runs a write once per Idempotency-Key, and says so on a replay', async () => {
    const body = { vault: 'meridian-health', title: 'Idempotency check task' };
    const headers = { 'idempotency-key': 'f0e1d2c3-0000-4000-8000-000000000001' };
    const first = await callTool(hosted.url, 'add_task', body, hostedKey, headers);
    const again = await callTool(hosted.url, 'add_task', body, hostedKey, headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    const tasks = (await callTool(hosted.url, 'list_tasks', { vault: 'meridian-health' }, hostedKey)).json().data.tasks;
    expect(tasks.filter((t: { title: string }) => t.title === body.title)).toHaveLength(1);
    const reused = await callTool(
      hosted.url,
      'update_task',
      { vault: 'meridian-health', identifier: 1, status: 'doing' },
      hostedKey,
      headers,
    );
    expect(reused.status).toBe(409);
    expect(reused.json().error.code).toBe('idempotency_key_reused');
    const bad = await callTool(hosted.url, 'add_task', body, hostedKey, { 'idempotency-key': 'has spaces' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.message).toMatch(/Idempotency-Key/);
  });

  it('serve --sync-every pulls in the background while it answers', async () => {
    const local = tempDir('vt-local-');
    cli(['call', 'list_vaults', '--data-dir', local.dir], { env: { ...process.env, ...ENV } });
    const server = await startServer(local.dir, ['--rate-limit', '0', '--sync-every', '60'], {
      VAULT_TOOLS_REMOTE_URL: hosted.url,
      VAULT_TOOLS_REMOTE_KEY: hostedKey,
      VAULT_TOOLS_LOG: 'info',
    });
    try {
      const key = readKey(local.dir);
      let vaults: unknown[] = [];
      for (let i = 0; i < 200 && vaults.length < 2; i++) {
        const res = await callTool(server.url, 'list_vaults', {}, key);
        expect(res.status).toBe(200); // answering all along
        vaults = res.json().data.vaults;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(vaults).toHaveLength(2);
      for (let i = 0; i < 200 && !/sync with .* 2 vaults pulled/.test(server.stderr()); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(server.stderr()).toMatch(/syncing with http:\/\/127\.0\.0\.1:\d+ every 60 min/);
      expect(server.stderr()).toMatch(/sync with .*: 0 pushed, 2 vaults pulled/);
      expect(server.stderr()).not.toContain(hostedKey);
    } finally {
      await server.stop();
      local.cleanup();
    }
  });

  it('drops a synced vault the key no longer reaches, and keeps the rest', async () => {
    const local = tempDir('vt-local-');
    try {
      sync(local.dir, hosted.url, hostedKey);
      const narrow = JSON.parse(
        cli([
          'keys',
          'create',
          '--name',
          'northwind only',
          '--vault',
          'northwind-logistics',
          '--json',
          '--data-dir',
          hostedDir.dir,
        ]),
      ).key as string;
      const report = JSON.parse(
        cli(['sync', '--remote', hosted.url, '--remote-key', narrow, '--data-dir', local.dir, '--json'], {
          env: { ...process.env, ...ENV },
        }),
      );
      expect(report.dropped).toEqual(['meridian-health']);
      expect(report.pulled.map((p: { vaultId: string; mode: string }) => [p.vaultId, p.mode])).toEqual([
        ['northwind-logistics', 'incremental'],
      ]);
      const db = openDb(local.dir);
      expect(db.prepare('SELECT id FROM vaults').pluck().all()).toEqual(['northwind-logistics']);
      expect(db.prepare("SELECT count(*) FROM entities WHERE vault_id = 'meridian-health'").pluck().get()).toBe(0);
      db.close();
    } finally {
      local.cleanup();
    }
  });

  it('explains a missing remote, a refused key and a wrong URL', () => {
    const local = tempDir('vt-local-');
    try {
      const none = cliFails(['sync', '--data-dir', local.dir], ENV);
      expect(none.status).toBe(2);
      expect(none.stderr).toMatch(/no remote configured: pass --remote URL.*vault-tools remote set/);
      const refused = cliFails(
        ['sync', '--remote', hosted.url, '--remote-key', 'vt_not_a_key', '--data-dir', local.dir],
        ENV,
      );
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/refused the key \(401 unauthorized\).*Check the key \(--remote-key\)/);
      expect(refused.stderr).not.toContain('vt_not_a_key');
      const bad = cliFails(['remote', 'set', 'ftp://example.com', '--data-dir', local.dir], ENV);
      expect(bad.stderr).toMatch(/must be http\(s\)/);
      // Stored remote: the key file is readable by the user alone, and never printed.
      cli(['remote', 'set', hosted.url, '--key', hostedKey, '--data-dir', local.dir]);
      expect(cli(['remote', 'show', '--data-dir', local.dir])).toBe(`${hosted.url}  key: stored\n`);
      const report = JSON.parse(
        cli(['sync', '--json', '--data-dir', local.dir], { env: { ...process.env, ...ENV } }),
      ) as Report;
      expect(report.pulled).toHaveLength(2);
      // doctor checks the stored remote: reachable with this key; then with a refused key, with the fix.
      const doctor = (dir: string) =>
        JSON.parse(
          execFileSync(process.execPath, [BIN, 'doctor', '--json', '--data-dir', dir], {
            encoding: 'utf8',
            env: { ...process.env, ...ENV },
          }).toString(),
        );
      const remoteOf = (r: { checks: { name: string; ok: boolean; detail: string; fix?: string }[] }) =>
        r.checks.find((c) => c.name === 'remote');
      expect(remoteOf(doctor(local.dir))).toMatchObject({
        ok: true,
        detail: expect.stringMatching(/takes the key .* reaches 2 vaults/),
      });
      cli(['remote', 'set', hosted.url, '--key', 'vt_revoked_or_wrong', '--data-dir', local.dir]);
      let failed: { stdout: string; status: number } | undefined;
      try {
        doctor(local.dir);
      } catch (err) {
        failed = err as { stdout: string; status: number };
      }
      expect(failed?.status).toBe(1);
      expect(remoteOf(JSON.parse(failed!.stdout))).toMatchObject({
        ok: false,
        detail: expect.stringMatching(/refused the key \(401/),
        fix: expect.stringMatching(/remote set .* --key NEW_KEY/),
      });
    } finally {
      local.cleanup();
    }
  });
});
