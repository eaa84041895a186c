/** Writing responses: JSON bodies, the error body, and the headers every response carries. */
import type { ServerResponse } from 'node:http';
import { type ErrorCode, ERROR_CODES } from '../../core/errors.js';

/**
 * A JSON response with all its headers in one `writeHead` list (the request id included): Node's fast path,
 * which validates and stores nothing per header before the response is written.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  requestId: string,
  headers?: Record<string, string>,
): void {
  sendJsonText(res, status, JSON.stringify(body), requestId, headers);
}

/** sendJson for a body already serialized (to hash it for an ETag, say). */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  payload: string,
  requestId: string,
  headers?: Record<string, string>,
): void {
  const list = [
    'Content-Type',
    'application/json; charset=utf-8',
    'Content-Length',
    String(Buffer.byteLength(payload)),
    'X-Request-Id',
    requestId,
  ];
  if (headers) for (const [name, value] of Object.entries(headers)) list.push(name, value);
  res.writeHead(status, list);
  res.end(payload);
}

export function sendError(
  res: ServerResponse,
  requestId: string,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  const extra: Record<string, string> = { ...headers };
  if (code === 'unauthorized') extra['WWW-Authenticate'] ??= 'Bearer realm="vault-tools"';
  sendJson(res, ERROR_CODES[code], { error: { code, message, requestId } }, requestId, extra);
}
