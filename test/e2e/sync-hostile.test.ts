/**
 * Sync against a remote gone hostile: a real `vault-tools serve --http` behind a proxy that rewrites its
 * answers into ids and file names that try to leave the data dir (`..`, `../../x`, `/`, `\`, NUL, over-long),
 * vault ids that do the same, and bodies larger than any answer should be. Nothing outside
 * `<data>/artifacts/<vault>/<artifact>/` may be written or removed, local artifacts are kept, and an
 * over-long body fails its call with the limit named while the sync process stays small.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { safeSegment } from '../../src/safe-path.js';
import { openDb } from '../../src/store/db.js';
import { BIN, cli, cliFails, tempDir } from '../helpers.js';
import { rewritingProxy, streamBody, useHostedDemo, type Rewrites } from '../sync-helpers.js';

const ENV = {
  VAULT_TOOLS_KEY: '',
  VAULT_TOOLS_HOME: '',
  VAULT_TOOLS_REMOTE_URL: '',
  VAULT_TOOLS_REMOTE_KEY: '',
  VAULT_TOOLS_INDEX: 'off',
};
const MiB = 1024 * 1024;

interface Report {
  errors: { vault: string; error: string }[];
  pulled: { vaultId: string }[];
  skipped: string[];
}

/** `vault-tools sync --json` in a child process (the proxy lives in this one), with its peak RSS from /proc. */
function sync(
  dataDir: string,
  remote: string,
  key: string,
  env: Record<string, string> = {},
): Promise<{ report: Report; peakRssBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'sync', '--pull-only', '--remote', remote, '--remote-key', key, '--data-dir', dataDir, '--json'],
      {
        env: { ...process.env, ...ENV, ...env },
      },
    );
    let out = '';
    let err = '';
    let peak = 0;
    // VmHWM is the process's high-water mark, so the last reading before it exits is its peak.
    const watch = setInterval(() => {
      try {
        const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        peak = Math.max(peak, kb * 1024);
      } catch {
        // exited meanwhile
      }
    }, 10);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => {
      clearInterval(watch);
      if (out.startsWith('{')) resolve({ report: JSON.parse(out), peakRssBytes: peak });
      else reject(new Error(`sync exited ${code}: ${err.slice(-3000)}`));
    });
  });
}

/** Every file and folder under `root` (symlinks not followed), with a digest of each file. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (lstatSync(path).isDirectory()) {
        out.set(`${rel}/`, 'dir');
        walk(path);
      } else {
        out.set(rel, createHash('sha256').update(readFileSync(path)).digest('hex'));
      }
    }
  };
  walk(root);
  return out;
}

/** Paths added, removed or changed between two snapshots. */
function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const all = new Set([...before.keys(), ...after.keys()]);
  return [...all].filter((p) => before.get(p) !== after.get(p)).sort();
}

const hostileArtifact = (i: number, artifactId: string, fileName: string) => ({
  artifactId,
  kind: 'chart',
  title: `hostile ${i}`,
  fileName,
  mimeType: 'text/plain',
  sizeBytes: 10,
  url: `/hostile/${i}`,
  createdAt: '2026-01-01T00:00:00Z',
});

const HOSTILE_ARTIFACTS = [
  ['..', 'x.txt'],
  ['.', 'dot.txt'],
  ['../../x', 'escape.txt'],
  ['/etc', 'passwd'],
  ['..\\..\\win', 'win.txt'],
  ['art_up', '../../../outside.txt'],
  ['art_back', '..\\..\\outside.txt'],
  ['art_nul', 'x\u0000.txt'],
  ['art_dotfile', '..'],
  ['art_esc\u001b[31m', 'red.txt'],
  ['a'.repeat(5000), 'long-id.txt'],
  ['art_longname', `${'b'.repeat(5000)}.png`],
  ['Art_Case', 'case.txt'],
  ['art_case', 'case.txt'],
  ['', 'empty-id.txt'],
  ['art_empty_name', ''],
].map(([id, name], i) => hostileArtifact(i, id!, name!));

/** What a hostile artifact's download answers: its own index, so each file's origin can be told. */
const hostileBytes = (i: number) => `hostile ${String(i).padStart(2, '0')}`;

