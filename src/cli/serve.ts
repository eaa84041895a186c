import { isIP } from 'node:net';
import type { Command } from 'commander';
import { authenticate } from '../auth/keys.js';
import { DEFAULT_RATE_LIMIT } from '../auth/rate-limit.js';
import { Service } from '../service/invoke.js';
import { serveStdio } from '../surfaces/mcp/stdio.js';
import { startHttpServer, type HttpListener } from '../surfaces/http/server.js';
import { DEFAULT_MAX_BODY_BYTES } from '../surfaces/http/body.js';
import { PATHS } from '../core/rest-paths.js';
import type { Store } from '../service/open.js';
import { createEmbedder } from '../search/embedder/index.js';
import { startBackgroundIndexing } from '../search/background.js';
import { selectTools, ToolSelectionError } from '../catalog/select.js';
import { log } from '../log.js';
import { resolveRemote } from '../sync/config.js';
import { CliError, openStore, principalFor, resolveDataDir, resolveKey } from './context.js';
import { watchStdinEnd } from './stdin-end.js';
import { holdDataDir } from './data-dir-holders.js';
import { startHeapTrim } from './heap-trim.js';

export interface ServeOptions {
  dataDir?: string;
  key?: string;
  http?: string;
  stdio: boolean;
  allowHost: string[];
  allowOrigin: string[];
  maxBody: string;
  rateLimit: string;
  index: boolean;
  readOnly?: boolean;
  tools: string[];
  excludeTools: string[];
  /** false with --no-oauth */
  oauth: boolean;
  publicUrl?: string;
  trustProxy: string[];
  /** serve only: sync with the configured remote every this many minutes */
  syncEvery?: string;
  /** demo: stdin ended before any MCP message while the HTTP listener keeps serving (no client started it) */
  onNoClient?: () => void;
}

const collect = (v: string, acc: string[]) => [...acc, v];

/** The serving options `serve` and `demo` share. */
export function addServeOptions(cmd: Command): Command {
  return cmd
    .option('--key <key>', 'key for stdio (default: $VAULT_TOOLS_KEY or the data dir owner key)')
    .option(
      '--http <[host:]port>',
      'also serve the REST API, OpenAPI and MCP over HTTP (host 127.0.0.1 by default; port 0 picks a free one)',
    )
    .option('--no-stdio', 'HTTP only (also the case when stdin is a terminal)')
    .option(
      '--allow-host <host:port>',
      'accept this Host header too (DNS-rebinding protection; repeatable)',
      collect,
      [] as string[],
    )
    .option(
      '--allow-origin <origin>',
      'accept this Origin and send CORS headers for it (repeatable; never "*")',
      collect,
      [] as string[],
    )
    .option('--max-body <bytes>', 'largest request body', String(DEFAULT_MAX_BODY_BYTES))
    .option(
      '--rate-limit <n>',
      'requests per second per key, bursts of 2n (0: no limit)',
      String(DEFAULT_RATE_LIMIT.perSecond),
    )
    .option(
      '--no-index',
      'do not build the transcript vector index in the background (search then uses words until `reindex`)',
    )
    .option('--read-only', 'offer only the tools that change nothing (no action tools)')
    .option('--tools <names>', 'offer only these tools (comma-separated, repeatable)', collect, [] as string[])
    .option(
      '--exclude-tools <names>',
      'offer all tools but these (comma-separated, repeatable)',
      collect,
      [] as string[],
    )
    .option('--no-oauth', 'with --http: accept keys only (no OAuth authorization server, no access tokens)')
    .option(
      '--public-url <url>',
      'with --http: the https URL clients reach this listener at (a tunnel or proxy): the OAuth issuer and resource',
    )
    .option(
      '--trust-proxy <addresses>',
      "with --http: believe X-Forwarded-For from these proxies' addresses (comma-separated IPs, or loopback) for the OAuth endpoints' per-address limits; none by default",
      collect,
      [] as string[],
    );
}

/** `[host:]port`, with IPv6 hosts in brackets. */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    throw new CliError(`--http "${value}": expected [HOST:]PORT, e.g. 8787, 127.0.0.1:8787 or 0 for a free port`, 2);
  return { host: m[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
}

/** Whether a listen host is this machine only; a name other than localhost may resolve to anything. */
function isLoopback(host: string): boolean {
  return /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i.test(host);
}

/** `--trust-proxy`: IP addresses, or `loopback`; anything else is refused by name. */
export function parseTrustedProxies(values: string[]): string[] {
  const list = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const entry of list) {
    if (entry !== 'loopback' && !isIP(entry))
      throw new CliError(
        `--trust-proxy "${entry}": expected the IP address of the proxy or tunnel in front (e.g. 127.0.0.1), or loopback`,
        2,
      );
  }
  return list;
}

