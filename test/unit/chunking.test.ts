import { describe, expect, it } from 'vitest';
import { chunkTurns, CHUNK_MAX_CHARS } from '../../src/search/chunking.js';

const turn = (index: number, speaker: string, text: string) => ({ index, speaker, text, atSeconds: index * 10 });

describe('transcript chunking', () => {
  it('packs whole turns up to the target and keeps turn ranges and speakers', () => {
    const turns = Array.from({ length: 30 }, (_, i) =>
      turn(i, i % 2 ? 'Ana' : 'Ben', `Sentence number ${i} with some words in it.`.repeat(3)),
    );
    const chunks = chunkTurns(turns, 600);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]!.turnStart).toBe(0);
    expect(chunks.at(-1)!.turnEnd).toBe(29);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.turnStart).toBe(chunks[i - 1]!.turnEnd + 1);
    expect(chunks.every((c) => c.text.length <= 600 || c.turnStart === c.turnEnd)).toBe(true);
    expect(chunks[0]!.speakers.sort()).toEqual(['Ana', 'Ben']);
    expect(chunks.map((c) => c.text).join('\n')).toBe(turns.map((t) => `${t.speaker}: ${t.text}`).join('\n'));
  });

  it('splits a single over-long turn at sentence ends', () => {
    const long = 'This is one sentence of a very long monologue. '.repeat(120);
    const chunks = chunkTurns([turn(0, 'Ana', long), turn(1, 'Ben', 'Short reply.')]);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((c) => c.text.length <= CHUNK_MAX_CHARS)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.turnStart === 0 && c.turnEnd === 0 && c.text.endsWith('.'))).toBe(true);
    expect(chunks.at(-1)!.text).toBe('Ben: Short reply.');
  });

  it('a speaker name longer than a chunk (a synced one: the fixture format bounds it) ends, and keeps all the text (issue 45, item 6)', () => {
    // It looped here, cutting a piece of negative length off the same text until the heap was gone.
    const speaker = 'S'.repeat(2000);
    const text = 'One sentence of the turn. '.repeat(400);
    const chunks = chunkTurns([turn(0, speaker, text), turn(1, 'Ben', 'Short reply.')]);
    const pieces = chunks.slice(0, -1);
    expect(pieces.length).toBeGreaterThan(0);
    for (const c of pieces) expect(c.text.startsWith(`${speaker}: `)).toBe(true);
    expect(pieces.map((c) => c.text.slice(speaker.length + 2)).join(' ')).toBe(text.trim());
    expect(chunks.at(-1)!.text).toBe('Ben: Short reply.');
  });
});
