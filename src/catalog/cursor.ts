/**
 * Page cursors, opaque to callers: base64url JSON of where the last page ended plus the query it belongs
 * to (`q`), so a cursor replayed against other filters is refused rather than misread. Keyset paging keeps
 * pages stable and deep pages as fast as the first.
 */
import { invalidArgument } from '../core/errors.js';

export const encodeCursor = <C extends { q: string }>(c: C) => Buffer.from(JSON.stringify(c)).toString('base64url');

/** The cursor's fields, when it is one this tool issued (`valid`) for this query; otherwise the caller's error. */
export function decodeCursor<C extends { q: string }>(
  raw: string,
  signature: string,
  valid: (c: C) => boolean,
  otherQuery: string,
): C {
  let c: C | undefined;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as C;
  } catch {
    // reported below, like any other cursor that is not ours
  }
  if (!c || typeof c !== 'object' || typeof c.q !== 'string' || !valid(c)) {
    throw invalidArgument(
      'cursor',
      'not a cursor this tool issued; pass the `nextCursor` of the previous page unchanged',
    );
  }
  if (c.q !== signature) throw invalidArgument('cursor', otherQuery);
  return c;
}
