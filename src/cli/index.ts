/** The `vault-tools` command line: one file per command, registered here. */
import { Command, CommanderError } from 'commander';
import { PACKAGE_VERSION } from '../package-info.js';
import { CliError } from './context.js';
import * as serve from './serve.js';
import * as demo from './demo.js';
import * as importCmd from './import.js';
import * as keys from './keys.js';
import * as call from './call.js';
import * as toolsCmd from './tools.js';
import * as outbox from './outbox.js';
import * as reindex from './reindex.js';
import * as mcpConfig from './mcp-config.js';
import * as doctor from './doctor.js';
import * as sync from './sync.js';
import * as remote from './remote.js';
import * as backup from './backup.js';
import * as restore from './restore.js';
import * as exportCmd from './export.js';
import { log } from '../log.js';
import { ServiceError } from '../core/errors.js';

// A reader that stops early (`vault-tools tools --json | head`, a client that quits) closes our stdout: its
// choice, not our failure, so leave quietly instead of dying on an unhandled EPIPE with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const program = new Command()
  .name('vault-tools')
  .description('Local MCP server and REST twin of the Vault Knowledge and Actions Service')
  .version(PACKAGE_VERSION)
  // A usage error is one line in our own voice, commander's suggestion on it ("vault-tools: unknown command
  // 'serv' (did you mean serve?)"), then where to see them all: not forty lines of help. Subcommands inherit this.
  .configureOutput({
    outputError: (str, write) =>
      write(str.replace(/^error: /, 'vault-tools: ').replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')),
  })
  .exitOverride();

for (const command of [
  serve,
  demo,
  importCmd,
  keys,
  call,
  toolsCmd,
  outbox,
  reindex,
  mcpConfig,
  doctor,
  sync,
  remote,
  backup,
  restore,
  exportCmd,
])
  command.register(program);

/** After a usage error, the command that lists what this one takes: `vault-tools keys --help`. */
function pointToHelp(cmd: Command, path: string[]): void {
  const what = cmd.commands.length ? 'its commands' : 'its options';
  cmd.showHelpAfterError(`(\`${[...path, '--help'].join(' ')}\` lists ${path.length === 1 ? 'the commands' : what})`);
  for (const sub of cmd.commands) pointToHelp(sub, [...path, sub.name()]);
}
pointToHelp(program, ['vault-tools']);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode;
  } else if (err instanceof CliError) {
    process.stderr.write(`vault-tools: ${err.message}\n`);
    process.exitCode = err.exitCode;
  } else if (err instanceof ServiceError) {
    // A sentence written for a person (e.g. the owner key a restore brought, auth/keys.ts), not a failure to log.
    process.stderr.write(`vault-tools: ${err.message}\n`);
    process.exitCode = 1;
  } else {
    log.error('unexpected failure', err);
    process.exitCode = 1;
  }
}
