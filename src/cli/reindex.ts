import type { Command } from 'commander';
import { createEmbedder, describeKernel } from '../search/embedder/index.js';
import { resetVectorIndex } from '../search/vectors.js';
import { countPending, indexPending } from '../search/vector-indexing.js';
import { hasVectorExtension, vectorExtensionError } from '../service/open.js';
import { CliError, openStore, resolveDataDir } from './context.js';
import { progressPrinter } from './progress.js';

export function register(program: Command): void {
  program
    .command('reindex')
    .description('build the vector index of transcript chunks now (serve also does it in the background)')
    .option('--vault <vault>', 'only this vault (id)')
    .option('--force', 'drop the vector index and embed everything again')
    .option('--data-dir <dir>', 'data directory')
    .action(async (opts: { vault?: string; force?: boolean; dataDir?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why);
      if (!hasVectorExtension(db)) throw new CliError(`sqlite-vec did not load on this platform (${vectorExtensionError()}); search runs on words only`);
      const embedder = createEmbedder();
      try {
        if (opts.force) {
          await embedder.embed(['warm-up']); // settles an endpoint embedder's id and dims
          resetVectorIndex(db, embedder);
        }
        const print = progressPrinter('reindex', 'chunks');
        // Bulk work: shared over the background workers (one per core), like serve's indexer.
        const result = await indexPending(db, embedder, { vaultId: opts.vault, background: true, onProgress: (p) => print(p.done, p.total) });
        process.stderr.write(
          `reindex: ${result.embedded} chunks embedded, ${result.reused} reused from the cache, ${countPending(db, embedder.id, opts.vault)} pending (${[`embedder ${embedder.id}`, describeKernel(embedder)].filter(Boolean).join(', ')})\n`,
        );
      } finally {
        await embedder.close();
        db.close();
      }
    });
}
