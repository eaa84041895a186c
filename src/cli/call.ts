import type { Command } from 'commander';
import { Service } from '../service/invoke.js';
import { CliError, openStore, principalFor, resolveDataDir, resolveKey } from './context.js';

export function register(program: Command): void {
  program
    .command('call')
    .description('call one tool through the same service path as MCP; prints the `data` JSON on stdout')
    .argument('<tool>', 'tool name (see `vault-tools tools`)')
    .argument('[json]', 'arguments as a JSON object', '{}')
    .option('--vault <vault>', 'vault id or name (same as "vault" in the JSON)')
    .option('--key <key>', 'key to act with (default: $VAULT_TOOLS_KEY or the data dir owner key)')
    .option('--data-dir <dir>', 'data directory')
    .action(async (tool: string, argsJson: string, opts: { vault?: string; key?: string; dataDir?: string }) => {
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
      const db = openStore(dir, why);
      try {
        const principal = principalFor(db, resolveKey(db, dir, opts.key));
        const result = await new Service(db).invoke(tool, args, principal);
        if (result.ok) {
          process.stdout.write(`${JSON.stringify(result.data, null, 2)}\n`);
        } else {
          process.stderr.write(`${JSON.stringify({ error: { code: result.code, message: result.message } }, null, 2)}\n`);
          process.exitCode = 1;
        }
      } finally {
        db.close();
      }
    });
}
