/**
 * The layers stay one house (issue 20, docs/architecture.md): no import from a lower layer to a higher one, no
 * import circle, no surface or CLI module importing the store, and SQL only in the store and the search
 * indexes that own their tables. `npm run deps:check` prints the same list.
 */
import { describe, expect, it } from 'vitest';
import { layerBreaches } from '../../scripts/layer-rules.js';

describe('layer rules', () => {
  it('hold on the real import graph and the SQL of src/', async () => {
    expect(await layerBreaches()).toEqual([]);
  }, 120_000);
});
