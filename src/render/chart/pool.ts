/**
 * One render worker, started on first use, reused between charts, replaced after a timeout or a crash.
 * Jobs run one at a time; the time limit of a job starts when the worker receives it (a cold start,
 * which loads vega, vega-lite, fontkit and resvg, is not charged to the chart).
 */
import { withTimeout } from '../../time.js';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FONT_FAMILY, fontFiles } from '../font.js';
import { ChartSpecError } from './errors.js';
import { cancelled, throwIfCancelled } from '../../service/errors.js';
import { workerSource, type RenderJob, type WorkerInit, type WorkerMessage } from './worker.js';

type Done = Extract<WorkerMessage, { type: 'done' }>;

const STARTUP_TIMEOUT_MS = 60_000;
/** Heap of the render worker: a spec that blows it up kills the worker, not the server. */
const WORKER_HEAP_MB = 1024;

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  dead: boolean;
  /** Receives the reply (or the worker's death) of the job in flight. */
  settle?: (reply: WorkerMessage | Error) => void;
}

let current: Slot | undefined;
let queue: Promise<unknown> = Promise.resolve();
let nextId = 1;

function workerInit(): WorkerInit {
  const require = createRequire(import.meta.url);
  return {
    vegaUrl: pathToFileURL(require.resolve('vega')).href,
    vegaLiteUrl: pathToFileURL(require.resolve('vega-lite')).href,
    resvgPath: require.resolve('@resvg/resvg-js'),
    fontkitPath: require.resolve('@pdf-lib/fontkit'),
    fontFiles: fontFiles(),
    fontFamily: FONT_FAMILY,
  };
}

function spawn(): Slot {
  const worker = new Worker(workerSource(), {
    eval: true,
    workerData: workerInit(),
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  let ready!: () => void;
  let failed!: (e: Error) => void;
  const slot: Slot = {
    worker,
    dead: false,
    ready: new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    }),
  };
  slot.ready.catch(() => {});
  worker.on('message', (msg: WorkerMessage) => {
    if (msg.type === 'ready') ready();
    else if (msg.type === 'fatal') {
      failed(new Error(`The chart renderer failed to start: ${msg.message}`));
      kill(slot);
    } else slot.settle?.(msg);
  });
  const die = (e: Error) => {
    slot.dead = true;
    if (current === slot) current = undefined;
    failed(e);
    slot.settle?.(e);
  };
  worker.on('error', die);
  worker.on('exit', (code) => die(new Error(`The chart renderer stopped (exit code ${code}).`)));
  worker.unref();
  return slot;
}

function kill(slot: Slot): void {
  slot.dead = true;
  slot.settle = undefined;
  if (current === slot) current = undefined;
  void slot.worker.terminate();
}

/**
 * Runs one job on the shared worker, after the jobs before it. When `signal` fires (the caller cancelled), a
 * queued job is skipped and a running one is stopped by terminating the worker: a heavy spec would otherwise
 * keep a core busy up to the time limit for an answer nobody reads. The next chart starts a fresh worker.
 */
export function runJob(job: Omit<RenderJob, 'id'>, timeoutMs: number, signal?: AbortSignal): Promise<Done> {
  const run = queue.then(() => execute({ ...job, id: nextId++ }, timeoutMs, signal));
  queue = run.catch(() => {});
  return run;
}

async function execute(job: RenderJob, timeoutMs: number, signal?: AbortSignal): Promise<Done> {
  throwIfCancelled(signal, 'render_chart');
  const slot = current && !current.dead ? current : (current = spawn());
  slot.worker.ref();
  let onAbort: (() => void) | undefined;
  try {
    await startup(slot);
    throwIfCancelled(signal, 'render_chart');
    return await new Promise<Done>((resolve, reject) => {
      const timer = setTimeout(() => {
        kill(slot);
        reject(
          new ChartSpecError(
            '',
            `Rendering took longer than the time limit of ${timeoutMs / 1000} s and was stopped. Make the spec cheaper: aggregate the data first, and avoid heavy transforms (loess, density, large sequences or flatten).`,
            'time',
          ),
        );
      }, timeoutMs);
      onAbort = () => {
        clearTimeout(timer);
        kill(slot);
        reject(cancelled('render_chart'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      slot.settle = (reply) => {
        clearTimeout(timer);
        slot.settle = undefined;
        if (reply instanceof Error) {
          kill(slot);
          const memory = (reply as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
          reject(memory ? new ChartSpecError('', `Rendering needed more than ${WORKER_HEAP_MB} MB of memory and was stopped. Aggregate the data and avoid transforms that multiply rows.`) : reply);
        } else if (reply.type === 'done') {
          resolve(reply);
        } else if (reply.type === 'refused') {
          reject(new ChartSpecError(reply.path, reply.message, reply.limit));
        }
      };
      try {
        slot.worker.postMessage(job);
      } catch (e) {
        clearTimeout(timer);
        slot.settle = undefined;
        reject(new ChartSpecError('', `The spec cannot be passed to the renderer: ${e instanceof Error ? e.message : String(e)}`));
      }
    });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    if (!slot.dead) slot.worker.unref();
  }
}

async function startup(slot: Slot): Promise<void> {
  try {
    await withTimeout(slot.ready, STARTUP_TIMEOUT_MS, () => new Error(`The chart renderer did not start within ${STARTUP_TIMEOUT_MS / 1000} s.`));
  } catch (e) {
    kill(slot);
    throw e;
  }
}

/** Stops the render worker (if any). The next render starts a new one. */
export async function closeChartRenderer(): Promise<void> {
  const slot = current;
  if (!slot) return;
  slot.settle?.(new Error('The chart renderer was closed.'));
  kill(slot);
  await slot.worker.terminate();
}
