import type { Command } from 'commander';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BIN_PATH, PACKAGE_ROOT } from '../package-info.js';
import { CliError } from './context.js';

/**
 * The data dir the client should pass: `--data-dir`, else VAULT_TOOLS_HOME (the client will not have this
 * shell's environment), made absolute because the client starts the server from a directory of its own.
 * A dir that does not exist yet gets `--init` (serve refuses to create a data dir it was not asked to).
 */
function dataDirArgs(command: 'demo' | 'serve', option: string | undefined): string[] {
  const given = option ?? process.env.VAULT_TOOLS_HOME;
  if (!given) return [];
  const dir = resolve(given);
  return ['--data-dir', dir, ...(command === 'serve' && !existsSync(dir) ? ['--init'] : [])];
}

/** The server names in a client's config: the demo's own, so writing one never replaces the other. */
export const SERVER_NAME = 'vault-tools';
export const DEMO_SERVER_NAME = 'vault-demo';

const CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
type Client = (typeof CLIENTS)[number];

/**
 * The command a client should run: this install's node and script when run from an install, else `npx -y vault-tools`.
 * This very Node, by its path, not the `node` a client's PATH finds first: the one this install was set up and
 * checked with (an older one is refused by bin/vault-tools.js in one sentence).
 */
function launch(args: string[]): { command: string; args: string[] } {
  const fromNpxCache = PACKAGE_ROOT.split(/[\\/]/).includes('_npx');
  if (fromNpxCache) {
    return process.platform === 'win32'
      ? { command: 'cmd', args: ['/c', 'npx', '-y', 'vault-tools', ...args] }
      : { command: 'npx', args: ['-y', 'vault-tools', ...args] };
  }
  return { command: process.execPath, args: [BIN_PATH, ...args] };
}

/** The same command as one shell line (demo's "Try:" line, Claude Code's `claude mcp add`), so both name one Node. */
export function shellCommand(args: string[]): string {
  const { command, args: all } = launch(args);
  return [command, ...all].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/** Where each client keeps its MCP servers, and under which key. */
function configFile(client: Client): { path: string; key: 'mcpServers' | 'servers' } | undefined {
  const home = homedir();
  switch (client) {
    case 'claude-desktop': {
      const base =
        process.platform === 'darwin'
          ? join(home, 'Library', 'Application Support')
          : process.platform === 'win32'
            ? (process.env.APPDATA ?? join(home, 'AppData', 'Roaming'))
            : (process.env.XDG_CONFIG_HOME ?? join(home, '.config'));
      return { path: join(base, 'Claude', 'claude_desktop_config.json'), key: 'mcpServers' };
    }
    case 'cursor':
      return { path: join(home, '.cursor', 'mcp.json'), key: 'mcpServers' };
    case 'vscode':
      return { path: join(process.cwd(), '.vscode', 'mcp.json'), key: 'servers' };
    case 'claude-code':
      return undefined; // configured with `claude mcp add`
  }
}

/** What to paste into a client (or, for Claude Code, the command to run) to start `vault-tools <args>`. */
export function clientSnippet(client: Client, serverArgs: string[], name = SERVER_NAME): string {
  if (client === 'claude-code') return `claude mcp add ${name} -- ${shellCommand(serverArgs)}`;
  const server = launch(serverArgs);
  const entry = client === 'vscode' ? { type: 'stdio', ...server } : server;
  return JSON.stringify({ [configFile(client)!.key]: { [name]: entry } }, null, 2);
}

/** ", which ran `<args>`" for an entry of ours, so the user sees what was replaced. */
function describeEntry(entry: unknown): string {
  const args = (entry as { args?: unknown } | null)?.args;
  return Array.isArray(args) && args.every((a) => typeof a === 'string')
    ? `, which ran \`${args.slice(1).join(' ')}\``
    : '';
}

export function register(program: Command): void {
  program
    .command('mcp-config')
    .description('print (or with --write, merge in) the MCP client configuration that starts this vault-tools')
    .option('--client <client>', `one of ${CLIENTS.join(', ')}`, 'claude-desktop')
    .option('--demo', 'start the demo (fixture vaults) rather than your own store')
    .option('--data-dir <dir>', 'the data dir the client should use')
    .option('--name <name>', `the server name in the client (default: ${SERVER_NAME}, with --demo ${DEMO_SERVER_NAME})`)
    .option('--write', "merge it into the client's config file (a .bak copy is kept)")
    .action((opts: { client: string; demo?: boolean; dataDir?: string; name?: string; write?: boolean }) => {
      if (!CLIENTS.includes(opts.client as Client))
        throw new CliError(`--client "${opts.client}": expected one of ${CLIENTS.join(', ')}`, 2);
      const client = opts.client as Client;
      const command = opts.demo ? 'demo' : 'serve';
      const name = opts.name ?? (opts.demo ? DEMO_SERVER_NAME : SERVER_NAME);
      const serverArgs = [command, ...dataDirArgs(command, opts.dataDir)];
      const snippet = clientSnippet(client, serverArgs, name);
      if (!opts.write) return void process.stdout.write(`${snippet}\n`);
      if (client === 'claude-code')
        throw new CliError('--write: Claude Code keeps its servers itself; run the printed command', 2);
      const target = configFile(client)!;
      const entry = (JSON.parse(snippet) as Record<string, Record<string, unknown>>)[target.key]![name];
      let config: Record<string, unknown> = {};
      if (existsSync(target.path)) {
        try {
          config = JSON.parse(readFileSync(target.path, 'utf8')) as Record<string, unknown>;
        } catch (err) {
          throw new CliError(
            `${target.path} is not valid JSON (${(err as Error).message}); fix or move it, then run again`,
          );
        }
        copyFileSync(target.path, `${target.path}.bak`);
      }
      const servers = (config[target.key] ?? {}) as Record<string, unknown>;
      const earlier = Object.hasOwn(servers, name) ? servers[name] : undefined;
      config[target.key] = { ...servers, [name]: entry };
      mkdirSync(dirname(target.path), { recursive: true });
      writeFileSync(target.path, `${JSON.stringify(config, null, 2)}\n`);
      const replaced =
        earlier === undefined
          ? ''
          : JSON.stringify(earlier) === JSON.stringify(entry)
            ? ` (it was already there, unchanged)`
            : ` (it replaced the earlier "${name}" entry${describeEntry(earlier)}; another --name keeps both)`;
      process.stderr.write(
        `wrote "${name}" into ${target.path}${replaced}${existsSync(`${target.path}.bak`) ? `; previous version: ${target.path}.bak` : ''}; restart the client\n`,
      );
    });
}
