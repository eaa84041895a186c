/**
 * The embedder worker's Slice and SplitV (src/search/embedder/slice-view.ts) give the bytes TensorFlow.js's own
 * WASM kernels gave: contiguous and strided slices, splits along the first, middle and last axis, and the
 * dtypes they hand back to the stock kernels.
 */
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { installSliceView, type SliceHelpers } from '../../src/search/embedder/slice-view.js';
import type { KernelRegistry } from '../../src/search/embedder/batched-matmul.js';

const require = createRequire(import.meta.url);

interface Tensor {
  shape: number[];
  data(): Promise<Float32Array | Int32Array>;
}
interface Tf extends KernelRegistry, SliceHelpers {
  ready(): Promise<void>;
  getBackend(): string;
  tensor(values: Float32Array | Int32Array, shape: number[], dtype?: string): Tensor;
  slice(x: Tensor, begin: number[], size: number[]): Tensor;
  split(x: Tensor, sizes: number | number[], axis: number): Tensor[];
}

describe('copy-free Slice and SplitV', () => {
  let tf: Tf;
  const cases: { name: string; run(): Tensor[] }[] = [];
  const before = new Map<string, { shape: number[]; values: number[] }[]>();
  const read = async (ts: Tensor[]) =>
    Promise.all(ts.map(async (t) => ({ shape: t.shape, values: Array.from(await t.data()) })));

  beforeAll(async () => {
    tf = require('@energetic-ai/core') as Tf;
    await tf.ready();
    expect(tf.getBackend()).toBe('wasm');
    const x = tf.tensor(
      Float32Array.from({ length: 2 * 5 * 7 * 3 }, (_, i) => i * 0.5 - 7),
      [2, 5, 7, 3],
    );
    const m = tf.tensor(
      Float32Array.from({ length: 6 * 10 }, (_, i) => Math.sin(i)),
      [6, 10],
    );
    const ints = tf.tensor(
      Int32Array.from({ length: 24 }, (_, i) => i),
      [4, 6],
      'int32',
    );
    cases.push(
      { name: 'contiguous rows', run: () => [tf.slice(m, [2, 0], [3, 10])] },
      { name: 'strided columns', run: () => [tf.slice(m, [1, 3], [4, 5])] },
      { name: 'rank 4, every axis cut', run: () => [tf.slice(x, [1, 1, 2, 1], [1, 3, 4, 2])] },
      { name: 'split along the first axis', run: () => tf.split(x, [1, 1], 0) },
      { name: 'split along a middle axis', run: () => tf.split(x, [2, 4, 1], 2) },
      { name: 'split along the last axis', run: () => tf.split(m, 5, 1) },
      { name: 'int32 (stock kernel)', run: () => [tf.slice(ints, [1, 2], [2, 3]), ...tf.split(ints, 2, 1)] },
    );
    for (const c of cases) before.set(c.name, await read(c.run()));
    expect(installSliceView(tf)).toBe(true);
  });

  it('gives the same shapes and values as the kernels it replaced', async () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const want = before.get(c.name)!;
      expect(want.length, c.name).toBeGreaterThan(0);
      expect(await read(c.run()), c.name).toEqual(want);
    }
  });
});
