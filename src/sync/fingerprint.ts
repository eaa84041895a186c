/** A short digest of a JSON value: whether a record or a list changed since the last sync, whether a cursor came back. */
import { createHash } from 'node:crypto';

export const fingerprint = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
