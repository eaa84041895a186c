/**
 * Names that come from outside (a remote's ids and file names) turned into paths without letting them leave
 * the folder they are meant for. `safeSegment` maps any name to one path segment that is safe on every
 * platform, and two different names never to the same segment; `resolveInside` is the last check before a
 * path is written or deleted. A leaf module (it imports nothing of the project), so any part can use it.
 */
import { createHash } from 'node:crypto';
import { resolve, sep } from 'node:path';

/**
 * Longest segment `safeSegment` returns: far below the 255 bytes file systems allow, so that a temp-file
 * suffix still fits and paths stay short enough for Windows.
 */
export const MAX_SEGMENT_LENGTH = 120;

/** A name that cannot be made a path, or a path that would leave its folder. */
export class UnsafePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafePathError';
  }
}

/**
 * Characters kept as they are. Everything else is percent-encoded (UTF-8 bytes, `%` itself included), which
 * keeps the mapping one-to-one. Upper-case letters are encoded too: on a case-insensitive file system (macOS,
 * Windows) `Abc` and `abc` would otherwise share one folder.
 */
const KEPT = /^[a-z0-9._-]$/;
/** Device names Windows reserves, with or without an extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/;
const HASH_LENGTH = 16;

const hex = (n: number) => `%${n.toString(16).toUpperCase().padStart(2, '0')}`;

function encodeChar(ch: string): string {
  if (KEPT.test(ch)) return ch;
  const code = ch.codePointAt(0)!;
  // A lone surrogate has no UTF-8 form (Buffer.from would turn every one into U+FFFD, merging distinct names).
  if (code >= 0xd800 && code <= 0xdfff) return `%u${code.toString(16).toUpperCase()}`;
  return [...Buffer.from(ch, 'utf8')].map(hex).join('');
}

/**
 * One path segment for `name`, safe on every platform: no separators, no `.` or `..`, no control characters
 * or NUL, no trailing dot, no Windows device name, at most MAX_SEGMENT_LENGTH characters. Plain lower-case
 * names (`northwind-logistics`, `art_3f2a…`, `chart.png`) come back unchanged. Longer results keep their
 * start and extension around `~` and a hash of the whole encoded name (`~` is otherwise always encoded, so
 * a shortened name never equals an unshortened one). Throws UnsafePathError only for an empty name.
 */
export function safeSegment(name: string): string {
  if (typeof name !== 'string' || name === '')
    throw new UnsafePathError('an empty name cannot be a file or folder name');
  let out = '';
  for (const ch of name) out += encodeChar(ch);
  // Windows drops a trailing dot (so `a.` would be `a`), and this also turns `.` and `..` into plain names.
  if (out.endsWith('.')) out = `${out.slice(0, -1)}%2E`;
  if (WINDOWS_RESERVED.test(out)) out = hex(out.charCodeAt(0)) + out.slice(1);
  if (out.length <= MAX_SEGMENT_LENGTH) return out;
  const extension = /\.[a-z0-9]{1,10}$/.exec(out)?.[0] ?? '';
  const hash = createHash('sha256').update(out).digest('hex').slice(0, HASH_LENGTH);
  // Cut before an escape sequence rather than through it.
  const head = out
    .slice(0, MAX_SEGMENT_LENGTH - 1 - HASH_LENGTH - extension.length)
    .replace(/%(u[0-9A-F]{0,3}|[0-9A-F]?)$/, '');
  return `${head}~${hash}${extension}`;
}

/** Whether `child` is strictly inside `parent` (after resolving both; never `parent` itself). */
export function isInside(parent: string, child: string): boolean {
  const root = resolve(parent);
  return resolve(child).startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * `base` joined with `segments`, resolved, and checked to lie strictly inside `base`: the last check before
 * a path built from outside names is written or removed. Throws UnsafePathError otherwise.
 */
export function resolveInside(base: string, ...segments: string[]): string {
  const target = resolve(base, ...segments);
  if (!isInside(base, target))
    throw new UnsafePathError(`${JSON.stringify(segments.join('/'))} would leave ${resolve(base)}`);
  return target;
}
