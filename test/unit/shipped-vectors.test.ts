/**
 * The demo vaults' vectors shipped in fixtures/vectors/ (src/search/shipped-vectors.ts): one for every
 * transcript chunk the demo loads, and each what the embedder gives that chunk today (a fixture edited without
 * `npm run fixtures:vectors` fails here, naming the chunks). The real model in its worker.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../src/search/embedder/index.js';
import { embedFixtureChunks, fixtureChunks } from '../../src/load/fixture-chunk-vectors.js';
import { readShippedVectors } from '../../src/search/shipped-vectors.js';
import { FIXTURE_DIRS } from '../helpers.js';

const embedder = createEmbedder({});
afterAll(() => embedder.close());
const chunks = fixtureChunks([FIXTURE_DIRS.northwind, FIXTURE_DIRS.meridian]);
const shipped = readShippedVectors(embedder)!;

describe('the vectors shipped for the demo vaults', () => {
  it('cover every transcript chunk of both vaults', () => {
    expect(shipped, `fixtures/vectors/${embedder.id}.json`).toBeDefined();
    expect(chunks.length).toBe(184);
    const missing = chunks.filter((c) => !shipped(c.contentHash)).map((c) => c.text.slice(0, 80));
    expect(missing).toEqual([]);
  });

  it('are what the embedder gives each chunk (every fourth: a changed text already fails the test above)', async () => {
    const sample = chunks.filter((_, i) => i % 4 === 0);
    const computed = await embedFixtureChunks(embedder, sample);
    const off = sample.flatMap((c) => {
      const a = shipped(c.contentHash)!;
      const b = computed.get(c.contentHash)!;
      let dot = 0;
      for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
      // The native and wasm kernels round differently in the last bits; a changed text moves the cosine far more.
      return dot > 0.9999 ? [] : [`${dot.toFixed(5)}: ${c.text.slice(0, 60)}`];
    });
    expect(off).toEqual([]);
  }, 240_000);
});
