import type { Command } from 'commander';
import { Service } from '../service/invoke.js';
import { createEmbedder } from '../search/embedder/index.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactAbsolutePath } from '../render/artifacts.js';
import type { Db } from '../store/db.js';
import { CliError, openStore, principalFor, resolveDataDir, resolveKey } from './context.js';

/** `--out DIR`: the artifact a call produced, copied next to the user's work. */
function copyArtifact(db: Db, dataDir: string, data: Record<string, unknown>, outDir: string): void {
  const id = data.artifactId;
  if (typeof id !== 'string') throw new CliError('--out: this tool produced no artifact to copy');
  const row = db.prepare('SELECT file_name, path FROM artifacts WHERE id = ?').get(id) as { file_name: string; path: string } | undefined;
  if (!row) throw new CliError(`--out: artifact ${id} is not in the store`);
  mkdirSync(outDir, { recursive: true });
  const target = join(outDir, row.file_name);
  // Written afresh rather than copied: a copy would keep the store's private mode (0600), and this file is
  // the user's, in their folder, to share like any other they make.
  writeFileSync(target, readFileSync(artifactAbsolutePath(dataDir, row.path)));
  process.stderr.write(`copied ${row.file_name} to ${target}\n`);
}

export function register(program: Command): void {
  program
    .command('call')
    .description('call one tool through the same service path as MCP; prints the `data` JSON on stdout')
    .argument('<tool>', 'tool name (see `vault-tools tools`)')
    .argument('[json]', 'arguments as a JSON object', '{}')
    .option('--vault <vault>', 'vault id or name (same as "vault" in the JSON)')
    .option('--key <key>', 'key to act with (default: $VAULT_TOOLS_KEY or the data dir owner key)')
    .option('--data-dir <dir>', 'data directory')
    .option('--out <dir>', 'also copy a produced artifact (chart, export) into this directory')
    .option('--init', 'create the data dir and a new store when the data dir does not exist yet')
    .action(async (tool: string, argsJson: string, opts: { vault?: string; key?: string; dataDir?: string; out?: string; init?: boolean }) => {
      let args: unknown;
      try {
        args = JSON.parse(argsJson);
      } catch (err) {
        throw new CliError(`call: the arguments are not valid JSON (${(err as Error).message}); pass an object such as '{"limit": 5}'`, 2);
      }
      if (opts.vault !== undefined) {
        if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new CliError('call: the arguments must be a JSON object', 2);
        args = { ...(args as object), vault: opts.vault };
      }
      const { dir, why } = resolveDataDir(opts.dataDir);
      const db = openStore(dir, why, { create: opts.init, offersInit: true });
      try {
        const principal = principalFor(db, resolveKey(db, dir, opts.key));
        const embedder = createEmbedder();
        const result = await new Service(db, { dataDir: dir, embedder }).invoke(tool, args, principal).finally(() => embedder.close());
        if (result.ok) {
          process.stdout.write(`${JSON.stringify(result.data, null, 2)}\n`);
          if (opts.out) copyArtifact(db, dir, result.data, opts.out);
        } else {
          // The error body of every surface (docs/errors.md); the id names this one call in reports.
          process.stderr.write(`${JSON.stringify({ error: { code: result.code, message: result.message, requestId: randomUUID() } }, null, 2)}\n`);
          process.exitCode = 1;
        }
      } finally {
        db.close();
      }
    });
}
