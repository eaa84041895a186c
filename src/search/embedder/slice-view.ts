/**
 * Slice and SplitV kernels for the USE-lite worker that copy only the part they return.
 *
 * TensorFlow.js's WASM Slice reads its WHOLE input out of the WASM heap into a fresh JavaScript array
 * (backend.readSync) before copying the slice from it, and SplitV is a Slice per part: a split into n parts
 * copies the input n + 1 times and leaves n arrays of garbage. USE lite splits its activations every layer; a CPU
 * profile of the worker (`node --cpu-prof`, see docs/performance.md) had that readSync at 10.5% of the worker's
 * time, plus the collector's share of the garbage. These kernels copy a float32 slice straight from a view of the
 * heap, run by run of the last axis as the stock kernel copies from its copy; other dtypes go to the kernel they
 * replaced. The values are the same bytes.
 *
 * The worker evaluates this function's SOURCE TEXT (see use-lite-worker.ts), so it must be self-contained: only
 * its parameters and globals, and `import type`.
 */
import type { KernelArgs, KernelFunc, KernelRegistry, TensorInfo } from './batched-matmul.js';

/** What the kernels need of TensorFlow.js besides its registry: the helpers its own Slice and SplitV use. */
export interface SliceHelpers {
  slice_util: {
    parseSliceParams(x: TensorInfo, begin: number | number[], size?: number | number[]): [number[], number[]];
    isSliceContinous(shape: number[], begin: number[], size: number[]): boolean;
    computeFlatOffset(begin: number[], strides: number[]): number;
  };
  util: {
    computeStrides(shape: number[]): number[];
    sizeFromShape(shape: number[]): number;
    parseAxisParam(axis: number | number[], shape: number[]): number[];
  };
  backend_util: { prepareSplitSize(x: TensorInfo, numOrSizeSplits: number | number[], axis: number): number[] };
}

/** Replaces the WASM backend's Slice and SplitV (call once its backend is ready). False if this TensorFlow.js lacks what they need. */
export function installSliceView(tf: KernelRegistry & SliceHelpers): boolean {
  const stockSlice = tf.getKernel('Slice', 'wasm')?.kernelFunc;
  const stockSplit = tf.getKernel('SplitV', 'wasm')?.kernelFunc;
  if (
    !stockSlice ||
    !stockSplit ||
    !tf.slice_util?.isSliceContinous ||
    !tf.util?.computeStrides ||
    !tf.backend_util?.prepareSplitSize
  )
    return false;

  /** x[begin, begin + size) of a float32 tensor, copied run by run of its last axis; undefined when the stock kernel must do it. */
  const copied = (args: KernelArgs, x: TensorInfo, begin: number[], size: number[]): TensorInfo | undefined => {
    const { backend } = args;
    const rank = x.shape.length;
    if (typeof backend.typedArrayFromHeap !== 'function' || x.dtype !== 'float32' || rank === 0) return undefined;
    const strides = tf.util.computeStrides(x.shape);
    const out = backend.makeOutput(size, 'float32');
    // Views are taken after makeOutput: allocating may grow the WASM memory, which replaces its buffer.
    const from = backend.typedArrayFromHeap(x);
    const to = backend.typedArrayFromHeap(out);
    if (tf.slice_util.isSliceContinous(x.shape, begin, size)) {
      const offset = tf.slice_util.computeFlatOffset(begin, strides);
      to.set(from.subarray(offset, offset + tf.util.sizeFromShape(size)));
      return out;
    }
    const run = size[rank - 1]!;
    const rows = tf.util.sizeFromShape(size.slice(0, -1));
    const at = size.slice(0, -1).map(() => 0); // index of the row within the slice, leading axes
    for (let r = 0; r < rows; r++) {
      let offset = begin[rank - 1]!;
      for (let d = 0; d < rank - 1; d++) offset += (begin[d]! + at[d]!) * strides[d]!;
      to.set(from.subarray(offset, offset + run), r * run);
      for (let d = rank - 2; d >= 0 && ++at[d]! === size[d]; d--) at[d] = 0;
    }
    return out;
  };

  const slice: KernelFunc = (args) => {
    const { x } = args.inputs as { x: TensorInfo };
    const [begin, size] = tf.slice_util.parseSliceParams(x, args.attrs.begin as number[], args.attrs.size as number[]);
    return copied(args, x, begin, size) ?? stockSlice(args);
  };

  // SplitV returns a list of tensors (TensorInfo[]); the registry's type says one.
  const split = ((args: KernelArgs) => {
    const { x } = args.inputs as { x: TensorInfo };
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x.shape)[0]!;
    const sizes = tf.backend_util.prepareSplitSize(x, args.attrs.numOrSizeSplits as number[], axis);
    const begin = x.shape.map(() => 0);
    const parts: TensorInfo[] = [];
    for (const s of sizes) {
      const size = x.shape.slice();
      size[axis] = s;
      const part = copied(args, x, begin.slice(), size);
      if (!part) {
        for (const p of parts) args.backend.disposeData(p.dataId);
        return stockSplit(args);
      }
      parts.push(part);
      begin[axis]! += s;
    }
    return parts;
  }) as unknown as KernelFunc;

  tf.unregisterKernel('Slice', 'wasm');
  tf.registerKernel({ kernelName: 'Slice', backendName: 'wasm', kernelFunc: slice });
  tf.unregisterKernel('SplitV', 'wasm');
  tf.registerKernel({ kernelName: 'SplitV', backendName: 'wasm', kernelFunc: split });
  return true;
}
