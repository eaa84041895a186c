/**
 * What a draft says besides the speaker when it attributes a quotation ("(Tom Becker, kickoff, 12 Oct)"): a day
 * and a meeting, compared with where the words were really said. Undecided (null) when the draft says neither.
 */
import { normalize } from '../../store/text.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = String.raw`(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?`;
const DATES: [RegExp, (m: RegExpExecArray) => { y?: number; m: number; d: number }][] = [
  [/\b(\d{4})-(\d{2})-(\d{2})\b/, (m) => ({ y: +m[1]!, m: +m[2]!, d: +m[3]! })],
  [
    new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH}(?:,?\s+(\d{4}))?`, 'i'),
    (m) => ({ d: +m[1]!, m: MONTHS.indexOf(m[2]!.toLowerCase()) + 1, y: m[3] ? +m[3] : undefined }),
  ],
  [
    new RegExp(String.raw`\b${MONTH}\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?`, 'i'),
    (m) => ({ d: +m[2]!, m: MONTHS.indexOf(m[1]!.toLowerCase()) + 1, y: m[3] ? +m[3] : undefined }),
  ],
];

/** The day a detail names, if it names one, and the detail without it. */
function dayIn(detail: string): { day?: { y?: number; m: number; d: number }; rest: string } {
  for (const [re, read] of DATES) {
    const m = re.exec(detail);
    if (m) return { day: read(m), rest: detail.slice(0, m.index) + detail.slice(m.index + m[0].length) };
  }
  return { rest: detail };
}

/** Words of a detail that name no meeting. */
const FRAME = new Set([
  'the',
  'a',
  'an',
  'in',
  'at',
  'on',
  'during',
  'of',
  'meeting',
  'session',
  'call',
  'workshop',
  'and',
  'with',
  'our',
  'their',
]);

/** Whether the draft's day and meeting agree with the meeting the words were said in (null: the draft does not say). */
export function detailMatches(
  detail: string | null,
  meetingName: string,
  meetingDate: string,
): { date: boolean | null; meeting: boolean | null } {
  if (!detail) return { date: null, meeting: null };
  const { day, rest } = dayIn(detail);
  const when = new Date(meetingDate);
  const date = day
    ? when.getUTCDate() === day.d &&
      when.getUTCMonth() + 1 === day.m &&
      (day.y === undefined || when.getUTCFullYear() === day.y)
    : null;
  const words = normalize(rest)
    .split(' ')
    .filter((w) => w.length > 2 && !FRAME.has(w) && !/^\d+$/.test(w));
  const named = new Set(normalize(meetingName).split(' '));
  // A word of the meeting's name, or its start ("debrief" for "Debrief", "walk" for "walks").
  const inName = (w: string) =>
    named.has(w) || [...named].some((n) => n.length > 3 && (n.startsWith(w) || w.startsWith(n)));
  return { date, meeting: words.length ? words.every(inName) : null };
}