/** `--public-url`: https (a tunnel or proxy in front), or http on loopback; an origin, no path. */
function parsePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.parse(value.trim());
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    throw new CliError(
      `--public-url "${value}": expected the https origin clients reach this listener at, e.g. https://vault.example.com (no path)`,
      2,
    );
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname.replace(/^\[|\]$/g, ''))) {
    throw new CliError(`--public-url "${value}": OAuth needs https except on loopback; give the tunnel's https URL`, 2);
  }
  return url.origin;
}

function positiveInt(name: string, value: string, allowZero = false): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1))
    throw new CliError(`${name} "${value}": expected a whole number${allowZero ? ' (0 or more)' : ' above 0'}`, 2);
  return n;
}

/** Serves a store: MCP on stdio (unless off or stdin is a terminal) and, with --http, the REST listener. */
export async function serveStore(db: Store, dataDir: string, opts: ServeOptions): Promise<void> {
  const stdio = opts.stdio && !process.stdin.isTTY;
  if (!stdio && !opts.http) {
    throw new CliError(
      'nothing to serve: stdin is a terminal (or --no-stdio). Start it from an MCP client, or add --http [HOST:]PORT.',
      2,
    );
  }
  const syncPlan = parseSyncEvery(dataDir, opts.syncEvery);
  // The embedder loads nothing until it is first asked: queries by meaning, or the background indexer.
  const embedder = createEmbedder();
  let tools;
  try {
    tools = selectTools({ readOnly: opts.readOnly, include: opts.tools, exclude: opts.excludeTools }, undefined, (w) =>
      process.stderr.write(`vault-tools: warning: ${w}\n`),
    );
  } catch (err) {
    if (err instanceof ToolSelectionError) throw new CliError(`--tools / --exclude-tools: ${err.message}`, 2);
    throw err;
  }
  const serviceOptions = { dataDir, embedder, tools };
  // `restore` refuses to replace the store while this file names a live process (data-dir-holders.ts).
  const release = holdDataDir(dataDir);
  let listener: HttpListener | undefined;
  if (opts.http) {
    const { host, port } = parseListen(opts.http);
    const perSecond = positiveInt('--rate-limit', opts.rateLimit, true);
    const publicUrl = parsePublicUrl(opts.publicUrl);
    const trustedProxies = parseTrustedProxies(opts.trustProxy);
    // The issuer is https except on loopback: on a network address without --public-url, OAuth stays off.
    const oauthOn = opts.oauth !== false && (publicUrl !== undefined || isLoopback(host));
    if (opts.oauth !== false && !oauthOn) {
      process.stderr.write(
        `vault-tools: OAuth is off: --http ${host} is not loopback and an authorization server must be reached over https; pass --public-url https://… (the tunnel or proxy in front), or --no-oauth to silence this\n`,
      );
    }
    try {
      listener = await startHttpServer(db, {
        host,
        port,
        dataDir,
        allowHosts: opts.allowHost,
        allowOrigins: opts.allowOrigin,
        maxBodyBytes: positiveInt('--max-body', opts.maxBody),
        rateLimit: perSecond === 0 ? null : { perSecond, burst: perSecond * 2 },
        service: serviceOptions,
        oauth: !oauthOn
          ? null
          : {
              publicUrl,
              trustedProxies,
              allowLoopbackClientMetadata: process.env.VAULT_TOOLS_TEST_LOOPBACK_CLIENT_METADATA === '1',
            },
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EADDRINUSE')
        throw new CliError(
          `port ${port} on ${host} is in use; pick another with --http ${host}:PORT, or --http 0 for a free one`,
        );
      if (e.code === 'EACCES') throw new CliError(`no permission to listen on ${host}:${port}; use a port above 1023`);
      if (e.code === 'EADDRNOTAVAIL') throw new CliError(`${host} is not an address of this machine; use 127.0.0.1`);
      throw new CliError((err as Error).message);
    }
    if (!isLoopback(host)) {
      process.stderr.write(
        `vault-tools: warning: --http ${host} makes the API reachable from the network, not only from this machine: anyone who can reach port ${new URL(listener.url).port} here can try keys, over plain HTTP. Use 127.0.0.1 unless that is what you want.\n`,
      );
    }
    process.stderr.write(
      `vault-tools: REST API on ${listener.url}${PATHS.index} (OpenAPI ${listener.url}${PATHS.openapi}, MCP ${listener.url}${PATHS.mcp}); send Authorization: Bearer <key>${!oauthOn ? '' : `, or an OAuth access token (authorization server ${publicUrl ?? listener.url})`}\n`,
    );
  }
  const indexingOn = opts.index && process.env.VAULT_TOOLS_INDEX !== 'off';
  let indexing = indexingOn ? startBackgroundIndexing(db, embedder) : undefined;
  // The sync engine (and undici) loads only when asked for.
  const syncing =
    syncPlan &&
    (await import('../sync/background.js')).startBackgroundSync(
      db,
      dataDir,
      syncPlan.remote,
      syncPlan.minutes,
      async () => {
        if (!indexingOn) return;
        await indexing?.stop(); // a new pass embeds the chunks the pull brought
        indexing = startBackgroundIndexing(db, embedder);
      },
    );
  const stopHeapTrim = startHeapTrim();
  let saidWhy = false;
  if (stdio) {
    const key = resolveKey(db, dataDir, opts.key);
    principalFor(db, key); // fail now, clearly, if the key is wrong
    const stdinEnd = watchStdinEnd();
    await serveStdio(listener?.service ?? new Service(db, serviceOptions), () => authenticate(db, key));
    const ended = stdinEnd(listener !== undefined);
    saidWhy = ended !== undefined;
    if (ended === 'never connected' && listener) {
      opts.onNoClient?.();
      await untilSignal();
      saidWhy = false;
    }
  } else {
    await untilSignal();
  }
  if (!saidWhy) log.info('shutting down');
  stopHeapTrim();
  await syncing?.stop();
  await indexing?.stop();
  await listener?.close();
  await embedder.close();
  db.close();
  release();
}

const untilSignal = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });

