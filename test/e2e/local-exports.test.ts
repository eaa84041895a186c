/**
 * An export_report is a file for the person at this machine, made from data upstream already holds: it leaves
 * no outbox entry "to push upstream", so it never waits in the outbox nor blocks an `import` of its vault.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cli, cliFails, demoStore, FIXTURE_DIRS, type DemoStore } from '../helpers.js';

const NW = 'northwind-logistics';
let store: DemoStore;
beforeAll(() => {
  store = demoStore();
});
afterAll(() => store?.cleanup());

it('export_report leaves the outbox empty, and an import of the vault goes ahead', () => {
  const exported = JSON.parse(
    cli(['call', 'export_report', '{"format":"csv","dataset":"conflicts"}', '--vault', NW, '--data-dir', store.dir]),
  ) as { artifactId: string; outboxSeq?: number };
  expect(exported.artifactId).toMatch(/^art_/);
  expect(exported.outboxSeq).toBeUndefined();
  const listed = JSON.parse(cli(['call', 'find_artifact', '{}', '--vault', NW, '--data-dir', store.dir])) as {
    artifacts: { artifactId: string }[];
  };
  expect(listed.artifacts.map((a) => a.artifactId)).toContain(exported.artifactId);
  expect(cli(['outbox', '--vault', NW, '--data-dir', store.dir])).toBe('the outbox is empty\n');
  // The import replaces the vault: nothing local stands in its way.
  expect(() => cli(['import', FIXTURE_DIRS.northwind, '--data-dir', store.dir])).not.toThrow();
});

it('a write upstream has (add_task) still waits in the outbox and still blocks an import', () => {
  cli(['call', 'add_task', JSON.stringify({ title: 'Local task' }), '--vault', NW, '--data-dir', store.dir]);
  expect(cli(['outbox', '--vault', NW, '--data-dir', store.dir])).toContain('add_task');
  const refused = cliFails(['import', FIXTURE_DIRS.northwind, '--data-dir', store.dir]);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toContain(
    'has local work not pushed upstream, which re-importing would discard: add_task 1 (1 outbox entry: 1 pending)',
  );
});
