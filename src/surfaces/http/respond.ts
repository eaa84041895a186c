/** Writing responses: JSON bodies, the error body, and the headers every response carries. */
import type { ServerResponse } from 'node:http';
import { ServiceError, type ErrorCode, ERROR_CODES } from '../../service/errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const payload = JSON.stringify(body);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.writeHead(status, headers);
  res.end(payload);
}

export function sendError(res: ServerResponse, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  const requestId = String(res.getHeader('X-Request-Id') ?? '');
  const extra: Record<string, string> = { ...headers };
  if (code === 'unauthorized') extra['WWW-Authenticate'] = 'Bearer realm="vault-tools"';
  sendJson(res, ERROR_CODES[code], { error: { code, message, requestId } }, extra);
}

export function sendServiceError(res: ServerResponse, err: ServiceError, headers: Record<string, string> = {}): void {
  sendError(res, err.code, err.message, headers);
}
