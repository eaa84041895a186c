/** The pieces of sync that read upstream's answers: tolerant parsing, turns recovered from chunks, Retry-After. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { optionalString, orDefault, parseEach, stringList } from '../../src/sync/resources/common.js';
import { turnsOfChunk } from '../../src/sync/resources/meetings.js';
import { retryAfterMs } from '../../src/core/retry.js';
import { parseRemoteUrl } from '../../src/sync/config.js';

describe('parseEach', () => {
  const shape = {
    id: z.string(),
    name: z.string(),
    aliases: stringList,
    note: optionalString,
    weight: orDefault(z.number(), 1),
  };

  it('keeps unknown fields as extras, fills missing optional ones, and skips (with the reason) a record lacking a required field', () => {
    const skipped: string[] = [];
    const records = parseEach({ skip: (r, why) => skipped.push(`${r}: ${why}`) }, 'things', shape, [
      { id: 'a', name: 'A', aliases: ['x'], note: 'n', weight: 3, colour: 'blue', nested: { k: 1 } },
      { id: 'b', name: 'B' },
      { id: 'c', name: null },
      { name: 'no id' },
    ]);
    expect(records.map((r) => r.item)).toEqual([
      { id: 'a', name: 'A', aliases: ['x'], note: 'n', weight: 3 },
      { id: 'b', name: 'B', aliases: [], note: null, weight: 1 },
    ]);
    expect(records[0]!.extra).toEqual({ colour: 'blue', nested: { k: 1 } });
    expect(records[1]!.extra).toBeUndefined();
    expect(skipped).toHaveLength(2);
    expect(skipped[0]).toMatch(/^things: record "c": name /);
    expect(skipped[1]).toMatch(/^things: record: id /);
  });

  it('reports a list that is not a list', () => {
    const skipped: string[] = [];
    expect(parseEach({ skip: (_r, why) => skipped.push(why) }, 'things', shape, { oops: true })).toEqual([]);
    expect(skipped).toEqual(['expected a list, got object']);
  });
});

describe('turnsOfChunk', () => {
  it('splits "Speaker: text" lines into turns, keeps a line without a speaker with the turn before, and times the first turn', () => {
    const turns = turnsOfChunk({
      index: 0,
      turnStart: 4,
      turnEnd: 6,
      speakers: ['Ana Ruiz', 'Ana'],
      startSeconds: 120,
      text: 'Ana Ruiz: First point.\nAna: Second: with a colon.\nand a second line\nAna Ruiz: Third.',
    });
    expect(turns).toEqual([
      { index: 4, speaker: 'Ana Ruiz', text: 'First point.', atSeconds: 120 },
      { index: 5, speaker: 'Ana', text: 'Second: with a colon.\nand a second line', atSeconds: null },
      { index: 6, speaker: 'Ana Ruiz', text: 'Third.', atSeconds: null },
    ]);
  });
});

describe('remote', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(['2'])).toBe(2000);
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const inFive = new Date(Date.now() + 5000).toUTCString();
    expect(retryAfterMs(inFive)).toBeGreaterThan(3000);
    expect(retryAfterMs(inFive)).toBeLessThanOrEqual(5000);
  });

  it('takes a base URL with or without /v1, and refuses what is not http(s)', () => {
    expect(parseRemoteUrl('https://vault.example.com/v1/')).toEqual({
      origin: 'https://vault.example.com',
      basePath: '',
    });
    expect(parseRemoteUrl('http://127.0.0.1:8787/api')).toEqual({ origin: 'http://127.0.0.1:8787', basePath: '/api' });
    expect(() => parseRemoteUrl('vault.example.com')).toThrow(/not a URL/);
    expect(() => parseRemoteUrl('ftp://x')).toThrow(/must be http\(s\)/);
  });
});