/**
 * `--sync-every MINUTES`, checked before anything starts: the remote comes from the environment or `vault-tools remote set`.
 * VAULT_TOOLS_SYNC_EVERY is the same for launchers that set only the environment (the MCP Bundle's user_config):
 * there empty or 0 means off, and with no remote configured it is a note on stderr, not a failure to start.
 */
function parseSyncEvery(dataDir: string, option: string | undefined) {
  const fromEnv = option === undefined ? process.env.VAULT_TOOLS_SYNC_EVERY?.trim() : undefined;
  if (fromEnv !== undefined && fromEnv !== '' && fromEnv !== '0' && typeof resolveRemote(dataDir, {}) === 'string') {
    log.info('VAULT_TOOLS_SYNC_EVERY is set but no remote is configured: not syncing');
    return undefined;
  }
  const every = option ?? (fromEnv === '' || fromEnv === '0' ? undefined : fromEnv);
  if (every === undefined) return undefined;
  const minutes = Number(every);
  if (!(minutes > 0) || minutes > 7 * 24 * 60)
    throw new CliError(`--sync-every "${every}": expected minutes above 0 (e.g. 15)`, 2);
  const remote = resolveRemote(dataDir, {});
  if (typeof remote === 'string') throw new CliError(`--sync-every: ${remote}`, 2);
  log.info(`syncing with ${remote.url} every ${minutes} min`);
  return { remote, minutes };
}

export function register(program: Command): void {
  addServeOptions(
    program
      .command('serve')
      .description("serve MCP over stdio (and with --http, the REST API) on the data dir's store"),
  )
    .option(
      '--sync-every <minutes>',
      'sync with the remote (`vault-tools remote set`, or VAULT_TOOLS_REMOTE_URL/_KEY) now and every N minutes',
    )
    .option('--data-dir <dir>', 'data directory (default: $VAULT_TOOLS_HOME or the platform user data dir)')
    .option('--init', 'create the data dir and a new store when the data dir does not exist yet')
    .action(async (opts: ServeOptions & { init?: boolean }) => {
      const { dir, why } = resolveDataDir(opts.dataDir);
      await serveStore(openStore(dir, why, { create: opts.init, offersInit: true }), dir, opts);
    });
}
