/**
 * The node side of the views' browser test: `vault-tools serve` on a demo store, a real MCP client of it, and a
 * small page server for headless chromium: /host.html (test/apps/host.ts, bundled), /scenario (the view's HTML
 * from resources/read, a real tool call's input and result) and /call (the view's tool calls, forwarded to the
 * server through the client and recorded).
 */
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import type { McpTestClient } from '../mcp-clients.js';

export interface ViewScenario {
  view: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
  theme?: 'light' | 'dark';
  /** Whose key the view's calls go out with (default: the client the host was started with). */
  client?: McpTestClient;
}

export interface ViewHost {
  url: string;
  /** Wall-clock ms from the host page loading the view's HTML into its iframe to the view's first content (last run). */
  firstPaintMs(): number | undefined;
  /** The tool calls the views made, in order. */
  calls: { name: string; arguments?: Record<string, unknown> }[];
  setScenario(s: ViewScenario): void;
  close(): Promise<void>;
}

export async function startViewHost(client: McpTestClient): Promise<ViewHost> {
  const bundle = await build({
    entryPoints: [join(ROOT, 'test', 'apps', 'host.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error',
  });
  const page = `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}#stage{height:100%}#report{display:none}</style></head><body><div id="stage"></div><pre id="report"></pre><script>${bundle.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;
  let scenario: ViewScenario | undefined;
  const calls: ViewHost['calls'] = [];
  // Timed here, in real time: inside chromium the clock is virtual (--virtual-time-budget skips idle waits).
  let scenarioAt = 0;
  let paintedAt = 0;
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url!, 'http://host');
      if (url.pathname === '/host.html')
        return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      if (url.pathname === '/started')
        return void ((scenarioAt = performance.now()), (paintedAt = 0), res.writeHead(204).end());
      if (url.pathname === '/painted') return void ((paintedAt = performance.now()), res.writeHead(204).end());
      if (url.pathname === '/scenario' && scenario) {
        const { contents } = await (scenario.client ?? client).readResource({
          uri: `ui://vault-tools/${scenario.view}.html`,
        });
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            html: contents[0].text,
            input: scenario.input,
            result: scenario.result,
            theme: scenario.theme ?? 'light',
          }),
        );
      }
      if (url.pathname === '/call' && req.method === 'POST') {
        let body = '';
        for await (const chunk of req) body += chunk;
        const call = JSON.parse(body) as ViewHost['calls'][number];
        calls.push(call);
        const result = await (scenario?.client ?? client).callTool(call);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      }
      res.writeHead(404).end();
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    firstPaintMs: () => (paintedAt ? Math.round(paintedAt - scenarioAt) : undefined),
    setScenario: (s) => ((scenario = s), (calls.length = 0)),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** What the host page saw (its #report), from chromium's dumped DOM. */
export function reportOf(dom: string): Record<string, any> {
  const m = /<pre id="report"[^>]*>([A-Za-z0-9+/=]*)<\/pre>/.exec(dom);
  if (!m?.[1]) throw new Error(`the host page wrote no report:\n${dom.slice(0, 2000)}`);
  return JSON.parse(Buffer.from(m[1], 'base64').toString('utf8'));
}
