/**
 * A faster BatchMatMul kernel for the USE-lite worker.
 *
 * TensorFlow.js's WASM backend hands a matrix product to XNNPACK only when it is ONE product (batch 1, neither
 * side transposed). A batched one falls to a plain C loop at ~2 GFLOP/s. USE lite's attention is exactly that:
 * per layer, [texts × heads] products of up to 128 × 128, which took ~35% of the model's time (profile:
 * `npx tsx bench/embed-profile.ts`) against ~25 GFLOP/s for its other products. This kernel copies each product
 * of a batch into its own tensor and sends it down the fast path: about 1.5× fewer CPU seconds per text, with the
 * same vectors to within 3e-7 (test/unit/embedder.test.ts compares them with the library's own).
 *
 * The worker evaluates this function's SOURCE TEXT (see use-lite-worker.ts), so it must be self-contained: only
 * its parameter and globals, and `import type`.
 */

/** What the worker's kernels (this one and native-matmul.ts) need of a TensorFlow.js tensor (TensorInfo) and the WASM backend. */
export interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}
export interface WasmBackend {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array;
  disposeData(dataId: object): void;
}
export interface KernelArgs {
  inputs: Record<string, TensorInfo>;
  backend: WasmBackend;
  attrs: Record<string, unknown>;
}
export type KernelFunc = (args: KernelArgs) => TensorInfo;
export interface KernelRegistry {
  getKernel(name: string, backend: string): { kernelFunc: KernelFunc } | undefined;
  unregisterKernel(name: string, backend: string): void;
  registerKernel(config: { kernelName: string; backendName: string; kernelFunc: KernelFunc }): void;
}

/** Replaces the WASM backend's BatchMatMul (call once its backend is ready). False if this TensorFlow.js lacks what it needs: the stock kernel stays. */
export function installBatchedMatMul(tf: KernelRegistry): boolean {
  const kernel = (name: string) => tf.getKernel(name, 'wasm')?.kernelFunc;
  const single = kernel('BatchMatMul');
  const reshape = kernel('Reshape');
  const transpose = kernel('Transpose');
  const concat = kernel('Concat');
  if (!single || !reshape || !transpose || !concat) return false;
  const size = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

  const batched: KernelFunc = (args) => {
    const { backend } = args;
    const { a, b } = args.inputs as { a: TensorInfo; b: TensorInfo };
    const batch = size(a.shape.slice(0, -2));
    // One product (the fast path already), broadcasting, anything but float32, or a backend without heap views: the stock kernel.
    if (
      typeof backend.typedArrayFromHeap !== 'function' ||
      batch <= 1 ||
      batch !== size(b.shape.slice(0, -2)) ||
      a.dtype !== 'float32' ||
      b.dtype !== 'float32'
    )
      return single(args);
    const scratch: TensorInfo[] = [];
    const keep = (t: TensorInfo) => (scratch.push(t), t);
    // [batch, rows, cols], transposed here (one pass) when the product wants it so: each product is then plain.
    const asBatch = (x: TensorInfo, transposed: unknown) => {
      const [rows, cols] = x.shape.slice(-2) as [number, number];
      const flat = keep(reshape({ inputs: { x }, backend, attrs: { shape: [batch, rows, cols] } }));
      return transposed ? keep(transpose({ inputs: { x: flat }, backend, attrs: { perm: [0, 2, 1] } })) : flat;
    };
    const left = asBatch(a, args.attrs.transposeA);
    const right = asBatch(b, args.attrs.transposeB);
    const [, m, k] = left.shape as [number, number, number];
    const n = right.shape[2]!;
    // One product's operand, copied out of the batch (a contiguous block of the WASM heap).
    const part = (x: TensorInfo, i: number, rows: number, cols: number) => {
      const out = backend.makeOutput([1, rows, cols], 'float32');
      backend
        .typedArrayFromHeap(out)
        .set(backend.typedArrayFromHeap(x).subarray(i * rows * cols, (i + 1) * rows * cols));
      return out;
    };
    const products: TensorInfo[] = [];
    try {
      for (let i = 0; i < batch; i++) {
        const ai = part(left, i, m, k);
        const bi = part(right, i, k, n);
        try {
          products.push(single({ inputs: { a: ai, b: bi }, backend, attrs: { transposeA: false, transposeB: false } }));
        } finally {
          backend.disposeData(ai.dataId);
          backend.disposeData(bi.dataId);
        }
      }
      const joined = keep(
        concat({ inputs: products as unknown as Record<string, TensorInfo>, backend, attrs: { axis: 0 } }),
      ); // Concat takes a list
      return reshape({ inputs: { x: joined }, backend, attrs: { shape: [...a.shape.slice(0, -2), m, n] } });
    } finally {
      // A reshape shares its input's data (reference-counted): disposing the scratch tensors leaves `out` whole.
      for (const t of [...products, ...scratch]) backend.disposeData(t.dataId);
    }
  };

  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({ kernelName: 'BatchMatMul', backendName: 'wasm', kernelFunc: batched });
  return true;
}
