/**
 * The stdio server against input a client should never send: a line over the 10 MiB limit is answered with
 * a JSON-RPC error naming the limit, and the server keeps serving the next message.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, demoStore, type DemoStore } from '../helpers.js';

let store: DemoStore;
beforeAll(() => {
  store = demoStore();
});
afterAll(() => store?.cleanup());

const line = (m: object) => `${JSON.stringify(m)}\n`;

describe('stdio input over the line limit', () => {
  it('answers an 11 MiB line with a JSON-RPC error naming the limit, then serves tools/list', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', store.dir, '--key', store.ownerKey], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, VAULT_TOOLS_KEY: '', VAULT_TOOLS_HOME: '', VAULT_TOOLS_INDEX: 'off' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {}); // a server that died must fail the assertions below, not the run
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const replies = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    const waitFor = async (n: number) => {
      const deadline = Date.now() + 20_000;
      while (replies().length < n && child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
    };
    try {
      child.stdin.write(
        line({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      );
      child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      await waitFor(1);
      const padding = 'x'.repeat(11 * 1024 * 1024);
      // A tools/call whose arguments make the line 11 MiB, its id first as many clients write it…
      child.stdin.write(
        line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stats', arguments: { padding } } }),
      );
      // …one with its id last, as the TypeScript SDK writes it, and one whose id cannot be read (a batch).
      child.stdin.write(
        line({
          jsonrpc: '2.0',
          method: 'tools/call',
          params: { name: 'stats', arguments: { padding, id: 99 } },
          id: 'third',
        }),
      );
      child.stdin.write(
        line([{ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'stats', arguments: { padding } } }]),
      );
      child.stdin.write(line({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
      await waitFor(5);
      const byId = new Map(replies().map((r) => [r.id, r]));
      expect(child.exitCode, stderr).toBeNull(); // still serving
      for (const id of [2, 'third', null]) {
        expect(byId.get(id)?.error?.code, `${id}: ${stdout.slice(0, 500)}`).toBe(-32600);
        expect(byId.get(id).error.message).toMatch(/over the limit of 10 MiB/);
      }
      expect(byId.get(5)?.result?.tools?.length).toBeGreaterThan(20);
      expect(replies()).toHaveLength(5); // initialize, three refusals, tools/list: nothing else ran
      expect(stderr).toMatch(/10 MiB/); // and the server's log says why

      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 40_000);
});

describe('a huge name or URI is not echoed back whole', () => {
  const huge = 'y'.repeat(5_000_000);
  it.each(['modern', 'legacy'] as const)(
    'unknown tool, prompt, resource and completion reference of 5,000,000 characters (%s era)',
    { timeout: 60_000 },
    async (era) => {
      const { connectMcp } = await import('../mcp-clients.js');
      const client = await connectMcp({ era, wire: 'stdio', dataDir: store.dir, key: store.ownerKey });
      try {
        const tool = await client.callTool({ name: huge, arguments: {} });
        expect(tool.isError).toBe(true);
        const message = JSON.parse(tool.content[0].text).error.message as string;
        expect(message).toContain('of 5,000,000 characters');
        expect(JSON.stringify(tool).length).toBeLessThan(2_000);
        const refusals = [
          () => client.getPrompt({ name: huge }),
          () => client.readResource({ uri: `vault-tools://${huge}` }),
          () => client.complete({ ref: { type: 'ref/resource', uri: huge }, argument: { name: 'vault', value: '' } }),
        ];
        for (const refusal of refusals) {
          const error = await refusal().then(
            () => undefined,
            (err: Error & { data?: unknown }) => err,
          );
          expect(error).toBeInstanceOf(Error);
          expect(error!.message).toMatch(/of 5,000,0\d\d characters/);
          expect(error!.message.length + JSON.stringify(error!.data ?? null).length).toBeLessThan(2_000);
        }
      } finally {
        await client.close();
      }
    },
  );
});
