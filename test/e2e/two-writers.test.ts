/**
 * Two `serve` processes on one data dir, writing at once: every write waits its turn for the store's write
 * lock (busy_timeout) instead of failing with `database is locked`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoStore, type DemoStore } from '../helpers.js';
import { callTool, startServer, type RunningServer } from '../http-helpers.js';

const VAULT = 'northwind-logistics';
const WRITERS = 4;
const CALLS_EACH = 60;

let store: DemoStore;
let servers: RunningServer[] = [];

beforeAll(async () => {
  store = demoStore();
  servers = await Promise.all([
    startServer(store.dir, ['--rate-limit', '0']),
    startServer(store.dir, ['--rate-limit', '0']),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  store?.cleanup();
});

describe('two serve processes on one store', () => {
  it(`${WRITERS} concurrent writers × ${CALLS_EACH} add_task across both servers: no errors, every task stored once`, async () => {
    const tasksStored = async (server: RunningServer) =>
      (await callTool(server.url, 'stats', { vault: VAULT }, store.ownerKey)).json().data.tasks.total as number;
    const before = await tasksStored(servers[0]!);
    const failures: string[] = [];
    const identifiers: string[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < CALLS_EACH; i++) {
          const server = servers[(w + i) % servers.length]!;
          const r = await callTool(
            server.url,
            'add_task',
            { vault: VAULT, title: `writer ${w} task ${i}` },
            store.ownerKey,
          );
          if (r.status !== 200) failures.push(`${r.status} ${r.body}`);
          else identifiers.push(r.json().data.identifier);
        }
      }),
    );
    expect(failures).toEqual([]);
    expect(identifiers).toHaveLength(WRITERS * CALLS_EACH);
    expect(new Set(identifiers).size).toBe(WRITERS * CALLS_EACH);
    expect(await tasksStored(servers[1]!)).toBe(before + WRITERS * CALLS_EACH);
  }, 120_000);
});
