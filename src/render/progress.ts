/**
 * Progress and cancellation for the long tools (export_report, export_workbook). Rows are counted as the
 * writer pulls them; every `step` rows the caller's signal is checked (a cancelled export stops there and
 * throws `cancelled`, so the writer deletes its partial file and nothing is stored) and progress is reported.
 * The surfaces decide what a report becomes (MCP notifications/progress, throttled); without a listener this
 * costs a counter per row.
 */
import { throwIfCancelled } from '../core/errors.js';

export interface Tracking {
  signal?: AbortSignal;
  progress?(done: number, total?: number, message?: string): void;
  /** The tool's name, for the `cancelled` message. */
  what: string;
}

/** About this many reports per export, so even a small vault (150 findings) shows movement. */
const STEPS = 20;
/**
 * At most this many rows between two checks, so a 100,000-row export notices a cancel within a fraction of a
 * second (the writers handle thousands of rows per second, and let I/O in every few hundred).
 */
const MAX_STEP = 1000;

export const progressStep = (total: number) => Math.max(1, Math.min(MAX_STEP, Math.ceil(total / STEPS)));

export class RowProgress {
  private done = 0;
  private readonly step: number;

  constructor(
    private readonly total: number,
    private readonly tracking: Tracking,
  ) {
    this.step = progressStep(total);
  }

  /** Before the first row: a cancel that came early stops here; reports 0 of total. */
  start(): void {
    this.check();
    this.report();
  }

  /** Wraps one row source; several sources (sheets) share the count. */
  async *track<T>(rows: Iterable<T> | AsyncIterable<T>): AsyncGenerator<T> {
    for await (const row of rows) {
      yield row;
      this.done++;
      if (this.done % this.step === 0 || this.done === this.total) {
        this.check();
        this.report();
      }
    }
  }

  /** After the last row (before the file is finished and stored): the last chance to stop cheaply. */
  check(): void {
    throwIfCancelled(this.tracking.signal, this.tracking.what);
  }

  private report(): void {
    // Rows added while the export runs can take the count past the total read at the start: never report done > total.
    const total = Math.max(this.total, this.done);
    this.tracking.progress?.(this.done, total, `${this.done} of ${total} rows`);
  }
}
