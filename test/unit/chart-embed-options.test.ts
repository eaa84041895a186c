/**
 * render_chart refuses a spec that sets `usermeta.embedOptions` (issue 36, item 1): vega-embed, which draws the
 * chart view, merges those options over the view's own, so a spec could turn the actions menu back on and have
 * "View Source" write its own script into a window. In-process, through the service, on a real store.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import type { Principal } from '../../src/core/principal.js';
import { closeChartRenderer } from '../../src/render/chart/index.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';

const NW = 'northwind-logistics';
let db: Db;
let cleanup: () => void;
let service: Service;
let owner: Principal;

beforeAll(() => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  db = openDb(dir);
  loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture' });
  owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key);
  service = new Service(db, { dataDir: dir });
});
afterAll(async () => {
  await closeChartRenderer();
  db.close();
  cleanup();
});

const spec = (usermeta?: object) => ({
  data: {
    values: [
      { a: 'North', b: 4 },
      { a: 'South', b: 7 },
    ],
  },
  mark: 'bar',
  encoding: { y: { field: 'a', type: 'nominal' }, x: { field: 'b', type: 'quantitative' } },
  ...(usermeta ? { usermeta } : {}),
});

/** The spec issue 36 reproduced with: the menu back on under an innocent name, a script in the source header. */
const HOSTILE_EMBED_OPTIONS = {
  actions: { source: true },
  sourceHeader: '<script>opener.top.__pwned = 1</script>',
  i18n: { SOURCE_ACTION: 'Open details' },
};

it('refuses usermeta.embedOptions, naming the field, and stores nothing', async () => {
  const before = (db.prepare('SELECT count(*) AS n FROM artifacts').get() as { n: number }).n;
  const r = await service.invoke(
    'render_chart',
    { vault: NW, title: 'Hostile', vega_lite_spec: spec({ embedOptions: HOSTILE_EMBED_OPTIONS }) },
    owner,
  );
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.code).toBe('invalid_arguments');
  expect(r.message).toMatch(/vega_lite_spec\.usermeta\.embedOptions/);
  expect(r.message).toMatch(/not allowed/);
  expect((db.prepare('SELECT count(*) AS n FROM artifacts').get() as { n: number }).n).toBe(before);
});

it('still accepts other usermeta (the renderer reads its own keys there)', async () => {
  const r = await service.invoke(
    'render_chart',
    { vault: NW, title: 'Fine', vega_lite_spec: spec({ valueLabels: false, note: 'kept' }) },
    owner,
  );
  expect(r.ok, r.ok ? '' : r.message).toBe(true);
}, 60_000);
