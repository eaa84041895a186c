/**
 * What a caller without any credential can make the OAuth endpoints do, bounded (docs/oauth.md, "Bounds"):
 * registration, authorization and the token endpoint are rate limited per address; a registration's metadata
 * and an authorization request (its `state` above all) have size limits; registered clients that never got a
 * grant expire, and there are at most so many of them and of authorizations waiting for consent at a time. When a
 * cap is reached the oldest waiting one makes room, so a few callers cannot close sign-in for everyone (issue 45).
 * The store cannot be grown without bound by anyone who can merely reach the listener (a tunnel makes that anyone).
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { RateLimiter, type RateLimit } from '../rate-limit.js';
import type { Db } from '../../store/db.js';
import { countLiveOAuthRecords, countUnusedOAuthClients, evictOldestOAuthRecords } from '../../store/oauth.js';
import { log } from '../../log.js';
import { formatCount } from '../../core/numbers.js';

/** Per address: what one caller may ask for; the caps below are shared, and full caps make room (OAuthBounds). */
export const OAUTH_RATE_LIMITS: Readonly<Record<Endpoint, RateLimit>> = {
  /** real clients register once per connector: 20 at once, then one every 30 s */
  register: { perSecond: 1 / 30, burst: 20 },
  /** one per sign-in: 60 at once, then one a second */
  authorize: { perSecond: 1, burst: 60 },
  /** code exchange, refresh and revocation: 60 at once, then two a second */
  token: { perSecond: 2, burst: 60 },
};
export const MAX_REGISTRATION_BYTES = 8 * 1024;
export const MAX_STATE_CHARS = 1024;
/** the whole authorization request: its query string (GET) or form body (POST) */
export const MAX_AUTHORIZE_REQUEST_CHARS = 4096;
export const MAX_PENDING_INTERACTIONS = 1000;
export const MAX_UNUSED_CLIENTS = 1000;
/** a registered client that got no grant within this time is forgotten (and purged with the other expired records) */
export const UNUSED_CLIENT_TTL_S = 24 * 60 * 60;
export const MAX_CLIENT_NAME_CHARS = 200;
export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_CHARS = 2000;

type Endpoint = 'register' | 'authorize' | 'token';
const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  '/oauth/register': 'register',
  '/oauth/authorize': 'authorize',
  '/oauth/token': 'token',
  '/oauth/revoke': 'token',
};
const WHAT: Record<Endpoint, string> = {
  register: 'client registrations',
  authorize: 'authorization requests',
  token: 'token requests',
};

/** How the listener refuses a request: an OAuth error, as a page (authorize, opened in a browser) or as JSON. */
export interface Refusal {
  status: number;
  error: 'invalid_request' | 'invalid_client_metadata' | 'temporarily_unavailable';
  description: string;
  retryAfter?: number;
}

const count = formatCount;
const everySeconds = (l: RateLimit) =>
  l.perSecond >= 1 ? `${l.perSecond} a second` : `one every ${Math.round(1 / l.perSecond)} s`;

/**
 * The proxies whose X-Forwarded-For is believed (`--trust-proxy`): addresses, or `loopback` for 127.0.0.0/8 and
 * ::1. Empty: none, and the caller is the connection's address, whatever headers it sends.
 */
export type TrustedProxies = readonly string[];

/** An address as the limits key it: IPv4-mapped IPv6 (`::ffff:1.2.3.4`, how node names IPv4 peers on a dual-stack socket) as IPv4. */
const plainAddress = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

function isTrusted(address: string, trusted: TrustedProxies): boolean {
  return trusted.some((t) => t === address || (t === 'loopback' && (address === '::1' || /^127\./.test(address))));
}

/**
 * The caller's address: the connection's; when that is a proxy the operator trusts (`--trust-proxy`), the entry
 * of X-Forwarded-For that proxy wrote, and so on right to left while the hops are trusted proxies. Entries a
 * trusted proxy did not write (those further left) are the caller's to forge and never decide; an entry that is
 * not an IP address stops the walk (the proxy that passed it answers for it), so a header cannot mint buckets.
 */
export function callerAddress(req: IncomingMessage, trusted: TrustedProxies): string {
  let address = plainAddress(req.socket.remoteAddress ?? 'unknown');
  if (!trusted.length) return address;
  const hops = ([] as string[])
    .concat(req.headers['x-forwarded-for'] ?? [])
    .join(',')
    .split(',');
  for (let i = hops.length - 1; i >= 0 && isTrusted(address, trusted); i--) {
    const hop = plainAddress(hops[i]!.trim());
    if (!isIP(hop)) break;
    address = hop;
  }
  return address;
}

export class OAuthBounds {
  private readonly limiters = {
    register: new RateLimiter(OAUTH_RATE_LIMITS.register),
    authorize: new RateLimiter(OAUTH_RATE_LIMITS.authorize),
    token: new RateLimiter(OAUTH_RATE_LIMITS.token),
  };

  constructor(
    private readonly db: Db,
    private readonly trustedProxies: TrustedProxies,
  ) {}

  /** Whether the request to `path` is the endpoint's page (authorize, shown in a browser) rather than JSON. */
  static isPage(path: string): boolean {
    return ENDPOINTS[path] === 'authorize';
  }

