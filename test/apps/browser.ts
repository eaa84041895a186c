/**
 * One headless chromium for a whole test file, driven over the DevTools protocol: each view run is a new tab,
 * not a new browser (a browser start costs 1–3 s on a loaded machine; the views' file loads about twenty pages).
 * The page is the views' test host; it marks `#report[data-done]` when its scenario has run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
// @ts-expect-error: a plain .mjs helper shared with scripts/docs-screenshot.mjs
import { CHROMIUM, headlessFlags } from '../../scripts/chromium.mjs';

export interface Browser {
  /** The page's DOM once its scenario has run (`#report[data-done]`). */
  dom(url: string): Promise<string>;
  /** A PNG of the page at the given size once its scenario has run. */
  screenshot(url: string, file: string, width: number, height: number): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
  const profile = mkdtempSync(join(tmpdir(), 'vt-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM as string,
    [...headlessFlags(profile), '--remote-debugging-port=0', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${seen.slice(-500)}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}): ${seen.slice(-500)}`)));
  });
  const ws = new WebSocket(endpoint);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener(
      'error',
      (e) => reject(new Error(`DevTools connection failed: ${String((e as { message?: string }).message ?? e)}`)),
      { once: true },
    );
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });

  /** Opens `url` in a new tab of the given size, waits for the scenario's report, runs `then`, closes the tab. */
  async function withPage<T>(
    url: string,
    size: { width: number; height: number },
    then: (session: string) => Promise<T>,
  ): Promise<T> {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    try {
      const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
      await send('Emulation.setDeviceMetricsOverride', { ...size, deviceScaleFactor: 1, mobile: false }, sessionId);
      await send('Page.enable', {}, sessionId);
      // A tab in the background gets no animation frames and slow timers: this one is the one in front.
      await send('Page.bringToFront', {}, sessionId);
      await send('Emulation.setFocusEmulationEnabled', { enabled: true }, sessionId);
      await send('Page.navigate', { url }, sessionId);
      for (let waited = 0; ; waited += 50) {
        const { result } = await send(
          'Runtime.evaluate',
          { expression: "document.getElementById('report')?.dataset.done ?? ''", returnByValue: true },
          sessionId,
        );
        if (result.value === '1') break;
        if (waited > 20_000) {
          const { result: seen } = await send(
            'Runtime.evaluate',
            {
              expression:
                "(document.querySelector('iframe')?.contentDocument?.body?.innerText ?? 'no frame').slice(0, 300)",
              returnByValue: true,
            },
            sessionId,
          );
          throw new Error(`the page never finished: ${url}; the view shows: ${seen.value}`);
        }
        await sleep(50);
      }
      return await then(sessionId);
    } finally {
      await send('Target.closeTarget', { targetId }).catch(() => undefined);
    }
  }

  return {
    dom: (url) =>
      withPage(url, { width: 1280, height: 1600 }, async (session) => {
        const { result } = await send(
          'Runtime.evaluate',
          { expression: 'document.documentElement.outerHTML', returnByValue: true },
          session,
        );
        return String(result.value);
      }),
    screenshot: (url, file, width, height) =>
      withPage(url, { width, height }, async (session) => {
        // The host's resize and the last paint: two animation frames after everything so far has been laid out.
        await send(
          'Runtime.evaluate',
          {
            expression: 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))',
            awaitPromise: true,
          },
          session,
        );
        const { data } = await send('Page.captureScreenshot', { format: 'png' }, session);
        writeFileSync(file, Buffer.from(data as string, 'base64'));
      }),
    close: async () => {
      ws.close();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await Promise.race([exited, sleep(5000)]);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
