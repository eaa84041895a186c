/**
 * `npm run deps:check`: every breach of the layer rules (scripts/layer-rules.ts), printed by rule; exits 1 when
 * there is any. The same check runs in `npm test` (test/unit/layers.test.ts); this prints the whole list.
 */
import { layerBreaches } from './layer-rules.js';

const breaches = await layerBreaches();
let rule = '';
for (const b of breaches) {
  if (b.rule !== rule) console.log((rule = b.rule));
  console.log(`  ${b.what}`);
}
console.log(
  breaches.length ? `${breaches.length} violation(s) of the layer rules` : 'no violations of the layer rules',
);
process.exitCode = breaches.length ? 1 : 0;
