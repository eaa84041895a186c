/**
 * Property test: random and malformed bodies to every tool never produce a 5xx, never take the server
 * down, and never change the store.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { demoServer, http } from '../http-helpers.js';
import { sampleArgs } from '../sample-args.js';
import { loadSqlite } from '../../src/store/db.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const demo = demoServer();

function storeDigest(dir: string): string {
  const db = new Database(join(dir, 'vault-tools.db'), { readonly: true });
  const hash = createHash('sha256');
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const t of tables) hash.update(t).update(JSON.stringify(db.prepare(`SELECT * FROM "${t}" ORDER BY 1`).all()));
  db.close();
  return hash.digest('hex');
}

/** Bodies from plausible to hostile: sample arguments with fields mutated, random JSON, random text. */
const body = (tool: string) =>
  fc.oneof(
    fc
      .subarray(Object.entries(sampleArgs(tool, 'northwind-logistics')))
      .map((entries) => JSON.stringify(Object.fromEntries(entries))),
    fc
      .record({
        key: fc.constantFrom(
          ...Object.keys(sampleArgs(tool, 'northwind-logistics')),
          'vault',
          'limit',
          'cursor',
          '__proto__',
          'constructor',
        ),
        value: fc.jsonValue(),
      })
      .map(({ key, value }) => JSON.stringify({ ...sampleArgs(tool, 'northwind-logistics'), [key]: value })),
    fc.dictionary(fc.string(), fc.jsonValue()).map((d) => JSON.stringify(d)),
    fc.json(),
    fc.string(),
    fc.constantFrom(
      '{',
      '{"vault":',
      'null',
      '[]',
      '{"limit":1e400}',
      '{"vault":"\u0000"}',
      '{"query":"\\ud800"}',
      '\u0000\u0001',
    ),
  );

const post = (tool: string, payload: string) =>
  http(demo.server.url, {
    method: 'POST',
    path: `/v1/tools/${tool}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.store.ownerKey}` },
    body: payload,
  });

it('read tools: no 5xx, the process stays up, the store is unchanged', async () => {
  const before = storeDigest(demo.store.dir);
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(
      fc
        .constantFrom(...tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name))
        .chain((tool) => fc.tuple(fc.constant(tool), body(tool))),
      async ([tool, payload]) => {
        const r = await post(tool, payload);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        expect(r.status, `${tool} ${payload.slice(0, 200)} → ${r.body.slice(0, 300)}`).toBeLessThan(500);
        expect(() => r.json()).not.toThrow();
      },
    ),
    { numRuns: 600 },
  );
  expect(demo.server.child.exitCode).toBeNull();
  expect((await http(demo.server.url, { path: '/v1' })).status).toBe(200);
  expect(storeDigest(demo.store.dir)).toBe(before);
  expect(statuses.get(200)).toBeGreaterThan(0); // the mix reaches real tool runs, not only refusals
  expect(statuses.get(400)).toBeGreaterThan(0);
}, 120_000);

it('write tools: no 5xx, and a refused write changes nothing', async () => {
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(
      fc
        .constantFrom(...tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name))
        .chain((tool) => fc.tuple(fc.constant(tool), body(tool))),
      async ([tool, payload]) => {
        const before = storeDigest(demo.store.dir);
        const r = await post(tool, payload);
        expect(r.status, `${tool} ${payload.slice(0, 200)} → ${r.body.slice(0, 300)}`).toBeLessThan(500);
        if (r.status !== 200) {
          refused++;
          expect(storeDigest(demo.store.dir), `${tool} refused with ${r.status} but changed the store`).toBe(before);
        }
      },
    ),
    { numRuns: 150 },
  );
  expect(refused).toBeGreaterThan(0);
  expect(demo.server.child.exitCode).toBeNull();
}, 120_000);
