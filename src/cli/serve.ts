import type { Command } from 'commander';
import { authenticate } from '../auth/keys.js';
import { Service } from '../service/invoke.js';
import { serveStdio } from '../surfaces/mcp.js';
import type { Db } from '../store/db.js';
import { openStore, principalFor, resolveDataDir, resolveKey } from './context.js';

/** Serves MCP over stdio on a store; shared by `serve` and `demo`. */
export async function serveStore(db: Db, dataDir: string, keyOption: string | undefined): Promise<void> {
  const key = resolveKey(db, dataDir, keyOption);
  principalFor(db, key); // fail now, clearly, if the key is wrong
  const service = new Service(db);
  await serveStdio(service, () => authenticate(db, key));
  db.close();
}

export function register(program: Command): void {
  program
    .command('serve')
    .description("serve MCP over stdio on the data dir's store")
    .option('--data-dir <dir>', 'data directory (default: $VAULT_TOOLS_HOME or the platform user data dir)')
    .option('--key <key>', 'key to act with (default: $VAULT_TOOLS_KEY or the data dir owner key)')
    .action(async (opts: { dataDir?: string; key?: string }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      await serveStore(openStore(dir, why), dir, opts.key);
    });
}
