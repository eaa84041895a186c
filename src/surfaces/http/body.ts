/** Request bodies: a size limit enforced before and while reading, JSON parsed into an object or a clear 4xx. */
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../../core/errors.js';
import { nestingProblem } from '../json-nesting.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = (limit: number) =>
  new ServiceError(
    'payload_too_large',
    `The request body exceeds the limit of ${limit} bytes; send less (the limit is set with --max-body).`,
  );

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

/** A tool call's body: JSON, an object; an empty body means no arguments. */
export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const type = String(req.headers['content-type'] ?? '');
  const raw = await readBody(req, limit);
  if (raw.length === 0) return {};
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new ServiceError(
      'invalid_request',
      `Content-Type must be application/json (got ${type ? `"${type}"` : 'none'}).`,
    );
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
    throw new ServiceError(
      'invalid_request',
      `The body must be a JSON object of tool arguments (got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}).`,
    );
  }
  return parsed as Record<string, unknown>;
}
