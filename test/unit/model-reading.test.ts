/**
 * Issue 52's pure parts: the sentences a quote was clipped from (src/catalog/evidence-context.ts), narrowing a
 * list by words (src/catalog/word-match.ts), and the own score a search by phrasings keeps for each excerpt
 * (src/search/phrasings.ts), on inputs written here.
 */
import { describe, expect, it } from 'vitest';
import { sentencesHolding } from '../../src/catalog/evidence-context.js';
import { matchWords } from '../../src/catalog/word-match.js';
import { fuseRankings } from '../../src/search/phrasings.js';

describe('the sentences a quote was clipped from', () => {
  const turn =
    'Detention charges were two hundred and fourteen thousand year to date at the end of October. Haulmark is fifty-eight per cent of that, Swiftline thirty-one. September was the worst month, thirty-four thousand.';

  it('extends a clipped quote to the end of its sentence, so the qualifier comes back', () => {
    expect(sentencesHolding(turn, 'Detention charges were two hundred and fourteen thousand year to date')).toBe(
      'Detention charges were two hundred and fourteen thousand year to date at the end of October.',
    );
  });

  it('starts at the beginning of the sentence, ignores case and spacing, and spans every sentence the quote touches', () => {
    expect(sentencesHolding(turn, 'swiftline   thirty-one')).toBe(
      'Haulmark is fifty-eight per cent of that, Swiftline thirty-one.',
    );
    expect(sentencesHolding(turn, 'thirty-one. September was')).toBe(
      'Haulmark is fifty-eight per cent of that, Swiftline thirty-one. September was the worst month, thirty-four thousand.',
    );
  });

  it('does not cut at a decimal point or an abbreviation without a space, and gives the whole turn when the quote is not in it', () => {
    expect(sentencesHolding('Spend was £1.9m against £1.5m budget. Next item.', 'Spend was £1.9m')).toBe(
      'Spend was £1.9m against £1.5m budget.',
    );
    expect(sentencesHolding(turn, 'something never said')).toBe(turn);
    expect(sentencesHolding(turn, '')).toBe(turn);
  });
});

describe('narrowing a list by words', () => {
  const tasks = [
    'Steering committee #2 deck',
    'Gavin Shaw succession plan',
    'Send agency invoices by site and week',
    'Steer the café reopening',
  ];
  const find = (q: string) => matchWords(tasks, q, (t) => t);

  it('keeps the records holding every word, a word matching the start of one (case and accents aside)', () => {
    expect(find('steering committee')).toEqual(['Steering committee #2 deck']);
    expect(find('SUCCESS')).toEqual(['Gavin Shaw succession plan']);
    expect(find('cafe')).toEqual(['Steer the café reopening']);
  });

  it('falls back to the records holding the most words, and to none when no word matches', () => {
    expect(find('the next steer meeting')).toEqual(['Steering committee #2 deck', 'Steer the café reopening']);
    expect(find('zebra')).toEqual([]);
    expect(find('the of')).toEqual(tasks); // nothing that narrows
  });
});

describe("a search by phrasings keeps each excerpt's own score", () => {
  it('is the best score any phrasing gave it, on the scale of a search without alternatives', () => {
    const hit = (chunkId: number, score: number) => ({ chunkId, score, wordRank: 1, meaningRank: null });
    const fused = fuseRankings(
      [
        [hit(1, 3.2), hit(2, 1.1)],
        [hit(2, 2.7), hit(3, 0.4)],
      ],
      [[0], [1]],
    );
    const own = new Map(fused.map((h) => [h.chunkId, h.ownScore]));
    expect(Object.fromEntries(own)).toEqual({ 1: 3.2, 2: 2.7, 3: 0.4 });
    // The fusion's own score (reciprocal ranks) is on another scale altogether.
    expect(Math.max(...fused.map((h) => h.score))).toBeLessThan(0.5);
  });
});
