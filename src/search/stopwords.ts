/**
 * Function words ("so", "at", "the", "why"): what a question is made of, not what it is about. The word search
 * weighs a query without them, and the transcript view does not mark them: one list for both.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to us was we were what when where which who why will with would you your about could should can any all been being just also very'.split(
    ' ',
  ),
);
