/**
 * Which words of a query the transcript views mark, and how a word is found in a turn: plain string work, no
 * DOM, so it is tested as it is (test/unit/transcript-marks.test.ts).
 */
import { STOPWORDS } from '../src/search/stopwords.js';

/** The words a query marks: its words of two letters or more, without the stop words the search also leaves out. */
export function markWords(query: string): string[] {
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}'-]+/u)
        .filter((w) => w.length >= 2 && !STOPWORDS.has(w)),
    ),
  ];
}

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * A word as `marked` finds it: the whole word, or its plural or possessive ("truck" marks "trucks" and "truck's",
 * "trucks" marks "truck"), never a longer word it starts ("so" is not in "some" or "sorry").
 */
export const wordPattern = (w: string) => {
  const stem = w.length > 3 && /s$/.test(w) && !/ss$/.test(w) ? w.slice(0, -1) : w;
  return `(?<![\\p{L}\\p{N}])${escapeRegExp(stem)}(?:s|es|'s|’s)?(?![\\p{L}\\p{N}])`;
};

/** Whether `text` has one of `words`, as `marked` would mark it. */
export const hasWord = (text: string, words: string[]): boolean =>
  words.length > 0 && new RegExp(words.map(wordPattern).join('|'), 'iu').test(text);
