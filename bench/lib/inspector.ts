/**
 * The V8 inspector of a server the bench started with `--inspect=127.0.0.1:0`: its JS heap after a full
 * collection, which tells objects the server keeps from garbage the collector simply has not reclaimed yet
 * (RSS alone cannot: V8 lets the heap grow while garbage is cheap to leave).
 */
import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'undici';

export const INSPECT_FLAG = '--inspect=127.0.0.1:0';

export class Inspector {
  private nextId = 1;
  private readonly waiting = new Map<number, (result: unknown) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
      if (msg.id !== undefined) this.waiting.get(msg.id)?.(msg.result), this.waiting.delete(msg.id);
    });
  }

  /** Connects to the inspector the child announces on stderr ("Debugger listening on ws://…"). */
  static async attach(child: ChildProcess): Promise<Inspector> {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const onData = (d: Buffer) => {
        err += d;
        const m = /Debugger listening on (ws:\/\/\S+)/.exec(err);
        if (m) child.stderr!.off('data', onData), resolve(m[1]!);
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) =>
        reject(new Error(`exited ${code} before its inspector listened: ${err.slice(-1000)}`)),
      );
    });
    const ws = new WebSocket(url);
    await new Promise(
      (resolve, reject) => (
        ws.addEventListener('open', resolve, { once: true }), ws.addEventListener('error', reject, { once: true })
      ),
    );
    return new Inspector(ws);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The main thread's JS heap in use after a full garbage collection, MB. */
  async heapAfterGcMb(): Promise<number> {
    await this.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await this.send('Runtime.getHeapUsage')) as { usedSize: number };
    return usedSize / 2 ** 20;
  }

  close(): void {
    this.ws.close();
  }
}
