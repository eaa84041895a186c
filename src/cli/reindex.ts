import type { Command } from 'commander';
import { hasVectorExtension, vectorExtensionError } from '../service/open.js';
import { CliError, openStore, resolveDataDir, vaultOption } from './context.js';
import { embedPendingChunks } from './embed-now.js';

export function register(program: Command): void {
  program
    .command('reindex')
    .description('build the vector index of transcript chunks now (serve also does it in the background)')
    .option('--vault <vault>', 'only this vault (id or name)')
    .option('--force', 'drop the vector index and embed everything again')
    .option('--data-dir <dir>', 'data directory')
    .action(async (opts: { vault?: string; force?: boolean; dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      try {
        const vaultId = opts.vault === undefined ? undefined : vaultOption(db, opts.vault, 'reindex', opts.dataDir);
        if (!hasVectorExtension(db))
          throw new CliError(
            `sqlite-vec did not load on this platform (${vectorExtensionError()}); search runs on words only`,
          );
        const r = await embedPendingChunks(db, { label: 'reindex', vaultId, force: opts.force });
        process.stderr.write(
          `reindex: ${r.embedded} chunks embedded, ${r.reused} reused from the cache, ${r.pending} pending (${r.embedderInfo})\n`,
        );
      } finally {
        db.close();
      }
    });
}
