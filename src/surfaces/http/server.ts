/**
 * The local REST listener: the hosted service's HTTP API, its OpenAPI document and MCP over Streamable
 * HTTP, on node:http. Every request: request id → Host/Origin check → CORS → route → bearer auth → rate
 * limit → handler. Tool calls go through the same `service.invoke` as stdio; nothing here knows a tool.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authenticate, KEY_PREFIX } from '../../auth/keys.js';
import type { Principal } from '../../core/principal.js';
import { DEFAULT_RATE_LIMIT, RateLimiter, type RateLimit } from '../../auth/rate-limit.js';
import { ServiceError } from '../../core/errors.js';
import { Service, type ServiceOptions } from '../../service/invoke.js';
import type { Store } from '../../service/open.js';
import { log } from '../../log.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';
import { applyCors, checkHostAndOrigin, originPolicy, requestIdOf, type OriginPolicy } from './guard.js';
import { sendError } from './respond.js';
import { matchRoute, type RouteContext } from './routes.js';
import { CONSENT_PATH, createOAuthServer, OAUTH_SCOPE, type OAuthServer } from '../../auth/oauth/server.js';
import { handleConsent } from './consent.js';
import { GRANT_ID_PREFIX, grantPrincipal } from '../../auth/oauth/grants.js';
import { PATHS } from '../../core/rest-paths.js';

export interface HttpOptions {
  host: string;
  port: number;
  dataDir: string;
  allowHosts?: string[];
  allowOrigins?: string[];
  maxBodyBytes?: number;
  /** null turns rate limiting off */
  rateLimit?: RateLimit | null;
  service?: Omit<ServiceOptions, 'baseUrl' | 'dataDir'>;
  /** the OAuth authorization server (on unless null): its public URL when clients reach the listener through a tunnel or proxy */
  oauth?: { publicUrl?: string; trustedProxies?: string[]; allowLoopbackClientMetadata?: boolean } | null;
}

export interface HttpListener {
  url: string;
  service: Service;
  close(): Promise<void>;
}

/** How long SIGTERM (or `close()`) waits for requests in flight before cutting every connection. */
export const SHUTDOWN_GRACE_MS = 3000;

