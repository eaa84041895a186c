/**
 * What every request passes before any work: a request id, and DNS-rebinding protection. A browser page
 * on another site can make a victim's browser send requests to 127.0.0.1 under its own host name; the
 * Host check refuses those, and the Origin check refuses cross-site pages. CORS headers are sent only
 * for origins the user allowed, each named exactly (never `*`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceError } from '../../core/errors.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is of sane length and characters, else a fresh one. Every response carries it. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export interface OriginPolicy {
  /** host[:port] values accepted in Host, lower case */
  hosts: Set<string>;
  /** origins (scheme://host[:port]) accepted in Origin, lower case; they also get CORS headers */
  origins: Set<string>;
  /** origins of this listener itself, accepted but given no CORS headers */
  ownOrigins: Set<string>;
}

/** The listener's own names (its address, localhost, 127.0.0.1, [::1]) on its port, plus what the user allowed. */
export function originPolicy(
  host: string,
  port: number,
  allowHosts: string[] = [],
  allowOrigins: string[] = [],
): OriginPolicy {
  const names = new Set([
    'localhost',
    '127.0.0.1',
    '[::1]',
    host.includes(':') && !host.startsWith('[') ? `[${host}]` : host,
  ]);
  const hosts = new Set<string>();
  for (const n of names) hosts.add(`${n}:${port}`.toLowerCase());
  for (const h of allowHosts) hosts.add(h.toLowerCase());
  const ownOrigins = new Set([...hosts].map((h) => `http://${h}`));
  return { hosts, origins: new Set(allowOrigins.map((o) => o.toLowerCase().replace(/\/+$/, ''))), ownOrigins };
}

export function checkHostAndOrigin(req: IncomingMessage, policy: OriginPolicy): void {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!policy.hosts.has(host)) {
    throw new ServiceError(
      'host_not_allowed',
      `Host "${req.headers.host ?? ''}" is not this listener's address (DNS rebinding protection); allow it with --allow-host.`,
    );
  }
  const origin = req.headers.origin?.toLowerCase();
  if (origin !== undefined && !policy.origins.has(origin) && !policy.ownOrigins.has(origin)) {
    throw new ServiceError(
      'origin_not_allowed',
      `Origin "${req.headers.origin}" is not allowed; allow it with --allow-origin.`,
    );
  }
}

/** CORS for an allowed origin; true when the request was a preflight and has been answered. */
export function applyCors(req: IncomingMessage, res: ServerResponse, policy: OriginPolicy, requestId: string): boolean {
  const origin = req.headers.origin?.toLowerCase();
  if (!origin || !policy.origins.has(origin)) return false;
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin!);
  res.setHeader('Vary', 'Origin');
  res.setHeader(
    'Access-Control-Expose-Headers',
    'X-Request-Id, ETag, Retry-After, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Mcp-Session-Id',
  );
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers':
      'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
    'Access-Control-Max-Age': '600',
  });
  res.end();
  return true;
}
