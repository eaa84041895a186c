import type { Command } from 'commander';
import { resolve } from 'node:path';
import { readVaultDir, FixtureError } from '../fixtures/read.js';
import { loadFixture } from '../fixtures/load.js';
import { summarizeFixture } from '../fixtures/summary.js';
import { CliError, openStore, resolveDataDir } from './context.js';

export function register(program: Command): void {
  program
    .command('import')
    .description('load one vault directory in the fixture format (docs/fixture-format.md); a bad directory loads nothing')
    .argument('<dir>', 'the vault directory')
    .option('--data-dir <dir>', 'data directory')
    .option('--check', 'only validate and summarize; write nothing')
    .action((dirArg: string, opts: { dataDir?: string; check?: boolean }) => {
      const vaultDir = resolve(dirArg);
      let fixture;
      try {
        fixture = readVaultDir(vaultDir);
      } catch (err) {
        if (err instanceof FixtureError) throw new CliError(err.message);
        throw err;
      }
      if (opts.check) {
        process.stderr.write(`${vaultDir}: valid\n${summarizeFixture(fixture)}\n`);
        return;
      }
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why, { create: true });
      const r = loadFixture(db, fixture, { origin: 'import', force: true });
      db.close();
      process.stderr.write(
        `imported "${r.name}" (${r.vaultId}) into ${dir}: ${r.counts.meetings} meetings, ${r.counts.entities} entities, ${r.counts.conflicts} conflicts, ${r.counts.tasks} tasks; dates shifted by ${r.shiftDays} days\n`,
      );
    });
}