/** Resolves when every promise has settled or `ms` have passed, whichever comes first. */
function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.allSettled(promises).then(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

export async function startHttpServer(db: Store, options: HttpOptions): Promise<HttpListener> {
  for (const o of options.allowOrigins ?? []) {
    if (o.trim() === '*')
      throw new Error('--allow-origin "*" is refused: name each origin (credentials are never shared with a wildcard)');
  }
  const server = createServer({ keepAlive: true });
  // The port accepts connections as soon as it listens, but the OAuth server (and so the context) is only made
  // once the port is known: a request that arrives meanwhile waits for it instead of finding no handler and
  // hanging (a client polling for the port to open met exactly that).
  let ready!: (value: { ctx: typeof ctx; policy: typeof policy; limiter: typeof limiter }) => void;
  const started = new Promise<{ ctx: typeof ctx; policy: typeof policy; limiter: typeof limiter }>(
    (resolve) => (ready = resolve),
  );
  const inFlight = new Set<Promise<void>>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const done = started.then((s) => handle(req, res, s.ctx, s.policy, s.limiter)).finally(() => inFlight.delete(done));
    inFlight.add(done);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${hostForUrl}:${port}`;
  const service = new Service(db, { ...options.service, baseUrl: url, dataDir: options.dataDir });
  const publicUrl = options.oauth?.publicUrl?.replace(/\/+$/, '');
  // Behind a tunnel the public host is this listener's too: requests arrive with it in Host and Origin.
  const policy = originPolicy(
    options.host,
    port,
    [...(options.allowHosts ?? []), ...(publicUrl ? [new URL(publicUrl).host] : [])],
    options.allowOrigins,
  );
  if (publicUrl) policy.ownOrigins.add(new URL(publicUrl).origin.toLowerCase());
  const limiter = options.rateLimit === null ? undefined : new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const oauth =
    options.oauth === null
      ? undefined
      : await createOAuthServer(
          db,
          {
            publicUrl: publicUrl ?? url,
            behindProxy: publicUrl !== undefined,
            trustedProxies: options.oauth?.trustedProxies,
            allowLoopbackClientMetadata: options.oauth?.allowLoopbackClientMetadata,
          },
          PATHS.mcp,
        );
  const ctx = {
    db,
    service,
    dataDir: options.dataDir,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    baseUrl: url,
    oauth,
  };
  ready({ ctx, policy, limiter });

  return {
    url,
    service,
    async close() {
      // Stop accepting and drop idle keep-alive sockets; requests in flight get a short grace to finish.
      // Then every connection is cut, whatever a client holds (a half-sent request, a body it never
      // finishes): a write cut this way is cancelled and stores nothing.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await settledWithin([...inFlight], SHUTDOWN_GRACE_MS);
      server.closeAllConnections();
      // The handlers of cut requests see their sockets close; let them finish before the store closes.
      await settledWithin([...inFlight], 1000);
      await closed;
    },
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  base: Omit<RouteContext, 'principal' | 'currentPrincipal' | 'params' | 'requestId' | 'chargeBatch' | 'chargeWork'> & {
    oauth?: OAuthServer;
  },
  policy: OriginPolicy,
  limiter: RateLimiter | undefined,
): Promise<void> {
  const requestId = requestIdOf(req);
  let presentedToken = false;
  try {
    checkHostAndOrigin(req, policy);
    if (applyCors(req, res, policy, requestId)) return;
    const path = pathOf(req.url ?? '/');
    if (base.oauth) {
      if (path.startsWith(CONSENT_PATH)) return await handleConsent(base.db, base.oauth.provider, req, res);
      if (await base.oauth.handle(req, res, path)) return;
    }
    const match = matchRoute(req.method ?? 'GET', path);
    if (match.kind === 'no-route')
      throw new ServiceError('route_not_found', `No route ${req.method} ${path}. The API index is GET /v1.`);
    if (match.kind === 'no-method') {
      return sendError(
        res,
        requestId,
        'method_not_allowed',
        `${req.method} is not allowed on ${path}; use ${match.allow.join(' or ')}.`,
        { Allow: match.allow.join(', ') },
      );
    }
    let principal: Principal | undefined;
    let currentPrincipal: () => Principal = () => principal!;
    let chargeBatch: (messages: number) => void = () => {};
    let chargeWork: (units: number) => void = () => {};
    if (match.route.auth) {
      const credential = bearer(req);
      if (base.oauth && credential && !credential.startsWith(KEY_PREFIX)) {
        presentedToken = true;
        principal = await base.oauth.principalOf(credential);
        const grantId = principal.keyId.slice(GRANT_ID_PREFIX.length);
        currentPrincipal = () => grantPrincipal(base.db, grantId);
      } else {
        principal = authenticate(base.db, credential);
        currentPrincipal = () => authenticate(base.db, credential);
      }
      try {
        charge(limiter, principal.keyId, 1);
      } finally {
        // On answers and refusals alike, so a client can pace itself before it is refused.
        if (limiter)
          for (const [name, value] of Object.entries(limiter.headers(principal.keyId))) res.setHeader(name, value);
      }
      chargeBatch = batchCharger(limiter, principal.keyId);
      chargeWork = workCharger(limiter, principal.keyId);
    }
    // Routes that write their own responses (files, MCP) get the request id header here; JSON ones send it with their body.
    if (match.route.streams) res.setHeader('X-Request-Id', requestId);
    const { db, service, dataDir, maxBodyBytes, baseUrl } = base;
    await match.route.handle(req, res, {
      db,
      service,
      dataDir,
      maxBodyBytes,
      baseUrl,
      principal: principal!,
      currentPrincipal,
      params: match.params,
      requestId,
      chargeBatch,
      chargeWork,
    });
  } catch (err) {
    if (res.headersSent) {
      log.error(`request ${requestId} failed after its response started`, err);
      res.destroy();
    } else if (err instanceof ServiceError && err.retryAfter) {
      sendError(res, requestId, err.code, err.message, { 'Retry-After': String(err.retryAfter) });
    } else if (err instanceof ServiceError && err.code === 'unauthorized' && base.oauth) {
      // RFC 9728 §5.1: the challenge names where a client finds how to get a token (MCP authorization).
      const error = presentedToken ? ', error="invalid_token"' : '';
      sendError(res, requestId, err.code, err.message, {
        'WWW-Authenticate': `Bearer resource_metadata="${base.oauth.resourceMetadataUrl}", scope="${OAUTH_SCOPE}"${error}`,
      });
    } else if (err instanceof ServiceError) {
      // A body we refused to read must not be drained into the next request of a keep-alive socket.
      sendError(res, requestId, err.code, err.message, err.code === 'payload_too_large' ? { Connection: 'close' } : {});
    } else {
      log.error(`request ${requestId} failed`, err);
      sendError(
        res,
        requestId,
        'internal_error',
        `The server failed unexpectedly; the error was logged (request ${requestId}).`,
      );
    }
  }
}

/**
 * Takes `calls` tokens from the key's bucket, all or none, or throws the 429. `batch` names the size of an
 * MCP batch whose other messages are being paid for, for the message.
 */
function charge(limiter: RateLimiter | undefined, keyId: string, calls: number, batch?: number): void {
  if (!limiter || calls <= 0) return;
  const wait = limiter.take(keyId, calls);
  if (wait === 0) return;
  const what =
    batch === undefined ? 'Too many requests for this key' : `Too many calls for this key (the batch holds ${batch})`;
  throw new ServiceError('rate_limited', `${what}; retry after ${wait} s.`, wait);
}

/**
 * An MCP batch costs one call per message, as if each came alone; the request itself has already paid
 * for one. A batch larger than the burst could never be paid, so it is refused outright (400, not a
 * 429 that a client would retry forever).
 */
function batchCharger(limiter: RateLimiter | undefined, keyId: string): (messages: number) => void {
  return (messages) => {
    if (!limiter || messages <= 1) return;
    const { perSecond, burst } = limiter.limit;
    if (messages > burst) {
      throw new ServiceError(
        'invalid_request',
        `The batch holds ${messages} calls; a key may make at most ${burst} at once here (--rate-limit ${perSecond}, bursts of ${burst}). Send smaller batches.`,
      );
    }
    charge(limiter, keyId, messages - 1, messages);
  };
}

/**
 * A call whose tool asks for more work than one call (search_transcripts with alternatives: see Tool.cost) pays
 * the rest from the same bucket, after its request paid for one. Work the burst can never pay is refused outright.
 */
function workCharger(limiter: RateLimiter | undefined, keyId: string): (units: number) => void {
  return (units) => {
    if (!limiter || units <= 0) return;
    if (units + 1 > limiter.limit.burst) {
      throw new ServiceError(
        'invalid_request',
        `The call asks for the work of ${units + 1} calls; a key may make at most ${limiter.limit.burst} at once here. Ask for less (fewer alternatives).`,
      );
    }
    const wait = limiter.take(keyId, units);
    if (wait > 0)
      throw new ServiceError(
        'rate_limited',
        `Too many calls for this key: this one counts as ${units + 1} (one per phrasing searched); retry after ${wait} s.`,
        wait,
      );
  };
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw new ServiceError('unauthorized', 'The Authorization header must be "Bearer <key>".');
  return m[1];
}

/** The path of a request target: as is when it is a plain path (the usual case), else what URL makes of it (dot segments, query). */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9_\-/]*$/;
function pathOf(target: string): string {
  return PLAIN_PATH.test(target) ? target : new URL(target, 'http://local').pathname;
}
