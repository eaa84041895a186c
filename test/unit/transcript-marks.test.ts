/**
 * The transcript view marks the words a query is about: not its stop words, and whole words only (the issue's
 * query "Why are trucks waiting so long at the dock?" marked "so", "some", "something" and "sorry").
 */
import { describe, expect, it } from 'vitest';
import { hasWord, markWords } from '../../views/words.js';

describe('the words the transcript view marks', () => {
  const marks = markWords('Why are trucks waiting so long at the dock?');

  it('are the words the question is about, without its stop words', () => {
    expect(marks).toEqual(['trucks', 'waiting', 'long', 'dock']);
  });

  it('match whole words (with a plural or possessive), never a longer word they start', () => {
    for (const text of [
      'some of them',
      'something else',
      'sorry about that',
      'so be it',
      'docket number',
      'longer shifts',
      'waitingroom',
    ]) {
      expect(hasWord(text, marks), text).toBe(false);
    }
    for (const text of [
      'the truck was late',
      'two trucks',
      "the truck's driver",
      'at the dock',
      'docks 3 and 4',
      'a long wait',
      'Waiting again',
    ]) {
      expect(hasWord(text, marks), text).toBe(true);
    }
  });
});
