/**
 * `vault-tools backup` of the bench's store while `serve --http` answers reads (issue 41): how long the backup
 * takes, and the reads' p95 while it runs against the same reads with no backup, measured back to back on one
 * server. Then `vault-tools restore` of that backup into a new data dir (its check reads the whole file).
 * Reads: search_knowledge (words of the vault's vocabulary) and list_findings, alternating, over REST.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, startHttp } from './lib/procs.js';
import { percentile } from './lib/measure.js';
import { row, type Row } from './lib/report.js';
import { prng, vocabulary } from './lib/synth.js';
import { benchVault, type BenchContext } from './lib/context.js';

const READERS = 2;
const MB = 1024 * 1024;

/** Reads from READERS concurrent clients until `until()` resolves; the latency of every read, ms. */
async function readWhile(url: string, key: string, vault: string, until: Promise<unknown>): Promise<number[]> {
  const rnd = prng(41);
  const words = vocabulary().words;
  const latencies: number[] = [];
  let stop = false;
  void until.then(() => (stop = true));
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  await Promise.all(
    Array.from({ length: READERS }, async (_, reader) => {
      for (let i = 0; !stop; i++) {
        const [tool, args] =
          (i + reader) % 2 === 0
            ? ['search_knowledge', { vault, query: `${rnd.pick(words)} ${rnd.pick(words)}`, limit: 10 }]
            : ['list_findings', { vault, limit: 20, sort: 'mentions' }];
        const t0 = performance.now();
        const r = await fetch(`${url}/v1/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify(args) });
        await r.text();
        if (!r.ok) throw new Error(`${tool} answered ${r.status} during the backup bench`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

/** Runs the CLI to completion; its wall time in seconds. */
function runCli(args: string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, VAULT_TOOLS_INDEX: 'off' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve((performance.now() - t0) / 1000)
        : reject(new Error(`vault-tools ${args[0]} exited ${code}: ${stderr}`)),
    ),
  );
}

export async function backupRows(ctx: BenchContext): Promise<Row[]> {
  const vault = benchVault(ctx).id;
  const storeMb = statSync(join(ctx.dir, 'vault-tools.db')).size / MB;
  const size = `${ctx.size}; store file ${storeMb.toFixed(0)} MB`;
  const server = await startHttp([
    BIN,
    'serve',
    '--data-dir',
    ctx.dir,
    '--http',
    '127.0.0.1:0',
    '--no-stdio',
    '--rate-limit',
    '0',
    '--no-index',
  ]);
  const target = join(ctx.tmp, 'bench.backup');
  let backupSeconds = 0;
  let quiet: number[];
  let during: number[];
  try {
    await readWhile(server.url, ctx.manifest.ownerKey, vault, new Promise((r) => setTimeout(r, 2_000))); // warm-up, discarded
    const backup = runCli(['backup', target, '--data-dir', ctx.dir]).then((s) => (backupSeconds = s));
    during = await readWhile(server.url, ctx.manifest.ownerKey, vault, backup);
    // The same reads for as long again, with no backup running: the reference.
    quiet = await readWhile(
      server.url,
      ctx.manifest.ownerKey,
      vault,
      new Promise((r) => setTimeout(r, Math.max(2_000, backupSeconds * 1000))),
    );
  } finally {
    await server.stop();
  }
  const restoreSeconds = await runCli(['restore', target, '--data-dir', join(ctx.tmp, 'restored')]);
  const backupMb = statSync(target).size / MB;
  return [
    row({
      metric: 'backup.seconds',
      value: backupSeconds,
      unit: 's',
      size,
      note: `${(backupMb / backupSeconds).toFixed(0)} MB/s, the whole CLI run, while ${READERS} clients read over REST`,
    }),
    row({
      metric: 'backup.reads.p95',
      value: percentile(during, 0.95),
      unit: 'ms',
      reference: { what: 'the same reads, no backup', value: percentile(quiet, 0.95) },
      size: `${size}; search_knowledge and list_findings over REST, ${READERS} clients, ${during.length} reads during the backup, ${quiet.length} without`,
    }),
    row({
      metric: 'restore.seconds',
      value: restoreSeconds,
      unit: 's',
      size: `${size}; backup file ${backupMb.toFixed(0)} MB`,
      note: 'check (header, tables, version, quick_check) then copy and rename, into a new data dir',
    }),
  ];
}
