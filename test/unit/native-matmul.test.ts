/**
 * The native matrix kernel (native/matmul.cc, built by `npm install` through scripts/build-native.mjs) and the
 * TensorFlow.js kernels that hand it plain products (src/search/embedder/native-matmul.ts).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers.js';
import type { KernelRegistry } from '../../src/search/embedder/batched-matmul.js';
import { installNativeMatMul, type NativeMatMul } from '../../src/search/embedder/native-matmul.js';
import { kernelCheck } from '../../src/cli/doctor.js';
import { describeKernel } from '../../src/search/embedder/types.js';
import { nativeKernelPath, UseLiteEmbedder } from '../../src/search/embedder/use-lite.js';

const require = createRequire(import.meta.url);
const path = nativeKernelPath({});
// The machines this project is built and tested on (x64 Linux with a C++ compiler) must have built it: a build
// that failed quietly would otherwise leave every test below skipped and the embedder at half speed.
const mustExist = process.arch === 'x64' && process.platform === 'linux';

/** A deterministic pseudo-random array in [-0.5, 0.5). */
function randomArray(length: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  return Float32Array.from({ length }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32 - 0.5;
  });
}

function reference(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) c[i * n + j]! += a[i * k + p]! * b[p * n + j]!;
  return c;
}

describe('native matrix kernel', () => {
  it('is built on x64 Linux', () => {
    if (mustExist)
      expect(
        path,
        'native/vault-tools-matmul.node: run `node scripts/build-native.mjs` to see why it was not built',
      ).toBeDefined();
  });

  describe('its install script (scripts/build-native.mjs)', () => {
    const tmp = tempDir('vt-native-build-');
    afterAll(() => tmp.cleanup());
    /** A copy of the package's script and source in a folder of its own, built with `env`. */
    const build = (name: string, source: string | undefined, env: NodeJS.ProcessEnv = {}, node = process.execPath) => {
      const root = join(tmp.dir, name);
      mkdirSync(join(root, 'scripts'), { recursive: true });
      mkdirSync(join(root, 'native'));
      copyFileSync(join(ROOT, 'scripts', 'build-native.mjs'), join(root, 'scripts', 'build-native.mjs'));
      if (source !== undefined) writeFileSync(join(root, 'native', 'matmul.cc'), source);
      const run = spawnSync(node, [join(root, 'scripts', 'build-native.mjs')], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      return {
        status: run.status,
        stdout: run.stdout,
        stderr: run.stderr,
        files: readdirSync(join(root, 'native')),
        root,
      };
    };

    it('never fails an install: a source that does not compile, no source, or VAULT_TOOLS_NATIVE=0 leave no kernel and say why in one line', () => {
      const broken = build('broken', 'int x = ;\n');
      expect(broken.status).toBe(0);
      expect(broken.stdout).toBe(''); // an install's stdout is not ours to use
      expect(broken.stderr).toMatch(
        /^vault-tools: native matrix kernel not built \(.*failed: .*matmul\.cc.*\); the offline embedder uses its WASM kernels/,
      );
      expect(broken.files).toEqual(['matmul.cc']); // no kernel, no partial file left behind
      const missing = build('missing', undefined);
      expect([missing.status, missing.files]).toEqual([0, []]);
      expect(missing.stderr).toContain('native/matmul.cc is missing');
      const off = build('off', 'int x = ;\n', { VAULT_TOOLS_NATIVE: '0' });
      expect([off.status, off.files]).toEqual([0, ['matmul.cc']]);
      expect(off.stderr).toContain('(VAULT_TOOLS_NATIVE=0)');
    });

    it.runIf(process.arch === 'x64')(
      "without Node's headers (no include/node beside the node that installs, no nodedir) skips in one line, downloading nothing",
      () => {
        // A Node prefix with the binary alone, as a bare binary install is: the script looks for headers there and in
        // npm_config_nodedir, and never asks node-gyp (which would fetch them from nodejs.org).
        const prefix = join(tmp.dir, 'bare-node');
        mkdirSync(join(prefix, 'bin'), { recursive: true });
        const node = join(prefix, 'bin', 'node');
        try {
          linkSync(process.execPath, node);
        } catch {
          copyFileSync(process.execPath, node);
          chmodSync(node, 0o755);
        }
        const bare = build(
          'no-headers',
          readFileSync(join(ROOT, 'native', 'matmul.cc'), 'utf8'),
          { npm_config_nodedir: '' },
          node,
        );
        expect(bare.status).toBe(0);
        expect(bare.stdout).toBe('');
        expect(bare.stderr).toBe(
          "vault-tools: native matrix kernel not built (Node's headers (include/node/node_api.h) are not on this machine); the offline embedder uses its WASM kernels, about half as fast.\n",
        );
        expect(bare.files).toEqual(['matmul.cc']);
      },
    );

    it.runIf(mustExist)('builds a kernel that loads and multiplies', () => {
      const built = build('good', readFileSync(join(ROOT, 'native', 'matmul.cc'), 'utf8'));
      expect(built.status).toBe(0);
      expect(built.stderr).toContain('native matrix kernel built');
      expect(built.files.sort()).toEqual(['matmul.cc', 'vault-tools-matmul.node']);
      const kernel = require(join(built.root, 'native', 'vault-tools-matmul.node')) as NativeMatMul;
      const c = new Float32Array(4);
      kernel.matmul(Float32Array.of(1, 2, 3, 4), Float32Array.of(5, 6, 7, 8), c, 2, 2, 2);
      expect(Array.from(c)).toEqual([19, 22, 43, 50]);
    });
  });

  describe.runIf(path)('matmul', () => {
    const native = (path ? require(path) : undefined) as NativeMatMul;

    it('equals a float64 product on shapes with every kind of edge', () => {
      expect(native.supported()).toBe(true);
      // Rows and columns that are and are not multiples of the 6 × 16 tile; a shared dimension across blocks of 256.
      for (const [m, k, n] of [
        [1, 1, 1],
        [6, 16, 16],
        [7, 5, 3],
        [13, 300, 37],
        [97, 513, 33],
        [200, 256, 48],
      ] as const) {
        const a = randomArray(m * k, m + k);
        const b = randomArray(k * n, k + n);
        const c = new Float32Array(m * n).fill(Number.NaN); // every cell must be written
        native.matmul(a, b, c, m, k, n);
        const want = reference(a, b, m, k, n);
        let worst = 0;
        for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(c[i]! - want[i]!));
        expect(worst, `${m} × ${k} × ${n}`).toBeLessThan(1e-5 * Math.sqrt(k));
      }
    });

    it('leaves what follows c untouched (it writes exactly m × n values)', () => {
      const c = new Float32Array(7 * 3 + 5).fill(42);
      native.matmul(randomArray(7 * 5, 1), randomArray(5 * 3, 2), c, 7, 5, 3);
      expect(Array.from(c.subarray(21))).toEqual([42, 42, 42, 42, 42]);
    });

    it('refuses arrays shorter than the shape, other types and bad sizes, with a clear error', () => {
      const f = (n: number) => new Float32Array(n);
      expect(() => native.matmul(f(3), f(4), f(4), 2, 2, 2)).toThrow('a, b or c is shorter than m, k and n say');
      expect(() => native.matmul(f(4), f(4), f(3), 2, 2, 2)).toThrow('a, b or c is shorter than m, k and n say');
      expect(() => native.matmul(new Float64Array(4) as never, f(4), f(4), 2, 2, 2)).toThrow(
        'a, b and c must be Float32Arrays',
      );
      expect(() => native.matmul([1, 2, 3, 4] as never, f(4), f(4), 2, 2, 2)).toThrow(
        'a, b and c must be Float32Arrays',
      );
      expect(() => native.matmul(f(4), f(4), f(4), 0, 2, 2)).toThrow('m, k and n must be integers from 1 to 2^24');
      expect(() => native.matmul(f(4), f(4), f(4), -1, 2, 2)).toThrow('m, k and n must be integers from 1 to 2^24');
      expect(() => (native.matmul as (...args: unknown[]) => void)(f(4), f(4), f(4), 2, 2)).toThrow(
        'takes 6 arguments',
      );
    });
  });

  describe.runIf(path)('as TensorFlow.js kernels', () => {
    interface Tensor {
      data(): Promise<Float32Array>;
      shape: number[];
    }
    let tf: KernelRegistry & {
      ready(): Promise<void>;
      tensor(values: Float32Array, shape: number[]): Tensor;
      matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
      conv2d(x: Tensor, filter: Tensor, strides: number | [number, number], pad: 'same' | 'valid'): Tensor;
    };
    const cases: { name: string; run(): Tensor }[] = [];
    const before = new Map<string, { shape: number[]; values: Float32Array }>();

    beforeAll(async () => {
      tf = require('@energetic-ai/core');
      await tf.ready();
      const t = (shape: number[], seed: number) =>
        tf.tensor(
          randomArray(
            shape.reduce((x, y) => x * y, 1),
            seed,
          ),
          shape,
        );
      const [x, w, y, batchA, batchB, image, filter1, filter3] = [
        t([37, 64], 1),
        t([64, 24], 2),
        t([24, 64], 3),
        t([3, 37, 64], 4),
        t([3, 64, 24], 5),
        t([2, 9, 7, 16], 6),
        t([1, 1, 16, 40], 7),
        t([3, 3, 16, 8], 8),
      ];
      cases.push(
        { name: 'plain product (native)', run: () => tf.matMul(x, w) },
        { name: 'transposed product (WASM)', run: () => tf.matMul(x, y, false, true) },
        { name: 'batched product (WASM)', run: () => tf.matMul(batchA, batchB) },
        { name: '1 × 1 convolution (native)', run: () => tf.conv2d(image, filter1, 1, 'same') },
        { name: '1 × 1 convolution with stride 2 (WASM)', run: () => tf.conv2d(image, filter1, 2, 'valid') },
        { name: '3 × 3 convolution (WASM)', run: () => tf.conv2d(image, filter3, 1, 'same') },
      );
      for (const c of cases) {
        const out = c.run();
        before.set(c.name, { shape: out.shape, values: await out.data() });
      }
      expect(installNativeMatMul(tf, require(path!) as NativeMatMul)).toBe(true);
    });

    it('gives what the WASM kernels gave, for the products they take and the ones they pass on', async () => {
      for (const c of cases) {
        const out = c.run();
        const want = before.get(c.name)!;
        expect(out.shape, c.name).toEqual(want.shape);
        const got = await out.data();
        let worst = 0;
        for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want.values[i]!));
        expect(worst, c.name).toBeLessThan(1e-5);
      }
    });
  });

  describe.runIf(path)('in the embedder', () => {
    it('runs the model in the worker, with the same vectors as WASM alone (VAULT_TOOLS_NATIVE=0)', async () => {
      const texts = [
        'Dock three receives refrigerated loads from the northern carriers each morning, and the night shift checks seals. '.repeat(
          4,
        ),
        'The oncology ward asked for a second pharmacy run on weekends.',
      ];
      const withNative = new UseLiteEmbedder();
      const saved = process.env.VAULT_TOOLS_NATIVE;
      process.env.VAULT_TOOLS_NATIVE = '0';
      const wasmOnly = new UseLiteEmbedder();
      try {
        const wasmVectors = await wasmOnly.embed(texts);
        if (saved === undefined) delete process.env.VAULT_TOOLS_NATIVE;
        else process.env.VAULT_TOOLS_NATIVE = saved;
        const nativeVectors = await withNative.embed(texts);
        expect(wasmOnly.kernel).toBe('wasm');
        expect(withNative.kernel).toBe('native');
        // What serve's indexer log and `reindex` say of it.
        expect(describeKernel(withNative)).toBe('native matrix kernel');
        expect(describeKernel(wasmOnly)).toBe('WASM kernels only');
        expect(describeKernel(new UseLiteEmbedder())).toBeUndefined(); // not loaded yet
        for (let i = 0; i < texts.length; i++)
          for (let d = 0; d < 512; d++)
            expect(Math.abs(nativeVectors[i]![d]! - wasmVectors[i]![d]!)).toBeLessThan(1e-5);
      } finally {
        if (saved === undefined) delete process.env.VAULT_TOOLS_NATIVE;
        else process.env.VAULT_TOOLS_NATIVE = saved;
        await Promise.all([withNative.close(), wasmOnly.close()]);
      }
    });
  });

  it('doctor names the kernel, and warns (with the command that says why) only when the install could have built it and did not', () => {
    const facts = { built: false, disabled: false, buildable: true };
    expect(kernelCheck('native', facts)).toEqual({ note: '; native matrix kernel' });
    expect(kernelCheck(undefined, facts)).toEqual({ note: '' }); // an endpoint embedder
    expect(kernelCheck('wasm', { ...facts, disabled: true })).toEqual({
      note: '; WASM kernels only, as VAULT_TOOLS_NATIVE=0 asks',
    });
    expect(kernelCheck('wasm', { ...facts, built: true })).toEqual({
      note: '; WASM kernels only (this CPU lacks AVX2 and FMA)',
    });
    expect(kernelCheck('wasm', { ...facts, buildable: false }).advice).toBeUndefined();
    const missing = kernelCheck('wasm', facts);
    expect(missing.note).toContain(
      'the native matrix kernel was not built at install, so embedding runs at about half speed',
    );
    expect(missing.advice).toEqual({
      warning: true,
      fix: expect.stringMatching(/^node \S*scripts\/build-native\.mjs builds it, or says why it cannot/),
    });
  });
});