describe('sync against a hostile remote', () => {
  const hosted = useHostedDemo();

  it('ids and file names from upstream never write or remove anything outside artifacts/<vault>/<artifact>/', async () => {
    const root = tempDir('vt-hostile-');
    const home = join(root.dir, 'home');
    const data = join(home, 'data');
    let hostile = false;
    const rewrites: Rewrites = {
      answer(req, res) {
        const m = /^\/hostile\/(\d+)$/.exec(req.url ?? '');
        if (!m) return false;
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(hostileBytes(Number(m[1])));
        return true;
      },
      // Vaults the proxy makes up are served from a real one, so the old code would have pulled them.
      request: (tool, args) =>
        typeof args.vault === 'string' && !/^(northwind-logistics|meridian-health)$/.test(args.vault)
          ? { ...args, vault: 'meridian-health' }
          : args,
      response(tool, args, answer) {
        const data = answer.data as Record<string, unknown[]> | undefined;
        if (!hostile || !data) return answer;
        if (tool === 'list_vaults') {
          const extra = [
            { id: '..', name: 'Dot dot' },
            { id: '../../etc', name: 'Escape' },
            { id: 'bad\u0000id', name: 'Nul' },
            { id: 'v'.repeat(5000), name: 'Long' },
          ];
          return { data: { vaults: [...data.vaults!, ...extra] } };
        }
        if (tool === 'find_artifact' && args.kind === 'chart' && args.vault !== 'meridian-health')
          return { data: { artifacts: [...data.artifacts!, ...HOSTILE_ARTIFACTS] } };
        if (tool === 'list_files' && args.vault !== 'meridian-health') {
          const file = {
            id: '../../file',
            name: '../../../etc/passwd',
            description: '',
            mimeType: 'text/plain',
            sizeBytes: 10,
            downloadUrl: '/hostile/99',
            createdAt: '2026-01-01T00:00:00Z',
          };
          return { data: { ...data, files: [...data.files!, file] } };
        }
        return answer;
      },
    };
    const proxy = await rewritingProxy(hosted.url, rewrites);
    try {
      mkdirSync(home, { recursive: true });
      // A clean first pull, then local work that must survive: a chart and an export (not pushed: --pull-only
      // keeps them in the outbox), a file of the user's in artifacts/, and canaries next to and above the data dir.
      expect((await sync(data, proxy.url, hosted.key)).report.errors).toEqual([]);
      const call = (tool: string, args: object) =>
        JSON.parse(cli(['call', tool, JSON.stringify(args), '--data-dir', data], { env: { ...process.env, ...ENV } }));
      const chart = call('render_chart', {
        vault: 'northwind-logistics',
        title: 'Local chart',
        vega_lite_spec: {
          data: {
            values: [
              { s: 'a', v: 1 },
              { s: 'b', v: 2 },
            ],
          },
          mark: 'bar',
          encoding: { y: { field: 's', type: 'nominal' }, x: { field: 'v', type: 'quantitative' } },
        },
      });
      const exported = call('export_report', { vault: 'northwind-logistics', dataset: 'conflicts', format: 'csv' });
      writeFileSync(join(data, 'artifacts', 'mine.txt'), 'the user’s own file');
      writeFileSync(join(root.dir, 'canary.txt'), 'above the data dir');
      writeFileSync(join(home, 'canary.txt'), 'next to the data dir');
      const before = snapshot(root.dir);
      const isStore = (p: string) => /^home\/data\/vault-tools\.db(-wal|-shm)?$/.test(p);

      hostile = true;
      const { report } = await sync(data, proxy.url, hosted.key);
      // Every change is a hostile artifact's file, each in its own folder under the vault's folder.
      const placed = HOSTILE_ARTIFACTS.map((a, i) => ({ i, a })).filter(({ a }) => a.artifactId && a.fileName);
      const expected = placed.map(
        ({ a }) => `home/data/artifacts/northwind-logistics/${safeSegment(a.artifactId)}/${safeSegment(a.fileName)}`,
      );
      const expectedFolders = placed.map(
        ({ a }) => `home/data/artifacts/northwind-logistics/${safeSegment(a.artifactId)}/`,
      );
      const afterHostile = snapshot(root.dir);
      expect(changes(before, afterHostile).filter((p) => !isStore(p))).toEqual(
        [...expected, ...expectedFolders].sort(),
      );
      expect(report.errors).toEqual([]);
      expect(report.pulled.map((p) => p.vaultId).sort()).toEqual(['meridian-health', 'northwind-logistics']);
      // The made-up vaults are refused with their reason; so are the records no file name can be made of.
      for (const id of ['..', '../../etc', 'bad\u0000id'])
        expect(report.skipped.join('\n')).toContain(`vaults: record ${JSON.stringify(id)}: id`);
      expect(report.skipped.join('\n')).toMatch(/vaults: record "vvvv.*\(5000 characters\): id/);
      expect(report.skipped.join('\n')).toMatch(/artifacts: record "": an empty name cannot be a file or folder name/);
      expect(report.skipped.join('\n')).toMatch(
        /artifacts: record "art_empty_name": an empty name cannot be a file or folder name/,
      );

      for (const [n, { i }] of placed.entries())
        expect(readFileSync(join(root.dir, expected[n]!), 'utf8')).toBe(hostileBytes(i));
      // Two ids that differ only in case got folders of their own.
      expect(new Set(expectedFolders.map((f) => f.toLowerCase())).size).toBe(expectedFolders.length);
      const listed = call('find_artifact', { vault: 'northwind-logistics', kind: 'chart', limit: 25 }).artifacts as {
        artifactId: string;
      }[];
      expect(listed.map((a) => a.artifactId)).toContain('..');

      // A row stored by the old code for id ".." (its file right in artifacts/) must not take artifacts/ with it.
      const db = openDb(data);
      db.prepare(
        "INSERT INTO artifacts (vault_id, id, kind, title, file_name, mime_type, size_bytes, path, created_by, created_at) VALUES ('northwind-logistics', 'old', 'chart', 'old', 'mine.txt', 'text/plain', 1, 'artifacts/mine.txt', 'sync', '2026-01-01T00:00:00Z')",
      ).run();
      db.close();

      // The hostile artifacts disappear upstream: a pull removes their folders and nothing else.
      hostile = false;
      const cleaned = (await sync(data, proxy.url, hosted.key)).report;
      expect(cleaned.errors).toEqual([]);
      expect(cleaned.skipped).toEqual([
        'artifacts: record "old": its file "artifacts/mine.txt" is not in an artifact\'s own folder, so it is left in place',
      ]);
      const after = snapshot(root.dir);
      expect(changes(before, after).filter((p) => !isStore(p))).toEqual([]);
      expect(existsSync(join(data, 'artifacts', 'northwind-logistics', chart.artifactId, chart.fileName))).toBe(true);
      expect(existsSync(join(data, 'artifacts', 'northwind-logistics', exported.artifactId, exported.fileName))).toBe(
        true,
      );
      expect(readFileSync(join(home, 'canary.txt'), 'utf8')).toBe('next to the data dir');
    } finally {
      await proxy.close();
      root.cleanup();
    }
  });

  it('an answer over the size cap fails its call naming the limit; a large download streams to disk; the process stays small', async () => {
    const local = tempDir('vt-big-');
    const DOWNLOAD = 96 * MiB;
    const HUGE = 256 * MiB;
    let streamed = 0;
    const proxy = await rewritingProxy(hosted.url, {
      answer(req, res, tool, args) {
        if (req.url === '/big/artifact') {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(DOWNLOAD) });
          void streamBody(res, DOWNLOAD, 0x61);
          return true;
        }
        // meridian-health's list_meetings answers 256 MiB of valid JSON, sent chunked (no Content-Length).
        if (tool === 'list_meetings' && args?.vault === 'meridian-health') {
          res.writeHead(200, { 'content-type': 'application/json' });
          void streamBody(res, HUGE, 0x20, '{"data":{"meetings":[', ']}}').then((n) => (streamed = n));
          return true;
        }
        return false;
      },
      response(tool, args, answer) {
        if (tool === 'find_artifact' && args.vault === 'northwind-logistics' && args.kind === 'report') {
          const big = {
            artifactId: 'art_big',
            kind: 'report',
            title: 'Big',
            fileName: 'big.pdf',
            mimeType: 'application/pdf',
            sizeBytes: DOWNLOAD,
            url: '/big/artifact',
            createdAt: '2026-01-01T00:00:00Z',
          };
          return { data: { artifacts: [big] } };
        }
        return answer;
      },
    });
    try {
      const { report, peakRssBytes } = await sync(local.dir, proxy.url, hosted.key);
      const meridian = report.errors.find((e) => e.vault === 'meridian-health');
      expect(meridian?.error).toMatch(
        /^list_meetings \(POST \/v1\/tools\/list_meetings\): the answer is larger than the 32 MiB limit \(VAULT_TOOLS_SYNC_MAX_JSON_BYTES\)/,
      );
      expect(streamed).toBeLessThan(HUGE); // reading stopped; the rest was never sent
      expect(report.pulled.map((p) => p.vaultId)).toEqual(['northwind-logistics']);
      const big = join(local.dir, 'artifacts', 'northwind-logistics', 'art_big', 'big.pdf');
      expect(lstatSync(big).size).toBe(DOWNLOAD);
      expect(readdirSync(join(local.dir, 'artifacts', 'northwind-logistics', 'art_big'))).toEqual(['big.pdf']);
      // Neither the 96 MiB file nor the 32 MiB read before giving up is held twice (the old code peaked above 700 MB).
      expect(peakRssBytes).toBeGreaterThan(0);
      expect(peakRssBytes).toBeLessThan(250 * MiB);

      // A download over its own cap is skipped with the limit named, and leaves no partial file.
      const capped = tempDir('vt-capped-');
      try {
        const again = await sync(capped.dir, proxy.url, hosted.key, {
          VAULT_TOOLS_SYNC_MAX_DOWNLOAD_BYTES: String(MiB),
        });
        expect(again.report.skipped.join('\n')).toContain(
          'artifacts: record "art_big": GET /big/artifact: the answer is larger than the 1 MiB limit (VAULT_TOOLS_SYNC_MAX_DOWNLOAD_BYTES)',
        );
        expect(existsSync(join(capped.dir, 'artifacts', 'northwind-logistics', 'art_big'))).toBe(false); // no partial file, no empty folder
      } finally {
        capped.cleanup();
      }
    } finally {
      await proxy.close();
      local.cleanup();
    }
  });

  it('`remote set` warns about plain http to another machine, without contacting it', async () => {
    const local = tempDir('vt-remote-');
    // Any connection or name lookup from the CLI would be reported and refused.
    const guard = join(local.dir, 'no-network.cjs');
    writeFileSync(
      guard,
      `const net = require('node:net'); const dns = require('node:dns');
       const refuse = (what) => function () { process.stderr.write('NETWORK ' + what + '\\n'); throw new Error('no network in this test'); };
       net.Socket.prototype.connect = refuse('connect'); dns.lookup = refuse('lookup'); dns.promises.lookup = refuse('lookup');`,
    );
    const env = { ...process.env, ...ENV, NODE_OPTIONS: `--require ${guard}` };
    const set = (url: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [BIN, 'remote', 'set', url, '--key', 'vt_test', '--data-dir', local.dir],
          { env },
        );
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.once('exit', (code) => resolve({ code, stderr }));
      });
    try {
      const far = await set('http://example.com');
      expect(far.code).toBe(0);
      expect(far.stderr).toMatch(
        /warning: http:\/\/example\.com is plain http to another machine.*unencrypted.*https:\/\//,
      );
      expect(far.stderr).not.toContain('NETWORK');
      for (const url of ['https://example.com', 'http://localhost:8787', 'http://[::1]:8787', 'http://127.0.0.1:1']) {
        const near = await set(url);
        expect(near.code, url).toBe(0);
        expect(near.stderr, url).not.toMatch(/warning/);
        expect(near.stderr, url).not.toContain('NETWORK');
      }
      expect(cli(['remote', 'show', '--data-dir', local.dir])).toBe('http://127.0.0.1:1  key: stored\n');
      // The guard does catch a connection (to a closed loopback port).
      const probe = spawn(process.execPath, [BIN, 'sync', '--data-dir', local.dir], { env });
      let probed = '';
      probe.stderr.on('data', (d) => (probed += d));
      await new Promise((resolve) => probe.once('exit', resolve));
      expect(probed).toContain('NETWORK');
      expect(cliFails(['remote', 'set', 'ftp://example.com', '--data-dir', local.dir], ENV).stderr).toMatch(
        /must be http\(s\)/,
      );
    } finally {
      local.cleanup();
    }
  });
});
