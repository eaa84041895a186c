/**
 * The service's errors: a stable code, an HTTP status and a sentence a person can act on. Every surface
 * renders them as `{error:{code, message, requestId}}` (REST) or an `isError` tool result (MCP).
 * The codes are documented in docs/errors.md; the list below is that contract.
 */
import { escapeUnprintable } from './printable.js';
import { formatCount } from './numbers.js';

export const ERROR_CODES = {
  invalid_request: 400, // the request itself is malformed (body, JSON, content type)
  invalid_arguments: 400, // a tool argument is missing, unknown or of the wrong type or range
  vault_required: 400, // the key reaches several vaults and `vault` was not given
  unauthorized: 401, // no key, unknown key, revoked or expired key
  forbidden: 403, // the key may not do this (a manager-only tool with a member key)
  host_not_allowed: 403, // HTTP: the Host header is not this listener's (DNS rebinding protection)
  origin_not_allowed: 403, // HTTP: the Origin header is not an allowed origin
  tool_not_found: 404, // no tool of that name
  route_not_found: 404, // HTTP: no such path
  vault_not_found: 404, // no such vault, or one this key may not reach (the same answer on purpose)
  not_found: 404, // a record named by an argument does not exist in the vault
  idempotency_key_reused: 409, // this key's Idempotency-Key was already used for another call (tool, vault or arguments)
  method_not_allowed: 405, // HTTP: the path exists, not with this method (see Allow)
  payload_too_large: 413, // HTTP: the body exceeds the listener's limit (1 MiB by default)
  // The caller cancelled a long call (MCP notifications/cancelled, or the HTTP client hung up). Nobody reads
  // this status: it is only produced once the caller has gone. 499 is nginx's "client closed request", the
  // code access logs already use for exactly this; a standard one (408, 409) would read as the server's doing.
  cancelled: 499,
  rate_limited: 429, // too many requests for this key; see Retry-After
  // The store's write lock stayed taken by another process (a second `serve`, a `sync`, an import) for longer
  // than the busy timeout: nothing was written, and the same call succeeds once that write is done.
  store_busy: 503,
  internal_error: 500, // a bug: logged on stderr (its stack with VAULT_TOOLS_LOG=debug), never shown to the caller
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ServiceError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** seconds until a retry can succeed (`rate_limited`: the Retry-After header) */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ServiceError';
    this.status = ERROR_CODES[code];
  }
}

/**
 * A caller's value as an error message quotes it: JSON-escaped, and cut after 60 characters with its length, so a
 * 1 MB argument does not come back as a 1 MB message. What JSON leaves raw but a reader must not meet raw (C1
 * controls, which open terminal escapes; bidi overrides and isolates, which reorder the message around them) is
 * escaped too, as `\uXXXX` (./printable): still valid JSON, and visible.
 */
export function quoted(value: string): string {
  if (value.length <= QUOTED_CHARS + 20) return escapeUnprintable(JSON.stringify(value));
  return `${escapeUnprintable(JSON.stringify(value.slice(0, QUOTED_CHARS))).slice(0, -1)}…" of ${formatCount(value.length)} characters`;
}
const QUOTED_CHARS = 60;

export const notFound = (what: string, id: string, vaultName: string) =>
  new ServiceError('not_found', `No ${what} ${quoted(id)} in vault "${vaultName}".`);

/** The error of a call whose caller cancelled it; `tool` names what was stopped, e.g. 'export_report'. */
export const cancelled = (tool: string) =>
  new ServiceError(
    'cancelled',
    `${/^\w+$/.test(tool) ? `\`${tool}\`` : tool} was cancelled by its caller before it finished; nothing was stored.`,
  );

/** Throws `cancelled` when the call's signal has fired: long tools call it between pages of work. */
export function throwIfCancelled(signal: AbortSignal | undefined, tool: string): void {
  if (signal?.aborted) throw cancelled(tool);
}

export const invalidArgument = (field: string, expected: string) =>
  new ServiceError('invalid_arguments', `\`${field}\`: ${expected.replace(/\.+$/, '')}.`);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string };
}
