/**
 * Logging, always to stderr: in stdio mode stdout carries only MCP protocol messages.
 * VAULT_TOOLS_LOG=debug|info|warn|error|silent sets the level (info by default). An error's stack is written at the
 * debug level only: below it, a log line names the error in one sentence (issue 53: no stack reaches a person
 * unless they asked for it).
 */
import { inspect } from 'node:util';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof LEVELS;

const threshold =
  LEVELS[(process.env.VAULT_TOOLS_LOG as Level) in LEVELS ? (process.env.VAULT_TOOLS_LOG as Level) : 'info'];

function write(level: Exclude<Level, 'silent'>, message: string, detail?: unknown): void {
  if (LEVELS[level] < threshold) return;
  const extra =
    detail === undefined ? '' : ` ${detail instanceof Error ? describeError(detail) : inspect(detail, { depth: 4 })}`;
  process.stderr.write(`[vault-tools] ${level}: ${message}${extra}\n`);
}

/** An error as a log line tells it: its stack at the debug level, else its first line and how to see the stack. */
function describeError(err: Error): string {
  if (threshold <= LEVELS.debug) return err.stack ?? err.message;
  const cause = err.cause instanceof Error ? ` (cause: ${err.cause.message.split('\n')[0]})` : '';
  return `${err.name}: ${err.message.split('\n')[0]}${cause} (VAULT_TOOLS_LOG=debug logs the stack)`;
}

export const log = {
  debug: (m: string, d?: unknown) => write('debug', m, d),
  info: (m: string, d?: unknown) => write('info', m, d),
  warn: (m: string, d?: unknown) => write('warn', m, d),
  error: (m: string, d?: unknown) => write('error', m, d),
};
