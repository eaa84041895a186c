/**
 * Meaning from the start: `demo --no-serve` leaves the demo store hybrid-ready, so the first session answers a
 * question in other words than the speakers used. A store searched by words only because its vectors are
 * missing says so in the server log, once, with the command that fixes it. Real processes throughout.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, tempDir } from '../helpers.js';

const QUESTION = 'Why are trucks waiting so long at the Leeds dock?';

let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir('vt-demo-search-');
});
afterAll(() => tmp?.cleanup());

/** A session on `dir` with the background indexer off: what it finds is what `demo` left in the store. */
async function session(dir: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--data-dir', dir, '--no-index'],
    env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn' },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const client = new Client({ name: 'demo-search-test', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => log };
}

interface Found {
  mode: string;
  vectorCoverage: { chunks: number; withVectors: number };
  results: { meetingName: string; text: string; matchedBy: string[] }[];
}
const search = async (client: Client, query: string) =>
  (await client.callTool({ name: 'search_transcripts', arguments: { vault: 'northwind-logistics', query, limit: 5 } }))
    .structuredContent as Found;

describe('the demo store right after `demo --no-serve`', () => {
  it('answers the Leeds dock question in hybrid mode, by meaning too', async () => {
    const dir = `${tmp.dir}/demo`;
    const r = spawnSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve'], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: '' },
    });
    expect(r.status, r.stderr).toBe(0);
    // The demo vaults' vectors ship with the package: nothing to embed.
    expect(r.stderr).not.toContain('embedding the transcripts');
    expect(r.stderr).toMatch(
      /Search: words and meaning \(every transcript chunk has its vector; 184 chunk vectors shipped with the demo/,
    );
    const { client } = await session(dir);
    try {
      const found = await search(client, QUESTION);
      expect(found.mode).toBe('hybrid');
      expect(found.vectorCoverage.withVectors).toBe(found.vectorCoverage.chunks);
      expect(found.results.some((x) => x.matchedBy.includes('meaning'))).toBe(true);
      expect(found.results[0]!.text).toMatch(/dock|detention|wait/i);
      expect(found.results.map((x) => x.text).join(' ')).toMatch(/Leeds/);
    } finally {
      await client.close();
    }
    // A second run has nothing left to embed, and says the store is ready.
    const again = spawnSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve'], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_INDEX: '' },
    });
    expect(again.stderr).not.toContain('embedding the transcripts');
    expect(again.stderr).toContain('Search: words and meaning (every transcript chunk has its vector;');
  }, 300_000);
});

describe('a fresh folder started by an MCP client', () => {
  it('answers the first search_transcripts by words and meaning (hybrid), from the vectors shipped with the demo', async () => {
    const dir = `${tmp.dir}/client-started`;
    const started = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'demo', '--data-dir', dir],
      env: { PATH: process.env.PATH ?? '', HOME: tmp.dir, VAULT_TOOLS_LOG: 'warn' },
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    const client = new Client({ name: 'demo-first-question', version: '1' });
    try {
      await client.connect(transport);
      const found = await search(client, QUESTION);
      const seconds = (performance.now() - started) / 1000;
      process.stderr.write(
        `first search_transcripts answer of a client-started demo on a fresh folder: ${seconds.toFixed(1)} s from process start\n`,
      );
      expect(found.mode, log).toBe('hybrid');
      expect(found.vectorCoverage.withVectors).toBe(found.vectorCoverage.chunks);
      expect(found.results.some((x) => x.matchedBy.includes('meaning'))).toBe(true);
      expect(found.results.map((x) => x.text).join(' ')).toMatch(/Leeds/);
    } finally {
      await client.close();
    }
    // The keys are for a person at a terminal: a client keeps the server's stderr in its log files.
    const members = (JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8')) as { key: string }[]).map(
      (k) => k.key,
    );
    expect(members.length).toBe(2);
    for (const key of members) expect(log).not.toContain(key);
    expect(log).not.toContain('manager, all vaults:');
    expect(log).toContain('Demo keys: not printed, as an MCP client started this demo');
  }, 300_000);
});

describe('a person running the demo', () => {
  it('sees the keys', () => {
    const dir = `${tmp.dir}/person`;
    const r = spawnSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve'], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
    });
    expect(r.status, r.stderr).toBe(0);
    const members = (JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8')) as { key: string }[]).map(
      (k) => k.key,
    );
    for (const key of members) expect(r.stderr).toContain(key);
    expect(r.stderr).toMatch(/manager, all vaults: \S+/);
  }, 120_000);
});

describe('a store without vectors', () => {
  it('says once in the server log that it answers by words only, with the command that fixes it', async () => {
    const dir = `${tmp.dir}/words-only`;
    const printed = spawnSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve', '--no-index'], {
      encoding: 'utf8',
      env: { ...process.env, VAULT_TOOLS_INDEX: '' },
    });
    expect(printed.stderr).toContain(
      `Search: by words until the vector index is built (indexing is off): run \`vault-tools reindex --data-dir "${dir}"\``,
    );
    const { client, stderr } = await session(dir);
    try {
      const first = await search(client, QUESTION);
      await search(client, 'detention charges');
      expect(first.mode).toBe('words');
      expect(first.results.every((x) => x.matchedBy.join() === 'words')).toBe(true);
      const notes = stderr()
        .split('\n')
        .filter((l) => l.includes('answers by words only'));
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain(
        `search_transcripts in "Northwind Logistics" answers by words only (matchedBy: words): 0 of ${first.vectorCoverage.chunks} transcript chunks have vectors`,
      );
      expect(notes[0]).toContain(`vault-tools reindex --data-dir ${JSON.stringify(dir)}`);
    } finally {
      await client.close();
    }
    // The command it names is the fix.
    cli(['reindex', '--vault', 'northwind-logistics', '--data-dir', dir], { env: { VAULT_TOOLS_INDEX: '' } });
    const { client: after } = await session(dir);
    try {
      expect((await search(after, QUESTION)).mode).toBe('hybrid');
    } finally {
      await after.close();
    }
  }, 300_000);
});
