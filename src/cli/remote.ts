import type { Command } from 'commander';
import { forgetRemote, isCleartextRemote, parseRemoteUrl, saveRemote, storedRemote } from '../sync/config.js';
import { checkDataDir, CliError, resolveDataDir } from './context.js';
import { mkdirSync } from 'node:fs';

export function register(program: Command): void {
  const remote = program.command('remote').description('the hosted service this data dir syncs with');
  remote
    .command('set <url>')
    .description('store the remote URL (and its key, in a file only you can read) for `sync` and `serve --sync-every`')
    .option(
      '--key <key>',
      'the remote key (default: $VAULT_TOOLS_REMOTE_KEY; keeps a stored key when neither is given)',
    )
    .option('--data-dir <dir>', 'data directory')
    .action((url: string, opts: { key?: string; dataDir?: string }) => {
      try {
        parseRemoteUrl(url);
      } catch (err) {
        throw new CliError((err as Error).message, 2);
      }
      const { dir, why } = resolveDataDir(opts.dataDir);
      checkDataDir(dir, why, true);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      saveRemote(dir, url, opts.key ?? process.env.VAULT_TOOLS_REMOTE_KEY);
      const hasKey = storedRemote(dir).hasKey;
      process.stderr.write(`remote set to ${url}${hasKey ? ' (key stored)' : '; no key yet: add --key KEY'}\n`);
      if (isCleartextRemote(url)) {
        process.stderr.write(
          `warning: ${url} is plain http to another machine: the key and every answer would cross the network unencrypted; use https:// unless this network is yours alone\n`,
        );
      }
    });
  remote
    .command('show')
    .description('print the stored remote URL and whether a key is stored (never the key)')
    .option('--data-dir <dir>', 'data directory')
    .action((opts: { dataDir?: string }) => {
      const stored = storedRemote(resolveDataDir(opts.dataDir).dir);
      if (stored.broken) throw new CliError(stored.broken, 1);
      process.stdout.write(
        stored.url ? `${stored.url}  key: ${stored.hasKey ? 'stored' : 'missing'}\n` : 'no remote set\n',
      );
    });
  remote
    .command('remove')
    .description('forget the stored remote URL and key')
    .option('--data-dir <dir>', 'data directory')
    .action((opts: { dataDir?: string }) => forgetRemote(resolveDataDir(opts.dataDir).dir));
}