  /** Why the request to an OAuth endpoint is refused before the authorization server sees it, or undefined. */
  check(req: IncomingMessage, path: string): Refusal | undefined {
    const endpoint = ENDPOINTS[path];
    if (!endpoint) return undefined;
    const limiter = this.limiters[endpoint];
    const wait = limiter.take(callerAddress(req, this.trustedProxies));
    if (wait > 0) {
      const { limit } = limiter;
      return {
        status: 429,
        error: 'temporarily_unavailable',
        retryAfter: wait,
        description: `Too many ${WHAT[endpoint]} from this address: ${limit.burst} at once, then ${everySeconds(limit)}. Retry after ${wait} s.`,
      };
    }
    if (endpoint === 'register') return this.checkRegistration(req);
    if (endpoint === 'authorize') return this.checkAuthorization(req);
    return undefined;
  }

  private checkRegistration(req: IncomingMessage): Refusal | undefined {
    if (req.method !== 'POST') return undefined;
    const size = declaredLength(req);
    if (size === undefined)
      return {
        status: 411,
        error: 'invalid_request',
        description: 'A registration must carry a Content-Length header.',
      };
    if (size > MAX_REGISTRATION_BYTES) {
      return {
        status: 413,
        error: 'invalid_client_metadata',
        description: `The client metadata is ${count(size)} bytes; at most ${count(MAX_REGISTRATION_BYTES)} are accepted.`,
      };
    }
    const over = countUnusedOAuthClients(this.db) - MAX_UNUSED_CLIENTS + 1;
    if (over > 0) {
      // The oldest never-approved client makes room: a full cap must not close registration for everyone.
      log.warn(
        `OAuth: ${count(MAX_UNUSED_CLIENTS)} registered clients are waiting for their first approval; forgot the oldest ${over} to register a new one`,
      );
      evictOldestOAuthRecords(this.db, 'Client', over);
    }
    return undefined;
  }

  private checkAuthorization(req: IncomingMessage): Refusal | undefined {
    if (req.method === 'POST') {
      const size = declaredLength(req);
      if (size === undefined)
        return {
          status: 411,
          error: 'invalid_request',
          description: 'An authorization request sent by POST must carry a Content-Length header.',
        };
      if (size > MAX_AUTHORIZE_REQUEST_CHARS)
        return {
          status: 400,
          error: 'invalid_request',
          description: `The authorization request is ${count(size)} bytes; at most ${count(MAX_AUTHORIZE_REQUEST_CHARS)} are accepted.`,
        };
    } else {
      const query = (req.url ?? '').split('?').slice(1).join('?');
      const state = new URLSearchParams(query).get('state');
      if (state !== null && state.length > MAX_STATE_CHARS) {
        return {
          status: 400,
          error: 'invalid_request',
          description: `The "state" parameter is ${count(state.length)} characters; at most ${count(MAX_STATE_CHARS)} are accepted.`,
        };
      }
      if (query.length > MAX_AUTHORIZE_REQUEST_CHARS) {
        return {
          status: 400,
          error: 'invalid_request',
          description: `The authorization request is ${count(query.length)} characters; at most ${count(MAX_AUTHORIZE_REQUEST_CHARS)} are accepted.`,
        };
      }
    }
    const over = countLiveOAuthRecords(this.db, 'Interaction') - MAX_PENDING_INTERACTIONS + 1;
    if (over > 0) {
      // The oldest waiting authorization makes room (its page then says it expired): a person signing in is never turned away.
      log.warn(
        `OAuth: ${count(MAX_PENDING_INTERACTIONS)} authorizations are waiting for consent; ended the oldest ${over} to take a new one`,
      );
      evictOldestOAuthRecords(this.db, 'Interaction', over);
    }
    return undefined;
  }
}

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined) return req.headers['transfer-encoding'] === undefined ? 0 : undefined;
  const n = Number(header);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A client's metadata (registered, or a metadata document), beyond what the library checks: a name and URIs of
 * sane length, and a web client's redirect URIs https or loopback http (OAuth 2.1 §2.3.1; the library allows
 * http anywhere). The message names the field, or undefined when all is well.
 */
export function clientMetadataProblem(m: {
  application_type?: unknown;
  client_name?: unknown;
  redirect_uris?: unknown;
}): string | undefined {
  if (typeof m.client_name === 'string' && m.client_name.length > MAX_CLIENT_NAME_CHARS) {
    return `client_name is ${count(m.client_name.length)} characters; at most ${MAX_CLIENT_NAME_CHARS} are accepted`;
  }
  if (!Array.isArray(m.redirect_uris)) return undefined; // the library names a missing or malformed list
  if (m.redirect_uris.length > MAX_REDIRECT_URIS)
    return `redirect_uris holds ${m.redirect_uris.length} URIs; at most ${MAX_REDIRECT_URIS} are accepted`;
  for (const uri of m.redirect_uris) {
    if (typeof uri !== 'string') continue;
    if (uri.length > MAX_URI_CHARS)
      return `a redirect_uris entry is ${count(uri.length)} characters; at most ${count(MAX_URI_CHARS)} are accepted`;
    const url = URL.parse(uri);
    if ((m.application_type ?? 'web') === 'web' && url?.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      return `redirect_uris: a web client's redirect URI must be https (http only on a loopback address), not ${JSON.stringify(uri.slice(0, 200))}`;
    }
  }
  return undefined;
}

/** 127.0.0.0/8, ::1 and localhost: where http stays on the person's own machine. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
