import type { Command } from 'commander';
import { resolve } from 'node:path';
import { readVaultDir, FixtureError } from '../vault-format/read.js';
import { loadFixture } from '../load/load.js';
import { describeCounts, summarizeFixture } from '../vault-format/summary.js';
import { describeWork, LoadRefused, previewLoad } from '../load/target.js';
import type { VaultFixture } from '../vault-format/schema.js';
import { openStoreReadOnly, storeExists } from '../service/open.js';
import { CliError, openStore, resolveDataDir } from './context.js';

const DISCARDED_ENTRIES = 'their outbox entries were dropped with them, since they name records the import replaced';

/**
 * `--check` against the store the import would write to, opened read-only (a check writes nothing, not
 * even a migration): the name clashes and the local work an import would refuse. Returns what it found out.
 */
function checkTarget(dir: string, fixture: VaultFixture, force: boolean): string {
  if (!storeExists(dir)) return `no store in ${dir} yet: nothing to clash with`;
  const db = openStoreReadOnly(dir);
  try {
    const preview = previewLoad(db, fixture.vault, force);
    if ('refused' in preview) throw new CliError(preview.refused);
    const { replaces, discards: work } = preview;
    return `checked against the store in ${dir}: ${replaces ? `replaces vault "${fixture.vault.id}"` : 'a new vault'}${work ? `, discarding its local work (--force): ${describeWork(work)}` : ''}`;
  } finally {
    db.close();
  }
}

export function register(program: Command): void {
  program
    .command('import')
    .description(
      'load one vault directory in the fixture format (docs/fixture-format.md), replacing that vault; a bad directory loads nothing',
    )
    .argument('<dir>', 'the vault directory')
    .option('--data-dir <dir>', 'data directory')
    .option('--check', 'only validate and summarize, also against the store it would go into; write nothing')
    .option(
      '--force',
      'replace the vault even if it has local writes not pushed upstream (they are discarded, with their outbox entries)',
    )
    .action((dirArg: string, opts: { dataDir?: string; check?: boolean; force?: boolean }) => {
      const vaultDir = resolve(dirArg);
      let fixture;
      try {
        fixture = readVaultDir(vaultDir);
      } catch (err) {
        if (err instanceof FixtureError) throw new CliError(err.message);
        throw err;
      }
      const { dir, why } = resolveDataDir(opts.dataDir);
      if (opts.check) {
        const target = checkTarget(dir, fixture, opts.force ?? false);
        process.stderr.write(`${vaultDir}: valid\n${summarizeFixture(fixture)}\n  ${target}\n`);
        return;
      }
      const db = openStore(dir, why, { create: true });
      try {
        const r = loadFixture(db, fixture, { origin: 'import', force: true, discardLocalWork: opts.force ?? false });
        process.stderr.write(
          `imported "${r.name}" (${r.vaultId}) into ${dir}: ${describeCounts(r.counts)}; dates shifted by ${r.shiftDays} day${Math.abs(r.shiftDays) === 1 ? '' : 's'}\n`,
        );
        if (r.discarded)
          process.stderr.write(
            `discarded the local work of the earlier copy (--force): ${describeWork(r.discarded)}; ${DISCARDED_ENTRIES}\n`,
          );
      } catch (err) {
        if (err instanceof LoadRefused) throw new CliError(err.message);
        throw err;
      } finally {
        db.close();
      }
    });
}
