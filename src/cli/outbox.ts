import type { Command } from 'commander';
import { listOutbox } from '../service/open.js';
import { printable } from '../core/printable.js';
import { CliError, openStore, resolveDataDir, vaultOption } from './context.js';

export function register(program: Command): void {
  program
    .command('outbox')
    .description('local writes waiting for sync to push them upstream (oldest first)')
    .option('--vault <vault>', 'only this vault (id or name)')
    .option('--status <status>', 'pending, pushed or failed')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'print JSON')
    .option('--data-dir <dir>', 'data directory')
    .action((opts: { vault?: string; status?: string; limit: string; json?: boolean; dataDir?: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new CliError(`--limit "${opts.limit}": expected a whole number above 0`, 2);
      if (opts.status && !['pending', 'pushed', 'failed'].includes(opts.status))
        throw new CliError(`--status "${opts.status}": expected pending, pushed or failed`, 2);
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      let entries;
      try {
        entries = listOutbox(db, {
          vaultId: opts.vault === undefined ? undefined : vaultOption(db, opts.vault, 'outbox', opts.dataDir),
          status: opts.status,
          limit,
        });
      } finally {
        db.close();
      }
      if (opts.json) return void process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      // Arguments and the caller's name come from outside (an OAuth client names itself): printable, one line each.
      const lines = entries.map(
        (e) =>
          `#${e.seq}  ${e.createdAt}  ${e.status.padEnd(7)}  ${e.vaultId}  ${e.tool}  ${printable(JSON.stringify(e.args), 100)}  by ${e.keyName === null ? '?' : printable(e.keyName, 200)}`,
      );
      process.stdout.write(`${lines.join('\n') || 'the outbox is empty'}\n`);
    });
}
