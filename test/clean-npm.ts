/**
 * npm as it runs on a machine that is not ours: an empty user config (this machine's ~/.npmrc sets `nodedir`,
 * which hid node-gyp's header download), a fresh HOME (node-gyp keeps downloaded headers in ~/.cache), a fresh npm
 * cache, none of the `npm_config_*` variables an `npm test` passes down, and every host but the npm registry
 * refused by a proxy that records who asked for what (so a download outside the registry fails here as it does on
 * a network that reaches only the registry, and the test can name it). .ci/run sets up the same for the whole run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

export interface CleanNpm {
  /** The environment to run npm (and what it starts) in; PATH is the caller's to set. */
  env: Record<string, string>;
  /** The registry npm uses here (the global config or the default), with a trailing slash. */
  registry: string;
  /** Each host:port (or URL) something asked the refusing proxy for. */
  refused: string[];
  /** Whether the refusing proxy is in place (not when this machine needs a proxy of its own for the registry). */
  proxied: boolean;
  close(): Promise<void>;
}

/** Variables that carry this machine's npm and node-gyp settings into a child process. */
const INHERITED = /^(npm_|node_gyp|xdg_|home$|userprofile$|https?_proxy$|no_proxy$)/i;

export async function cleanNpm(dir: string, base: NodeJS.ProcessEnv = process.env): Promise<CleanNpm> {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const userconfig = join(dir, 'empty-npmrc');
  writeFileSync(userconfig, '');
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(base).filter(([k, v]) => v !== undefined && !INHERITED.test(k))) as Record<
      string,
      string
    >),
    HOME: home,
    npm_config_userconfig: userconfig,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { env, encoding: 'utf8' })
    .trim()
    .replace(/\/?$/, '/');
  const refused: string[] = [];
  const proxy: Server = createServer((req, res) => {
    refused.push(req.url ?? '?');
    res.writeHead(403).end('vault-tools test: only the npm registry is reachable\n');
  });
  proxy.on('connect', (req, socket) => {
    refused.push(req.url ?? '?');
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  // A machine that reaches the registry only through a proxy of its own keeps it (and relies on the install log).
  const ownProxy = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'].map((k) => base[k]).find(Boolean);
  if (ownProxy) {
    for (const k of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY'])
      if (base[k]) env[k] = base[k]!;
  } else {
    await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const registryHost = new URL(registry).hostname;
    Object.assign(env, {
      https_proxy: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      HTTP_PROXY: url,
      no_proxy: registryHost,
      NO_PROXY: registryHost,
    });
  }
  return {
    env,
    registry,
    refused,
    proxied: proxy.listening,
    close: () =>
      new Promise<void>((done) => {
        if (!proxy.listening) return done();
        proxy.close(() => done());
        proxy.closeAllConnections(); // a client's kept-alive connection would hold close() open
      }),
  };
}

/** What an install log (npm --loglevel info --foreground-scripts) says was run and fetched. */
export function readInstallLog(log: string): { scripts: string[]; fetched: string[]; gyp: string[] } {
  const lines = log.split('\n');
  return {
    // "npm info run better-sqlite3@13.2.0 install node_modules/better-sqlite3 node-gyp rebuild": package and event
    scripts: lines.flatMap(
      (l) =>
        /^npm info run (\S+) (preinstall|install|postinstall|prepare) (?!\{)\S+ /.exec(l)?.slice(1, 3).join(' ') ?? [],
    ),
    fetched: lines.flatMap((l) => /^npm http fetch \w+ \d+ (\S+)/.exec(l)?.[1] ?? []),
    gyp: lines.filter((l) => /\bgyp\b|node-gyp|prebuild-install/.test(l)),
  };
}
