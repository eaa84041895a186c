/** Shared test setup: temp data dirs, the built CLI, and the fixture vaults as expectations. */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readVaultDir } from '../src/vault-format/read.js';
import { shiftDates, shiftDaysFor } from '../src/load/load.js';
import type { VaultFixture } from '../src/vault-format/schema.js';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin', 'vault-tools.js');
export const FIXTURE_DIRS = {
  northwind: join(ROOT, 'fixtures', 'northwind'),
  meridian: join(ROOT, 'fixtures', 'meridian'),
};

export function tempDir(prefix = 'vt-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs the built CLI; returns stdout. Throws with stderr on a non-zero exit. */
export function cli(args: string[], opts: ExecFileSyncOptions = {}): string {
  const env = {
    ...process.env,
    VAULT_TOOLS_KEY: '',
    VAULT_TOOLS_HOME: '',
    VAULT_TOOLS_INDEX: 'off',
    ...(opts.env ?? {}),
  };
  return execFileSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
    env,
  }) as string;
}

/** Runs the CLI expecting failure; returns its exit code, stdout and stderr. */
export function cliFails(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { status: number; stdout: string; stderr: string } {
  try {
    cli(args, { env });
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
  throw new Error(`expected vault-tools ${args.join(' ')} to fail`);
}

/** A fixture vault as the store holds it: dates shifted to today. */
export function fixture(name: keyof typeof FIXTURE_DIRS, now = new Date()): VaultFixture {
  const f = readVaultDir(FIXTURE_DIRS[name]);
  return shiftDates(f, shiftDaysFor(f.vault.referenceDate, now), f.vault.referenceDate);
}

export interface DemoStore {
  dir: string;
  ownerKey: string;
  memberKey(vaultId: string): string;
  cleanup(): void;
}

/** A data dir with the demo vaults loaded, its owner key, and member keys made on demand. */
export function demoStore(): DemoStore {
  const { dir, cleanup } = tempDir();
  cli(['demo', '--data-dir', dir, '--no-serve']);
  const ownerKey = execFileSync('cat', [join(dir, 'owner.key')], { encoding: 'utf8' }).trim();
  const members = new Map<string, string>();
  return {
    dir,
    ownerKey,
    memberKey(vaultId) {
      if (!members.has(vaultId)) {
        members.set(
          vaultId,
          JSON.parse(
            cli(['keys', 'create', '--vault', vaultId, '--json', '--name', `member ${vaultId}`, '--data-dir', dir]),
          ).key,
        );
      }
      return members.get(vaultId)!;
    },
    cleanup,
  };
}

/** An MCP SDK client of `vault-tools serve` over a real stdio pipe, on `store`, with `key`. */
export async function connectStdio(store: DemoStore, key: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--data-dir', store.dir, '--key', key],
    env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn', VAULT_TOOLS_INDEX: 'off' },
    stderr: 'pipe',
  });
  // Protocol 2026-07-28: the era a current client speaks (test/e2e/mcp-eras.test.ts covers the 2025 one too).
  const client = new Client(
    { name: 'vault-tools-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  await client.listTools(); // caches output schemas, so every callTool is validated against them
  return client;
}
