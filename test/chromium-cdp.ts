/**
 * Headless Chromium driven over the DevTools protocol, for pages a person fills in (the OAuth consent page):
 * open a URL, run script in the page, take a screenshot. Debian's chromium, with scripts/chromium.mjs's flags.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
// @ts-expect-error: a plain .mjs helper shared with scripts/docs-screenshot.mjs
import { CHROMIUM, headlessFlags } from '../scripts/chromium.mjs';

export class Chromium {
  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
    private readonly socket: WebSocket,
  ) {
    socket.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data)) as {
        id?: number;
        method?: string;
        result?: unknown;
        error?: { message: string };
      };
      if (msg.id !== undefined) {
        const waiter = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) waiter?.reject(new Error(msg.error.message));
        else waiter?.resolve(msg.result);
      } else if (msg.method) for (const listener of this.listeners) listener(msg.method);
    });
  }

  private next = 1;
  private pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private listeners = new Set<(method: string) => void>();

  static async launch(): Promise<Chromium> {
    if (!CHROMIUM) throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
    const profile = mkdtempSync(join(tmpdir(), 'vt-cdp-'));
    const child = spawn(
      CHROMIUM as string,
      [...headlessFlags(profile), '--remote-debugging-port=0', '--window-size=900,1100', 'about:blank'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const browserWs = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 30_000);
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) clearTimeout(timer), resolve(m[1]!);
      });
    });
    const { port } = new URL(browserWs);
    const pages = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const socket = new WebSocket(pages.find((p) => p.type === 'page')!.webSocketDebuggerUrl);
    await new Promise(
      (resolve, reject) => (socket.addEventListener('open', resolve), socket.addEventListener('error', reject)),
    );
    const browser = new Chromium(child, profile, socket);
    await browser.send('Page.enable');
    return browser;
  }

  send<T = any>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Resolves on the next page load (after `action`, which starts it). */
  async loading(action: () => Promise<unknown>): Promise<void> {
    const loaded = new Promise<void>((resolve) => {
      const listener = (method: string) =>
        method === 'Page.loadEventFired' && (this.listeners.delete(listener), resolve());
      this.listeners.add(listener);
    });
    await action();
    await loaded;
  }

  goto(url: string): Promise<void> {
    return this.loading(() => this.send('Page.navigate', { url }));
  }

  /** An expression evaluated in the page, its value returned. */
  async evaluate<T = unknown>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    if (exceptionDetails) throw new Error(`in the page: ${JSON.stringify(exceptionDetails).slice(0, 500)}`);
    return result.value as T;
  }

  async screenshot(): Promise<Buffer> {
    return Buffer.from((await this.send<{ data: string }>('Page.captureScreenshot', { format: 'png' })).data, 'base64');
  }

  async close(): Promise<void> {
    this.socket.close();
    await new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
    rmSync(this.profile, { recursive: true, force: true });
  }
}
