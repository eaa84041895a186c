/**
 * One pass over a row source, sync or async, with a look-ahead sample: the writers size their columns
 * from the first rows, then stream the rest. The source is iterated once and never materialised; `close()`
 * (safe to call twice) returns the underlying iterator, so a SQLite statement is released even when the
 * writer fails before reading every row.
 */
type AnyIterator<T> = Iterator<T> | AsyncIterator<T>;

export class RowReader<T> implements AsyncIterable<T> {
  private done = false;
  private consumedHead = false;

  private constructor(
    private readonly iterator: AnyIterator<T>,
    /** The first rows, read ahead (at most the sample size). */
    readonly head: T[],
    exhausted: boolean,
  ) {
    this.done = exhausted;
  }

  static async open<T>(source: Iterable<T> | AsyncIterable<T>, sampleSize: number): Promise<RowReader<T>> {
    const iterator: AnyIterator<T> =
      Symbol.asyncIterator in source
        ? (source as AsyncIterable<T>)[Symbol.asyncIterator]()
        : (source as Iterable<T>)[Symbol.iterator]();
    const head: T[] = [];
    let exhausted = false;
    try {
      while (head.length < sampleSize) {
        const next = await iterator.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        head.push(next.value);
      }
    } catch (error) {
      try {
        await iterator.return?.();
      } catch {
        // the first error is the one worth reporting
      }
      throw error;
    }
    return new RowReader(iterator, head, exhausted);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    if (this.consumedHead) throw new Error('RowReader can be iterated only once');
    this.consumedHead = true;
    try {
      // Hand the sampled rows over one by one and let them go, so the sample is not kept alive.
      while (this.head.length) yield this.head.shift() as T;
      while (!this.done) {
        const next = await this.iterator.next();
        if (next.done) {
          this.done = true;
          break;
        }
        yield next.value;
      }
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.iterator.return?.();
  }
}

/** A macrotask turn: lets I/O callbacks (zip, file stream) run between batches of synchronous work. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
