/**
 * One renderer process, started on first use, reused between charts, replaced after a timeout or a crash.
 * Jobs run one at a time; the time limit of a job starts when the renderer receives it (a cold start,
 * which loads vega, vega-lite, fontkit and resvg, is not charged to the chart).
 *
 * Why a process and not a worker thread: V8 ends the whole process when any isolate fails an allocation,
 * and a worker's `resourceLimits` only catches a heap that grows step by step. One large allocation
 * (`sequence(0, 300000000)` fills a 300-million-slot array; a `quantile` step of 1e-8 grows past the limit
 * faster than the worker is stopped) aborted the server with `FATAL ERROR … heap out of memory`. A child
 * process with its own `--max-old-space-size` dies alone; the chart gets a 400 and the next chart a new one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { log } from '../../log.js';
import { withTimeout } from '../../time.js';
import { FONT_FAMILY, fontFiles } from '../font.js';
import { ChartSpecError } from './errors.js';
import { formatCount } from './limits.js';
import { cancelled, throwIfCancelled } from '../../core/errors.js';
import { rendererSource, type RenderJob, type WorkerInit, type WorkerMessage } from './worker.js';

type Done = Extract<WorkerMessage, { type: 'done' }>;

const STARTUP_TIMEOUT_MS = 60_000;
/** Heap of the renderer process (`--max-old-space-size`): a spec that blows it up kills the renderer, not the server. */
const RENDERER_HEAP_MB = 1024;
/** How much of the renderer's stderr is kept: enough to tell an out-of-memory death from another crash. */
const STDERR_TAIL_CHARS = 4096;

/** The renderer process ended while it was running a job or starting. */
class RendererExit extends Error {
  constructor(
    readonly outOfMemory: boolean,
    how: string,
  ) {
    super(`The chart renderer stopped (${how}).`);
  }
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  dead: boolean;
  /** The end of what the renderer wrote to stderr (V8 reports running out of memory there). */
  stderrTail: string;
  /** Receives the reply (or the renderer's death) of the job in flight. */
  settle?: (reply: WorkerMessage | Error) => void;
}

let current: Slot | undefined;
let queue: Promise<unknown> = Promise.resolve();
let nextId = 1;

function rendererInit(): WorkerInit {
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

function spawnRenderer(): Slot {
  // `node -` runs the script written to stdin: no file to ship or find, no command line length limit.
  // stdout is dropped (the server's stdout may carry MCP); stderr is read for the cause of a death.
  const child = spawn(process.execPath, [`--max-old-space-size=${RENDERER_HEAP_MB}`, '-'], {
    stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced', // structured clone: the PNG crosses as bytes, not as JSON
    windowsHide: true,
  });
  let ready!: () => void;
  let failed!: (e: Error) => void;
  const slot: Slot = {
    child,
    dead: false,
    stderrTail: '',
    ready: new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    }),
  };
  slot.ready.catch(() => {});
  child.stdin!.on('error', () => {}); // a renderer that dies at once closes its stdin; the exit reports it
  child.stdin!.end(rendererSource(rendererInit()));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    slot.stderrTail = (slot.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  child.on('message', (msg: WorkerMessage) => {
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
  child.on('error', die);
  // 'close' (not 'exit'): stderr is read to the end by then, so an out-of-memory report is in the tail.
  child.on('close', (code, signal) => {
    const outOfMemory = /heap out of memory|Allocation failed|invalid table size|invalid array length/i.test(
      slot.stderrTail,
    );
    if (!slot.dead && code !== 0)
      log.warn(
        `the chart renderer stopped (${signal ?? `exit code ${code}`})${outOfMemory ? ': out of memory' : ''}; the next chart starts a new one`,
      );
    die(new RendererExit(outOfMemory, signal ? `signal ${signal}` : `exit code ${code}`));
  });
  setRef(slot, false);
  return slot;
}

/** An idle renderer does not keep the server alive: its process, IPC channel and stderr pipe are unreferenced. */
function setRef(slot: Slot, on: boolean): void {
  const handles = [slot.child, slot.child.channel, slot.child.stderr] as (
    | { ref?(): void; unref?(): void }
    | null
    | undefined
  )[];
  for (const h of handles) (on ? h?.ref : h?.unref)?.call(h);
}

function kill(slot: Slot): void {
  slot.dead = true;
  slot.settle = undefined;
  if (current === slot) current = undefined;
  slot.child.kill('SIGKILL');
}

/** What the caller hears when the renderer died while drawing its chart: the spec is the likely cause. */
function deathError(e: RendererExit): ChartSpecError {
  return e.outOfMemory
    ? new ChartSpecError(
        '',
        `Rendering needed more than ${formatCount(RENDERER_HEAP_MB)} MB of memory and was stopped. Aggregate the data first, and avoid transforms that multiply rows (large sequences, flatten, fold, density, quantile with a small step).`,
        'memory',
      )
    : new ChartSpecError(
        '',
        `The chart renderer stopped while drawing this chart (${e.message.replace(/^The chart renderer stopped \((.*)\)\.$/, '$1')}). Simplify the spec: aggregate the data and avoid heavy transforms.`,
      );
}

/**
 * Runs one job on the shared renderer, after the jobs before it. When `signal` fires (the caller cancelled), a
 * queued job is skipped and a running one is stopped by killing the renderer: a heavy spec would otherwise
 * keep a core busy up to the time limit for an answer nobody reads. The next chart starts a fresh renderer.
 */
export function runJob(job: Omit<RenderJob, 'id'>, timeoutMs: number, signal?: AbortSignal): Promise<Done> {
  const run = queue.then(() => execute({ ...job, id: nextId++ }, timeoutMs, signal));
  queue = run.catch(() => {});
  return run;
}

async function execute(job: RenderJob, timeoutMs: number, signal?: AbortSignal): Promise<Done> {
  throwIfCancelled(signal, 'render_chart');
  const slot = current && !current.dead ? current : (current = spawnRenderer());
  setRef(slot, true);
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
          reject(reply instanceof RendererExit ? deathError(reply) : reply);
        } else if (reply.type === 'done') {
          resolve(reply);
        } else if (reply.type === 'refused') {
          reject(new ChartSpecError(reply.path, reply.message, reply.limit));
        }
      };
      slot.child.send(job, (e) => {
        if (!e || slot.settle === undefined) return;
        clearTimeout(timer);
        slot.settle = undefined;
        reject(new ChartSpecError('', `The spec cannot be passed to the renderer: ${e.message}`));
      });
    });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    if (!slot.dead) setRef(slot, false);
  }
}

async function startup(slot: Slot): Promise<void> {
  try {
    await withTimeout(
      slot.ready,
      STARTUP_TIMEOUT_MS,
      () => new Error(`The chart renderer did not start within ${STARTUP_TIMEOUT_MS / 1000} s.`),
    );
  } catch (e) {
    kill(slot);
    throw e;
  }
}

/** Stops the renderer (if any) and waits until its process has ended. The next render starts a new one. */
export async function closeChartRenderer(): Promise<void> {
  const slot = current;
  if (!slot) return;
  const ended =
    slot.child.exitCode !== null || slot.child.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => slot.child.once('close', resolve));
  setRef(slot, true); // keeps the process alive until the renderer has ended
  slot.settle?.(new Error('The chart renderer was closed.'));
  kill(slot);
  await ended;
}
