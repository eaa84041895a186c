/** Outside names as path segments: nothing leaves its folder, nothing collides, plain names stay plain. */
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, MAX_SEGMENT_LENGTH, resolveInside, safeSegment, UnsafePathError } from '../../src/safe-path.js';

/** A segment usable verbatim on Linux, macOS and Windows. */
function expectSafe(segment: string): void {
  expect(segment).not.toBe('');
  expect(segment).not.toMatch(/^\.{1,2}$/);
  expect(segment).not.toMatch(/[/\\<>:"|?*\u0000-\u001f\u007f]/);
  expect(segment).not.toMatch(/[. ]$/);
  expect(segment).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
  expect(segment.length).toBeLessThanOrEqual(MAX_SEGMENT_LENGTH);
  expect(/[^\x20-\x7e]/.test(segment)).toBe(false); // ASCII: no Unicode normalisation can merge two of them
}

describe('safeSegment', () => {
  it('keeps plain lower-case names as they are', () => {
    for (const name of [
      'northwind-logistics',
      'art_3f2a9c0d11aa4b2e',
      'pick-rate-by-source.png',
      'report.v2.pdf',
      '.hidden',
    ]) {
      expect(safeSegment(name)).toBe(name);
    }
  });

  it('never gives ".", ".." or a name with a separator, and keeps them inside their folder', () => {
    const hostile = [
      '.',
      '..',
      '...',
      '../../x',
      '..\\..\\x',
      '/etc/passwd',
      'a/b',
      'a\\b',
      'C:\\x',
      'x\u0000.txt',
      'tab\there',
      'bell\u0007',
      'esc\u001b[31m',
      'del\u007f',
      'end.',
      'end ',
      ' ',
    ];
    const base = join(tmpdir(), 'vt-safe-base');
    for (const name of hostile) {
      const segment = safeSegment(name);
      expectSafe(segment);
      expect(resolve(base, segment)).toBe(join(base, segment));
    }
    expect(safeSegment('.')).toBe('%2E');
    expect(safeSegment('..')).toBe('.%2E');
    expect(safeSegment('../../x')).toBe('..%2F..%2Fx');
    expect(safeSegment('x\u0000.txt')).toBe('x%00.txt');
  });

  it('re-encodes Windows device names, with or without an extension, in any case', () => {
    for (const name of ['con', 'CON', 'nul', 'Nul.txt', 'com1', 'lpt9.log', 'aux.tar.gz', 'prn'])
      expectSafe(safeSegment(name));
    expect(safeSegment('con.txt')).toBe('%63on.txt');
    expect(safeSegment('console')).toBe('console');
  });

  it('shortens long names to a bounded segment that keeps the start and the extension', () => {
    const long = `${'a'.repeat(5000)}.png`;
    const segment = safeSegment(long);
    expectSafe(segment);
    expect(segment).toMatch(/^a+~[0-9a-f]{16}\.png$/);
    // A long run of escapes is never cut through the middle of one.
    const escaped = safeSegment('é'.repeat(500));
    expectSafe(escaped);
    expect(escaped).toMatch(/^(%[0-9A-F]{2})+~[0-9a-f]{16}$/);
    expect(safeSegment('a'.repeat(MAX_SEGMENT_LENGTH))).toBe('a'.repeat(MAX_SEGMENT_LENGTH));
  });

  it('maps different names to different segments, also on a case-insensitive file system', () => {
    const names = [
      '..',
      '.%2E',
      '.',
      '%2E',
      '%',
      '%25',
      'a.',
      'a%2E',
      'a',
      'A',
      'Ab',
      'aB',
      'ab',
      'a b',
      'a_b',
      'a/b',
      'a\\b',
      'a:b',
      'a%2Fb',
      'con',
      '%63on',
      'Con',
      'x\u0000',
      'x',
      'x\u0001',
      'e\u0301',
      '\u00e9',
      '\ud800',
      '\udc00',
      '\ufffd',
      '~',
      '%7E',
      `${'a'.repeat(200)}1`,
      `${'a'.repeat(200)}2`,
      `${'a'.repeat(200)}1.png`,
      `${'a'.repeat(200)}2.png`,
      'a'.repeat(103),
    ];
    const folded = new Map<string, string>();
    for (const name of names) {
      const key = safeSegment(name).toLowerCase();
      expect(folded.get(key), `${JSON.stringify(name)} and ${JSON.stringify(folded.get(key))} collide`).toBeUndefined();
      folded.set(key, name);
    }
  });

  it('refuses an empty name', () => {
    expect(() => safeSegment('')).toThrow(UnsafePathError);
  });
});

describe('resolveInside', () => {
  const base = join(tmpdir(), 'vt-base', 'artifacts');

  it('gives the joined path when it stays strictly inside', () => {
    expect(resolveInside(base, 'v', 'a', 'f.png')).toBe(join(base, 'v', 'a', 'f.png'));
    expect(resolveInside(`${base}${sep}`, 'v')).toBe(join(base, 'v'));
  });

  it('refuses a path that leaves the folder, is the folder itself, or only shares its prefix', () => {
    for (const segments of [
      ['..'],
      ['v', '..', '..'],
      ['.'],
      [''],
      ['v', '../../x'],
      ['/etc/passwd'],
      ['..', 'artifacts-other'],
      [`..${sep}artifacts2`],
    ]) {
      expect(() => resolveInside(base, ...segments), JSON.stringify(segments)).toThrow(UnsafePathError);
    }
  });

  it('isInside compares whole segments', () => {
    expect(isInside(base, join(base, 'x'))).toBe(true);
    expect(isInside(base, `${base}2`)).toBe(false);
    expect(isInside(base, base)).toBe(false);
    expect(isInside('/', '/etc')).toBe(true);
  });
});
