/**
 * Native matrix products for the USE-lite worker, when the optional kernel was built at install time
 * (native/matmul.cc, scripts/build-native.mjs).
 *
 * The model's dense layers are 4/5 of its time (profile: `npx tsx bench/embed-profile.ts`): one product against
 * the weights per layer, as BatchMatMul of [tokens × in] by [in × out], or as a 1×1 Conv2D, which is the same
 * product. TensorFlow.js's WASM backend runs them through XNNPACK at 25-31 GFLOP/s per core; the native kernel
 * (AVX2 and FMA) at ~100. This replaces those two kernels: a plain product goes to the native kernel, reading
 * and writing the WASM heap in place; anything else (transposed, batched, strided or padded convolutions, other
 * dtypes) goes to the kernel it replaced. The vectors stay the WASM kernels' to within float rounding
 * (test/unit/native-matmul.test.ts).
 *
 * The worker evaluates this function's SOURCE TEXT (see use-lite-worker.ts), so it must be self-contained: only
 * its parameters and globals, and `import type`.
 */
import type { KernelFunc, KernelRegistry, TensorInfo, WasmBackend } from './batched-matmul.js';

/** What native/vault-tools-matmul.node exports. */
export interface NativeMatMul {
  /** Whether this CPU runs the kernel (x86-64 with AVX2 and FMA). */
  supported(): boolean;
  /** c = a · b, row-major: a is m × k, b is k × n, c is m × n. Throws on arrays shorter than that. */
  matmul(a: Float32Array, b: Float32Array, c: Float32Array, m: number, k: number, n: number): void;
}

/** Replaces the WASM backend's BatchMatMul and Conv2D with native ones for plain products (call once its backend is ready). False when nothing was installed. */
export function installNativeMatMul(tf: KernelRegistry, native: NativeMatMul): boolean {
  if (!native.supported()) return false;
  const stockMatMul = tf.getKernel('BatchMatMul', 'wasm')?.kernelFunc;
  const stockConv = tf.getKernel('Conv2D', 'wasm')?.kernelFunc;
  if (!stockMatMul || !stockConv) return false;
  const size = (dims: number[]) => dims.reduce((x, y) => x * y, 1);
  const ones = (v: unknown) => v === 1 || (Array.isArray(v) && v.every((x) => x === 1));

  /** out = a · b on the heap, with a as m × k and b as k × n. */
  const product = (
    backend: WasmBackend,
    a: TensorInfo,
    b: TensorInfo,
    m: number,
    k: number,
    n: number,
    shape: number[],
  ): TensorInfo => {
    const out = backend.makeOutput(shape, 'float32');
    // Views are taken after makeOutput: allocating may grow the WASM memory, which replaces its buffer.
    native.matmul(
      backend.typedArrayFromHeap(a),
      backend.typedArrayFromHeap(b),
      backend.typedArrayFromHeap(out),
      m,
      k,
      n,
    );
    return out;
  };

  const matMul: KernelFunc = (args) => {
    const { a, b } = args.inputs as { a: TensorInfo; b: TensorInfo };
    const { backend, attrs } = args;
    if (
      typeof backend.typedArrayFromHeap !== 'function' ||
      attrs.transposeA ||
      attrs.transposeB ||
      a.dtype !== 'float32' ||
      b.dtype !== 'float32'
    )
      return stockMatMul(args);
    if (
      a.shape.length < 2 ||
      b.shape.length < 2 ||
      size(a.shape.slice(0, -2)) !== 1 ||
      size(b.shape.slice(0, -2)) !== 1
    )
      return stockMatMul(args);
    const [m, k] = a.shape.slice(-2) as [number, number];
    const [k2, n] = b.shape.slice(-2) as [number, number];
    if (k !== k2 || m * k * n === 0) return stockMatMul(args);
    const lead = (a.shape.length >= b.shape.length ? a.shape : b.shape).slice(0, -2);
    return product(backend, a, b, m, k, n, [...lead, m, n]);
  };

  // A 1 × 1 convolution with stride 1 and no padding, channels last, is [pixels × in] · [in × out].
  const conv: KernelFunc = (args) => {
    const { x, filter } = args.inputs as { x: TensorInfo; filter: TensorInfo };
    const { backend, attrs } = args;
    const plain =
      typeof backend.typedArrayFromHeap === 'function' &&
      x.dtype === 'float32' &&
      filter.dtype === 'float32' &&
      x.shape.length === 4 &&
      filter.shape.length === 4 &&
      filter.shape[0] === 1 &&
      filter.shape[1] === 1 &&
      filter.shape[2] === x.shape[3] &&
      ones(attrs.strides) &&
      ones(attrs.dilations ?? 1) &&
      (attrs.dataFormat === undefined || attrs.dataFormat === 'NHWC' || attrs.dataFormat === 'channelsLast') &&
      (attrs.pad === 'same' || attrs.pad === 'valid' || attrs.pad === 0);
    if (!plain || size(x.shape) === 0) return stockConv(args);
    const [batch, height, width, channels] = x.shape as [number, number, number, number];
    const outChannels = filter.shape[3]!;
    return product(backend, x, filter, batch * height * width, channels, outChannels, [
      batch,
      height,
      width,
      outChannels,
    ]);
  };

  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({ kernelName: 'BatchMatMul', backendName: 'wasm', kernelFunc: matMul });
  tf.unregisterKernel('Conv2D', 'wasm');
  tf.registerKernel({ kernelName: 'Conv2D', backendName: 'wasm', kernelFunc: conv });
  return true;
}
