import type { Command } from 'commander';
import type { SyncReport, syncStatus } from '../sync/index.js';
import { resolveRemote } from '../sync/config.js';
import { printable } from '../core/printable.js';
import { CliError, openStore, resolveDataDir, vaultOption } from './context.js';
import { progressPrinter } from './progress.js';

interface SyncFlags {
  remote?: string;
  remoteKey?: string;
  vault: string[];
  pullOnly?: boolean;
  pushOnly?: boolean;
  full?: boolean;
  concurrency: string;
  status?: boolean;
  json?: boolean;
  dataDir?: string;
}

export function register(program: Command): void {
  program
    .command('sync')
    .description(
      'push local actions upstream, then pull the vaults the remote key reaches (incremental after the first time)',
    )
    .option('--remote <url>', 'base URL of the service (default: $VAULT_TOOLS_REMOTE_URL or `vault-tools remote set`)')
    .option('--remote-key <key>', 'key for the remote (default: $VAULT_TOOLS_REMOTE_KEY or `vault-tools remote set`)')
    .option(
      '--vault <vault>',
      'only this vault (id or name); repeatable',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--pull-only', 'do not push the outbox')
    .option('--push-only', 'only push the outbox')
    .option('--full', 'walk every record again instead of asking what changed')
    .option('--concurrency <n>', 'requests in flight', '4')
    .option('--status', 'show per vault: last pull, last push, outbox entries waiting, last error; then exit')
    .option('--json', 'print the report (or status) as JSON on stdout')
    .option('--data-dir <dir>', 'data directory')
    .action(async (opts: SyncFlags) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why, { create: true });
      // Loaded here, not at start-up: every other command (and MCP's cold start) would pay for undici.
      const { runSync, syncStatus } = await import('../sync/index.js');
      const { RemoteAuthError } = await import('../sync/remote.js');
      try {
        if (opts.status) {
          // --vault narrows the status to those vaults of this store, by id or name; one it lacks is an error.
          const only = new Set(opts.vault.map((v) => vaultOption(db, v, 'sync --status', opts.dataDir)));
          return printStatus(
            syncStatus(db).filter((r) => !only.size || only.has(r.vault)),
            opts.json,
          );
        }
        if (opts.pullOnly && opts.pushOnly) throw new CliError('--pull-only and --push-only exclude each other', 2);
        const concurrency = Number(opts.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
          throw new CliError(`--concurrency "${opts.concurrency}": expected a whole number from 1 to 32`, 2);
        const remote = resolveRemote(dir, opts);
        if (typeof remote === 'string') throw new CliError(remote, 2);
        const print = progressPrinter('sync', 'items');
        const abort = new AbortController();
        // Ctrl-C stops after the transaction in progress; what landed stays, and the next sync resumes from it.
        process.once('SIGINT', () => abort.abort());
        let report: SyncReport;
        try {
          report = await runSync(db, {
            url: remote.url,
            key: remote.key,
            dataDir: dir,
            vaults: opts.vault,
            mode: opts.pullOnly ? 'pull' : opts.pushOnly ? 'push' : 'both',
            full: opts.full,
            concurrency,
            signal: abort.signal,
            onProgress: (vault, resource, done, total) => print(done, total, printable(`${vault} ${resource}`)),
          });
        } catch (err) {
          if (err instanceof RemoteAuthError)
            throw new CliError(`${err.message}. Check the key (${remote.keyFrom}) and that it may read these vaults.`);
          if (abort.signal.aborted)
            throw new CliError('sync interrupted; what landed is kept and the next sync resumes from there');
          throw new CliError(`sync with ${remote.url} failed: ${printable((err as Error).message)}`);
        }
        printReport(report, opts.json);
        if (report.errors.length || report.push?.stopped) process.exitCode = 1;
      } finally {
        db.close();
      }
    });
}

function printReport(r: SyncReport, json?: boolean): void {
  if (json) return void process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  const lines: string[] = [];
  if (r.push) {
    lines.push(
      `push: ${r.push.pushed} sent, ${r.push.failed.length} refused, ${r.push.pending} still pending${r.push.stopped ? ` (stopped: ${r.push.stopped})` : ''}`,
    );
    for (const f of r.push.failed) lines.push(`  #${f.seq} ${f.tool}: ${f.error}`);
  }
  for (const p of r.pulled) {
    lines.push(
      `pull ${p.vaultId} (${p.mode}): ${p.entitiesFetched} entities and ${p.meetingsFetched} meetings fetched; lists changed: ${p.listsChanged.join(', ') || 'none'}`,
    );
  }
  for (const id of r.dropped) lines.push(`dropped ${id}: the remote key no longer reaches it`);
  for (const e of r.errors) lines.push(`error in ${e.vault}: ${e.error}`);
  if (r.skipped.length)
    lines.push(
      `${r.skipped.length} upstream records, lists or texts skipped: ${r.skipped.slice(0, 5).join('; ')}${r.skipped.length > 5 ? '; …' : ''}`,
    );
  lines.push(
    `${r.requests.requests} requests (${r.requests.retries} retried), ${(r.requests.bytes / 1e6).toFixed(1)} MB in ${r.seconds.toFixed(1)} s`,
  );
  process.stderr.write(`${lines.join('\n')}\n`);
}

function printStatus(rows: ReturnType<typeof syncStatus>, json?: boolean): void {
  if (json) return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  if (!rows.length) return void process.stdout.write('nothing synced yet and the outbox is empty\n');
  for (const r of rows) {
    process.stdout.write(
      `${r.vault}  remote ${r.remote ?? '-'}  last pull ${r.lastPull ?? 'never'}  last push ${r.lastPush ?? 'never'}  pending ${r.pending}  failed ${r.failed}${r.lastError ? `  last error: ${r.lastError}` : ''}\n`,
    );
  }
}
