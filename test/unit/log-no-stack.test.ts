/**
 * No stack reaches a person unless they asked for it (issue 53): below VAULT_TOOLS_LOG=debug, an error is logged as
 * one line naming it; at debug, with its stack. The level is read when the module loads, so each case runs the
 * logger in a fresh Node process.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const script = `import { log } from './src/log.ts'; log.error('tool x failed', new Error('disk on fire', { cause: new Error('EIO') }));`;
const stderrOf = (level: string): string =>
  spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, VAULT_TOOLS_LOG: level },
  }).stderr;

describe('an error in the log', () => {
  it('is one line without its stack at the info level', () => {
    expect(stderrOf('info')).toBe(
      '[vault-tools] error: tool x failed Error: disk on fire (cause: EIO) (VAULT_TOOLS_LOG=debug logs the stack)\n',
    );
  });

  it('carries its stack at the debug level', () => {
    expect(stderrOf('debug')).toMatch(/disk on fire\n\s+at /);
  });
});
