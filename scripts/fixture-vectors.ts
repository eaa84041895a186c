// `npm run fixtures:vectors`: the demo vaults' chunk vectors from the default embedder, shipped in
// fixtures/vectors/<embedder id>.json so a fresh demo answers by meaning from its first search
// (src/search/shipped-vectors.ts). Run it after editing a fixture's transcripts.
import { mkdirSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FIXTURES_DIR } from '../src/package-info.js';
import { createEmbedder } from '../src/search/embedder/index.js';
import { embedFixtureChunks, fixtureChunks } from '../src/load/fixture-chunk-vectors.js';
import { encodeVector, shippedVectorsPath, type ShippedVectors } from '../src/search/shipped-vectors.js';

const dirs = readdirSync(FIXTURES_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(FIXTURES_DIR, d.name, 'vault.json')))
  .map((d) => join(FIXTURES_DIR, d.name));
const chunks = fixtureChunks(dirs);
const embedder = createEmbedder();
try {
  const vectors = await embedFixtureChunks(embedder, chunks);
  const file: ShippedVectors = {
    embedder: embedder.id,
    dims: embedder.dims,
    vectors: Object.fromEntries(
      [...vectors].sort(([a], [b]) => a.localeCompare(b)).map(([hash, v]) => [hash, encodeVector(v)]),
    ),
  };
  const path = shippedVectorsPath(embedder.id);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(file, null, 1)}\n`);
  process.stderr.write(`wrote ${path}: ${vectors.size} chunk vectors from ${embedder.id}\n`);
} finally {
  await embedder.close();
}
