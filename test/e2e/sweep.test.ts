/**
 * What a `kill -9` during an export leaves behind (an unfinished `.partial` file, an artifact folder whose row
 * was never committed) is reported by doctor and removed by `doctor --fix` or when serve opens the store;
 * real artifacts, anything still being written, and anything a link points at outside the data dir stay.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, demoStore, type DemoStore } from '../helpers.js';
import { callTool, http, startServer } from '../http-helpers.js';
import { sampleArgs } from '../sample-args.js';

const VAULT = 'northwind-logistics';
const ENV = { VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' };
const TWO_HOURS_AGO = new Date(Date.now() - 2 * 3600_000);

let store: DemoStore;
const real: string[] = [];
let canary: string;

/** Sets `path` and everything under it back two hours (links themselves, not what they point at). */
function age(path: string): void {
  if (lstatSync(path).isSymbolicLink()) {
    lutimesSync(path, TWO_HOURS_AGO, TWO_HOURS_AGO);
    return;
  }
  if (lstatSync(path).isDirectory()) for (const name of readdirSync(path)) age(join(path, name));
  utimesSync(path, TWO_HOURS_AGO, TWO_HOURS_AGO);
}

/** What an export killed mid-write leaves: stale leftovers, plus a fresh pair another process is still writing. */
function leaveLeftovers(tag: string) {
  const artifacts = join(store.dir, 'artifacts', VAULT);
  const orphan = join(artifacts, `art_dead${tag}`);
  mkdirSync(orphan, { recursive: true });
  writeFileSync(join(orphan, 'findings.xlsx.partial'), 'half a workbook');
  symlinkSync(canary, join(orphan, 'link-to-canary'));
  age(orphan);
  const partial = join(store.dir, 'mail', VAULT, `mail_dead${tag}.eml.partial`);
  mkdirSync(join(store.dir, 'mail', VAULT), { recursive: true });
  writeFileSync(partial, 'half a message');
  age(partial);
  const inProgress = join(artifacts, `art_busy${tag}`);
  mkdirSync(inProgress, { recursive: true });
  writeFileSync(join(inProgress, 'report.pdf.partial'), 'being written');
  return { stale: [orphan, partial], fresh: [inProgress, join(inProgress, 'report.pdf.partial')] };
}

const doctor = (...args: string[]) => {
  const report = JSON.parse(
    execFileSync(process.execPath, [BIN, 'doctor', '--json', '--data-dir', store.dir, ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...ENV },
    }),
  );
  return report.checks.find((c: { name: string }) => c.name === 'leftovers');
};

beforeAll(async () => {
  store = demoStore();
  canary = join(store.dir, '..', `canary-${Date.now()}.txt`);
  writeFileSync(canary, 'must survive');
  const server = await startServer(store.dir, ['--rate-limit', '0']);
  try {
    for (const [tool, args] of [
      ['render_chart', sampleArgs('render_chart', VAULT)],
      ['export_report', { vault: VAULT, dataset: 'conflicts', format: 'csv' }],
    ] as const) {
      const r = await callTool(server.url, tool, args, store.ownerKey);
      expect(r.status, r.body).toBe(200);
      real.push(r.json().data.artifactId);
    }
  } finally {
    await server.stop();
  }
  for (const id of real) age(join(store.dir, 'artifacts', VAULT, id)); // old, but with a row: kept
}, 60_000);

afterAll(() => {
  store?.cleanup();
  execFileSync('rm', ['-f', canary]);
});

const realFolders = () => real.map((id) => join(store.dir, 'artifacts', VAULT, id));
const expectKept = (paths: string[]) => expect(paths.filter((p) => !existsSync(p))).toEqual([]);
const expectGone = (paths: string[]) => expect(paths.filter((p) => existsSync(p))).toEqual([]);

describe('leftovers of interrupted writes', () => {
  it('doctor reports them with the fix; serve removes them at start-up and keeps real and in-progress ones', async () => {
    const { stale, fresh } = leaveLeftovers('1');
    const reported = doctor();
    expect(reported).toMatchObject({
      ok: true,
      warning: true,
      fix: expect.stringContaining('vault-tools doctor --fix'),
    });
    expect(reported.detail).toMatch(/1 unfinished `\.partial` file and 1 artifact folder without a row/);
    expect(reported.detail).toContain(`art_dead1`);
    expect(reported.detail).toContain(`mail_dead1.eml.partial`);
    expect(reported.detail).not.toContain('art_busy1');

    const server = await startServer(store.dir, ['--rate-limit', '0']);
    await server.stop();
    expectGone(stale);
    expectKept([...fresh, ...realFolders(), canary]);
    expect(doctor()).toMatchObject({ ok: true, detail: expect.stringMatching(/^none/) });
  }, 60_000);

  it('doctor --fix removes them, and the real artifacts still download', async () => {
    const { stale, fresh } = leaveLeftovers('2');
    expect(doctor('--fix')).toMatchObject({
      ok: true,
      detail: 'removed 1 unfinished `.partial` file and 1 artifact folder without a row',
    });
    expectGone(stale);
    expectKept([...fresh, ...realFolders(), canary]);
    const server = await startServer(store.dir, ['--rate-limit', '0']);
    try {
      const found: { artifactId: string; url: string }[] = (
        await callTool(server.url, 'find_artifact', { vault: VAULT }, store.ownerKey)
      ).json().data.artifacts;
      expect(found.map((a) => a.artifactId)).toEqual(expect.arrayContaining(real));
      for (const a of found.filter((a) => real.includes(a.artifactId))) {
        const download = await http(server.url, {
          path: new URL(a.url).pathname,
          headers: { authorization: `Bearer ${store.ownerKey}` },
        });
        expect(download.status, a.url).toBe(200);
        expect(download.body.length).toBeGreaterThan(0);
      }
    } finally {
      await server.stop();
    }
  }, 60_000);
});
