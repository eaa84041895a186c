/**
 * `npm run bench:stdio`: cold start of `vault-tools serve` to its first `initialize` answer (median of
 * 10 spawns) and the latency of read tools over a real stdio pipe with the MCP SDK client, on the demo
 * fixture vaults. Prints a table; numbers for docs and closing notes, not a test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = resolve(import.meta.dirname, '..', 'bin', 'vault-tools.js');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

function coldStart(dir: string, key: string): Promise<number> {
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--key', key, '--no-index'], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout.once('data', () => {
      done(Number(process.hrtime.bigint() - t0) / 1e6);
      child.stdin.end();
    });
    child.on('error', fail);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } })}\n`);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'vt-bench-'));
try {
  execFileSync(process.execPath, [BIN, 'demo', '--data-dir', dir, '--no-serve'], { stdio: 'ignore' });
  const key = readFileSync(join(dir, 'owner.key'), 'utf8').trim();
  const starts: number[] = [];
  for (let i = 0; i < 10; i++) starts.push(await coldStart(dir, key));

  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--data-dir', dir, '--key', key, '--no-index'], stderr: 'ignore' }));
  await client.listTools();
  const vault = 'northwind-logistics';
  const top = (await client.callTool({ name: 'list_findings', arguments: { vault, limit: 1 } })).structuredContent as { findings: { id: string }[] };
  const entityId = top.findings[0]!.id;
  const cases: [string, Record<string, unknown>][] = [
    ['stats', { vault }],
    ['list_findings', { vault }],
    ['get_entity', { vault, entityId, includeEvidence: true }],
    ['search_knowledge', { vault, query: 'warehouse' }],
    ['expand_graph', { vault, entityId, depth: 2 }],
  ];
  const rows = [`cold start to initialize answer: median ${median(starts).toFixed(1)} ms over 10 spawns (min ${Math.min(...starts).toFixed(1)}, max ${Math.max(...starts).toFixed(1)})`];
  for (const [name, args] of cases) {
    const times: number[] = [];
    for (let i = 0; i < 220; i++) {
      const t0 = process.hrtime.bigint();
      await client.callTool({ name, arguments: args });
      if (i >= 20) times.push(Number(process.hrtime.bigint() - t0) / 1e6); // first 20: warm-up
    }
    rows.push(`${name.padEnd(16)} p50 ${median(times).toFixed(2)} ms  p99 ${pct(times, 0.99).toFixed(2)} ms  (200 calls over stdio)`);
  }
  await client.close();
  process.stdout.write(`${rows.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
