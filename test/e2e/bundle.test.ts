/**
 * The MCP Bundle (`npm run bundle`): the official packer accepts it, and once unpacked its server starts
 * exactly as the manifest tells Claude Desktop to start it, and answers the MCP SDK client. Its native modules are
 * Node-API builds (better-sqlite3 13's prebuilt binary for this platform), so one bundle serves every Node line from
 * 22 on; the test runs it on Node 24, the line where better-sqlite3 12 aborted the process (src/store/db.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { ROOT, tempDir } from '../helpers.js';

/** The Node line the bundle is checked on and run by (as Claude Desktop's own Node would run it). */
const TARGET = 24;
let targetBin: string;
const MCPB = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
let tmp: { dir: string; cleanup(): void };
let unpacked: string;
let manifest: {
  server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  user_config: Record<string, { type: string; sensitive?: boolean }>;
  tools: { name: string }[];
  compatibility: { platforms: string[]; runtimes: { node: string } };
};

beforeAll(() => {
  tmp = tempDir('vt-bundle-');
  targetBin = execFileSync(process.execPath, [join(ROOT, 'scripts', 'node-version.mjs'), String(TARGET)], {
    encoding: 'utf8',
  }).trim();
  const file = execFileSync(
    process.execPath,
    [join(ROOT, 'scripts', 'bundle.mjs'), '--out', tmp.dir, '--node', String(TARGET)],
    { encoding: 'utf8' },
  ).trim();
  expect(file).toMatch(new RegExp(`vault-tools-[\\d.]+-${process.platform}-${process.arch}\\.mcpb$`));
  unpacked = join(tmp.dir, 'unpacked');
  execFileSync(process.execPath, [MCPB, 'unpack', file, unpacked], { stdio: 'ignore' });
  manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
}, 300_000); // nothing is compiled: the copy, the check on the target Node and the packing
afterAll(() => tmp?.cleanup());

it('is a valid bundle with the catalog, a data dir and an optional remote and key', () => {
  execFileSync(process.execPath, [MCPB, 'validate', join(unpacked, 'manifest.json')], { stdio: 'ignore' }); // throws on a non-zero exit
  expect(manifest.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
  expect(manifest.compatibility).toEqual({ platforms: [process.platform], runtimes: { node: '>=22.0.0' } });
  expect(manifest.user_config.data_dir?.type).toBe('directory');
  expect(manifest.user_config.remote_url?.type).toBe('string');
  expect(manifest.user_config.remote_key?.sensitive).toBe(true);
  expect(existsSync(join(unpacked, manifest.server.entry_point))).toBe(true);
  // Production dependencies only, native module built.
  const modules = readdirSync(join(unpacked, 'node_modules'));
  expect(modules).toContain('better-sqlite3');
  expect(modules).not.toContain('vitest');
  // better-sqlite3 13's Node-API binary for this platform alone.
  expect(readdirSync(join(unpacked, 'node_modules', 'better-sqlite3', 'prebuilds'))).toContain(
    `${process.platform}-${process.arch}.node`,
  );
  expect(
    readdirSync(join(unpacked, 'node_modules', 'better-sqlite3', 'prebuilds')).every((f) =>
      f.endsWith(`-${process.arch}.node`),
    ),
  ).toBe(true);
  // The embedder's native matrix kernel travels with it when this install built it.
  expect(existsSync(join(unpacked, 'native', 'vault-tools-matmul.node'))).toBe(
    existsSync(join(ROOT, 'native', 'vault-tools-matmul.node')),
  );
});

it('starts as the manifest says and serves the demo vaults to the SDK client', async () => {
  const data = join(tmp.dir, 'data');
  // Run by the target Node: better-sqlite3 12 aborted this line's process when a statement was collected.
  execFileSync(
    join(targetBin, 'node'),
    [join(unpacked, 'bin', 'vault-tools.js'), 'demo', '--data-dir', data, '--no-serve'],
    { stdio: 'ignore', env: { ...process.env, VAULT_TOOLS_INDEX: 'off' } },
  );
  // What Claude Desktop does: ${__dirname} is the bundle's folder, ${user_config.x} the user's answer or empty.
  const answers: Record<string, string> = { data_dir: data, remote_url: '', remote_key: '', sync_every_minutes: '' };
  const fill = (s: string) =>
    s.replaceAll('${__dirname}', unpacked).replace(/\$\{user_config\.(\w+)\}/g, (_, k: string) => answers[k] ?? '');
  const { command, args, env } = manifest.server.mcp_config;
  const client = new Client({ name: 'bundle-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command,
      args: args.map(fill),
      // Claude Desktop's own Node, first on PATH for the manifest's `node`.
      env: {
        PATH: `${targetBin}${delimiter}${process.env.PATH ?? ''}`,
        VAULT_TOOLS_INDEX: 'off',
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)])),
      },
      stderr: 'pipe',
    }),
  );
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    const stats = await client.callTool({ name: 'stats', arguments: { vault: 'northwind-logistics' } });
    expect(stats.isError).toBeFalsy();
    expect((stats.structuredContent as { vault: { id: string } }).vault.id).toBe('northwind-logistics');
  } finally {
    await client.close();
  }
}, 60_000);

it('on Node 20, its entry point says in one sentence which Node it needs and exits 1, before loading anything', () => {
  const node20 = execFileSync(process.execPath, [join(ROOT, 'scripts', 'node-version.mjs'), '20'], {
    encoding: 'utf8',
  }).trim();
  const { command, args } = manifest.server.mcp_config;
  const data = join(tmp.dir, 'data-20');
  const r = spawnSync(
    command,
    args.map((a) => a.replaceAll('${__dirname}', unpacked)),
    {
      env: { PATH: `${node20}${delimiter}${process.env.PATH ?? ''}`, VAULT_TOOLS_HOME: data },
      encoding: 'utf8',
    },
  );
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    /^vault-tools needs Node\.js 22, 24 or 26 and this is Node\.js 20\.[\d.]+ \(\S+\): install Node\.js 26 .*\n$/,
  );
  expect(r.stderr.split('\n')).toHaveLength(2);
  expect(existsSync(data)).toBe(false);
}, 120_000);
