/**
 * What kind of disagreement an open conflict is, read from its own data: the note the team recorded on it
 * first (a note that says the figures use different definitions, denominators, timestamps or scopes makes it a
 * matter of definition, whatever the claims say), then its claims (two figures, two dates). A conflict slide
 * says this rather than "the claims cannot both be true", which a note may already have shown to be wrong.
 */
import type { FeaturedConflict } from '../export/featured.js';

export type DisagreementKind = 'definition' | 'measurement' | 'date' | 'account';

export interface Disagreement {
  kind: DisagreementKind;
  /** The slide's one line about it. */
  sentence: string;
}

/** Words by which a note says the two figures count different things. */
const DEFINITION =
  /\b(definitions?|defined|denominators?|scopes?|basis|runs from|measured from|not end to end|timestamps?|time-stamps?|value-based|different measures?|counts? (?:only|from))\b/i;
const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december';
/** A date in a claim: a year, a month name with a day or a year, a weekday. */
const DATE = new RegExp(
  `\\b(19|20)\\d{2}\\b|\\b(${MONTHS})\\b|\\b\\d{1,2}(st|nd|rd|th)? of (${MONTHS})\\b|\\b(monday|tuesday|wednesday|thursday|friday)\\b`,
  'i',
);
/** A figure in a claim, in digits or in words (transcripts spell numbers out). */
const FIGURE =
  /\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|half|per ?cent)\b/i;

export function disagreementOf(conflict: Pick<FeaturedConflict, 'note' | 'claims'>): Disagreement {
  const note = conflict.note ?? '';
  if (DEFINITION.test(note))
    return {
      kind: 'definition',
      sentence: 'A question of definition: the figures count different things, so both may be right.',
    };
  const claims = conflict.claims.map((c) => c.quote);
  const all = (re: RegExp) => claims.length >= 2 && claims.every((q) => re.test(q));
  if (all(DATE) && claims.some((q) => /\b(19|20)\d{2}\b/.test(q)))
    return { kind: 'date', sentence: 'A question of dates: the sources give different dates for the same thing.' };
  if (all(FIGURE))
    return {
      kind: 'measurement',
      sentence: 'A question of measurement: the sources give different figures for the same thing.',
    };
  return { kind: 'account', sentence: 'The sources give different accounts of the same thing.' };
}
