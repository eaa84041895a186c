/**
 * Runs tasks at most `concurrency` at a time, taking waiting callers in turn: each caller's tasks run in the order
 * they came, and a caller with a hundred tasks waiting gets one started, then every other waiting caller one, and
 * so on. One busy caller cannot make the others wait behind its whole queue (issue 45: a key's searches with
 * alternatives filled the one query embedder, and another key's search waited 11 s).
 *
 * A task whose turn comes at once is started synchronously, in the caller's turn of the event loop: a search posts
 * its query to the embedder's worker before it runs its words half, and that overlap must survive the queue.
 */
export class FairQueue {
  /** Callers with tasks waiting, in turn order (a Map keeps insertion order; a served caller goes to the back). */
  private readonly waiting = new Map<string, (() => void)[]>();
  private running = 0;
  /** Whose task started last: it does not start another while someone else waits. */
  private lastCaller: string | undefined;

  constructor(readonly concurrency = 1) {
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new RangeError(`concurrency must be a whole number of at least 1, not ${concurrency}`);
  }

  run<T>(caller: string, task: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency && this.waiting.size === 0) return this.start(caller, task);
    return new Promise<T>((resolve, reject) => {
      const queue = this.waiting.get(caller);
      const starter = () => void this.start(caller, task).then(resolve, reject);
      if (queue) queue.push(starter);
      else this.waiting.set(caller, [starter]);
    });
  }

  /** Tasks waiting for their turn, all callers together. */
  get pending(): number {
    let n = 0;
    for (const queue of this.waiting.values()) n += queue.length;
    return n;
  }

  private start<T>(caller: string, task: () => Promise<T>): Promise<T> {
    this.running++;
    this.lastCaller = caller;
    let promise: Promise<T>;
    try {
      promise = task();
    } catch (err) {
      promise = Promise.reject(err);
    }
    return promise.finally(() => {
      this.running--;
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.size > 0) {
      let [caller, queue] = this.waiting.entries().next().value!;
      if (caller === this.lastCaller && this.waiting.size > 1) {
        this.waiting.delete(caller);
        this.waiting.set(caller, queue);
        [caller, queue] = this.waiting.entries().next().value!;
      }
      const starter = queue.shift()!;
      this.waiting.delete(caller);
      if (queue.length) this.waiting.set(caller, queue); // to the back of the line
      starter();
    }
  }
}
