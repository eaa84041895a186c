/** Request bodies: a size limit enforced before and while reading, JSON parsed into an object or a clear 4xx. */
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../../core/errors.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = (limit: number) =>
  new ServiceError('payload_too_large', `The request body exceeds the limit of ${limit} bytes; send less (the limit is set with --max-body).`);

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause(); // read nothing further
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * How deep JSON in a body may nest (objects and arrays within each other): twice what the deepest argument may
 * (a chart spec, 100 levels, render/chart/validate). Deeper JSON parses, but every recursive walk after that (the
 * MCP SDK's JSON.stringify of the message, schema checks) risks the stack: it is refused before any of them.
 */
export const MAX_JSON_DEPTH = 200;

/**
 * Why a body that parsed as JSON is refused for its nesting, or undefined: a scan of the bytes, no recursion.
 * Only `[`, `{`, `]`, `}` outside strings count; a UTF-8 continuation byte is never one of them.
 */
export function nestingProblem(raw: Buffer): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (inString) {
      if (b === 0x5c) i++; // a backslash escapes the next byte (\" stays in the string)
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return `The body's JSON nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; no request needs that many: send flatter JSON.`;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return undefined;
}

/** A tool call's body: JSON, an object; an empty body means no arguments. */
export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '');
  const raw = await readBody(req, limit);
  if (raw.length === 0) return {};
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ServiceError('invalid_request', `Content-Type must be application/json (got ${type ? `"${type}"` : 'none'}).`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new ServiceError('invalid_request', `The body is not valid JSON: ${(err as Error).message}.`);
  }
  const tooDeep = nestingProblem(raw);
  if (tooDeep) throw new ServiceError('invalid_request', tooDeep);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ServiceError('invalid_request', `The body must be a JSON object of tool arguments (got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}).`);
  }
  return parsed as Record<string, unknown>;
}
