/**
 * One timeline: the demo moves its vaults by whole weeks, and everything they say about days moves with them.
 * Prose outside the transcripts writes its dates in digits ("Saturday 28 Nov"), which the loader moves
 * (text-dates.ts; demo-dates.test.ts checks those). The transcripts are speech: there a day is said relative
 * to the meeting ("next Tuesday", "Saturday week", "a fortnight today"), never as a day of the month, so what
 * was said stays true in every week the demo lands in, and a transcript's text (and so its vectors, shipped
 * precomputed) is the same whatever the move. This file reads every day written in words, resolves the
 * spoken ones against their meeting's (moved) date, and checks the records they name.
 */
import { describe, expect, it } from 'vitest';
import { shiftDates, shiftDaysFor } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import type { VaultFixture } from '../../src/vault-format/schema.js';
import { FIXTURE_DIRS } from '../helpers.js';

const DAY = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
  'twentieth',
  'twenty-first',
  'twenty-second',
  'twenty-third',
  'twenty-fourth',
  'twenty-fifth',
  'twenty-sixth',
  'twenty-seventh',
  'twenty-eighth',
  'twenty-ninth',
  'thirtieth',
  'thirty-first',
];
const ORD = `(?:${ORDINALS.join('|')}|\\d{1,2}(?:st|nd|rd|th))`;
const MONTH = `(?:${MONTHS.join('|')}|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\\b)`;
const WEEKDAY = `(?:${WEEKDAYS.join('|')})`;
/** Words an ordinal is followed by when it is not a day ("the second half", "the first time", "the third goes"). */
const NOT_A_DAY = /^\s*(?:\d|[a-z]+(?<!\b(?:and|with|at|then|or|in|is|so|but|to|when|if|yes|please))\b)/i;

/**
 * Days written in words, or as a bare ordinal ("the 14th"): "the second of November", "Tuesday the
 * twenty-fourth", "on the third", "the 25th". A year further than half a year off (a contract's end) is a
 * fact outside the engagement and not a day of its calendar.
 */
function daysInWords(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    new RegExp(`\\bthe ${ORD}(?: of ${MONTH})(?: (\\d{4}))?`, 'gi'),
    new RegExp(`\\b${WEEKDAY},? the ${ORD}\\b`, 'gi'),
    new RegExp(`\\b${MONTH} ${ORD}\\b`, 'gi'),
    new RegExp(`\\b(?:on|by|from|until|till|for|before|after|of) the ${ORD}\\b(?! of)`, 'gi'),
    /\bthe \d{1,2}(?:st|nd|rd|th)\b/gi,
    // "1, 2 and 10 December": the loader reads "10 December" only
    new RegExp(`\\b\\d{1,2}(?:, \\d{1,2})*,? (?:and|or) \\d{1,2} ${MONTH}`, 'gi'),
  ];
  for (const re of patterns) {
    for (const m of text.matchAll(re)) {
      if (m[1] && Number(m[1]) >= 2027) continue;
      if (re === patterns[3] && NOT_A_DAY.test(text.slice(m.index + m[0].length))) continue;
      found.push(m[0]);
    }
  }
  return found;
}

/** Every string of a fixture with where it stands, ids and date fields aside. */
function prose(f: VaultFixture): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  const walk = (v: unknown, where: string) => {
    if (typeof v === 'string') out.push({ where, text: v });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
  };
  walk(f, f.vault.id);
  return out;
}

const vaults = (['northwind', 'meridian'] as const).map((name) => readVaultDir(FIXTURE_DIRS[name]));
const byId = (id: string) => vaults.find((v) => v.vault.id === id)!;

/** The fixture as the demo loads it two weeks and three days after its reference day (a move of 14 days). */
function moved(f: VaultFixture): VaultFixture {
  const now = new Date(Date.parse(`${f.vault.referenceDate}T10:00:00Z`) + 17 * DAY);
  return shiftDates(f, shiftDaysFor(f.vault.referenceDate, now), f.vault.referenceDate);
}

/**
 * The day a spoken reference names, said on `said` (UTC midnight): "next Tuesday" and "on Tuesday" are the
 * coming one, "Tuesday week" and "a week on Tuesday" the one after, "three weeks on Wednesday" two more,
 * "this Monday" the Monday of the week it is said in, "in a fortnight", "a week tomorrow", "a fortnight today", "four weeks today".
 */
function resolveSpoken(phrase: string, said: number): number {
  const p = phrase.toLowerCase();
  const counts: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4 };
  const coming = (weekday: string) =>
    said + ((WEEKDAYS.indexOf(weekday) - new Date(said).getUTCDay() + 7) % 7 || 7) * DAY;
  let m: RegExpExecArray | null;
  if ((m = /\bin a (week|fortnight)\b/.exec(p))) return said + (m[1] === 'fortnight' ? 14 : 7) * DAY;
  if ((m = /\b(a|one|two|three|four) (week|fortnight|weeks) (today|tomorrow)\b/.exec(p))) {
    const weeks = counts[m[1]!]! * (m[2] === 'fortnight' ? 2 : 1);
    return said + (weeks * 7 + (m[3] === 'tomorrow' ? 1 : 0)) * DAY;
  }
  if ((m = new RegExp(`\\b(a|one|two|three|four) weeks? on (${WEEKDAY})\\b`).exec(p)))
    return coming(m[2]!) + counts[m[1]!]! * 7 * DAY;
  if ((m = new RegExp(`\\b(${WEEKDAY}) week\\b`).exec(p))) return coming(m[1]!) + 7 * DAY;
  if ((m = new RegExp(`\\bthis (${WEEKDAY})\\b`).exec(p)))
    return said + (WEEKDAYS.indexOf(m[1]!) - new Date(said).getUTCDay()) * DAY;
  if ((m = new RegExp(`\\b(?:next|on) (${WEEKDAY})\\b`).exec(p))) return coming(m[1]!);
  throw new Error(`no day read in "${phrase}"`);
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const MONTH_SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** What the issue found said in words, each with the record its day belongs to. */
const SPOKEN: { vault: string; meeting: string; phrase: string; record: (f: VaultFixture) => string }[] = [
  {
    vault: 'meridian-health',
    meeting: 'mhg-m01-kickoff',
    phrase: 'next Monday, a week today',
    record: (f) => calendarDay(f, 'cal-ed-shadowing'),
  },
  {
    vault: 'meridian-health',
    meeting: 'mhg-m03-bed-management',
    phrase: 'systems session in a fortnight',
    record: (f) => meetingDay(f, 'mhg-m05-ehr-systems'),
  },
  {
    vault: 'meridian-health',
    meeting: 'mhg-m06-finance-workforce',
    phrase: 'current state, a week tomorrow',
    record: (f) => meetingDay(f, 'mhg-m07-playback'),
  },
  {
    vault: 'meridian-health',
    meeting: 'mhg-m07-playback',
    phrase: 'steering group a fortnight today',
    record: (f) => calendarDay(f, 'cal-steering-group'),
  },
  {
    vault: 'meridian-health',
    meeting: 'mhg-m07-playback',
    phrase: 'design session for Tuesday week',
    record: (f) => calendarDay(f, 'cal-discharge-test-design'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m01-kickoff',
    phrase: 'Leeds a week on Wednesday',
    record: (f) => calendarDay(f, 'cal-leeds-site-walk'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m01-kickoff',
    phrase: 'steering committees three weeks on Wednesday',
    record: (f) => calendarDay(f, 'cal-steerco-1'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m05-it-systems',
    phrase: 'dated this Monday',
    record: (f) =>
      writtenDay(
        f,
        f.entities.map((e) => e.description ?? '').join('\n'),
        /lifecycle letter of (\d{1,2}) ([A-Z][a-z]+) (\d{4})/,
      ),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m06-finance-kpi-baseline',
    phrase: 'playback a week tomorrow',
    record: (f) => meetingDay(f, 'nwl-m07-current-state-playback'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m07-current-state-playback',
    phrase: 'steering committee a fortnight today',
    record: (f) => calendarDay(f, 'cal-steerco-2'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m07-current-state-playback',
    phrase: 'Next Tuesday, yes',
    record: (f) => calendarDay(f, 'cal-bristol-site-visit'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m07-current-state-playback',
    phrase: 'Next Wednesday, at Leeds',
    record: (f) => calendarDay(f, 'cal-dock-workshop'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m07-current-state-playback',
    phrase: 'by Tuesday week',
    record: (f) => calendarDay(f, 'cal-wms-long-list'),
  },
  {
    vault: 'northwind-logistics',
    meeting: 'nwl-m07-current-state-playback',
    phrase: 'cage count on Saturday week',
    record: (f) =>
      writtenDay(f, f.tasks.find((t) => t.number === 10)!.description ?? '', /Saturday (\d{1,2}) ([A-Z][a-z]{2})/),
  },
];

function calendarDay(f: VaultFixture, id: string): string {
  const e = f.calendar.find((c) => c.id === id);
  if (!e) throw new Error(`no calendar event ${id}`);
  return e.startAt.slice(0, 10);
}
function meetingDay(f: VaultFixture, id: string): string {
  const m = f.meetings.find((x) => x.id === id);
  if (!m) throw new Error(`no meeting ${id}`);
  return m.startedAt.slice(0, 10);
}
/** The day a text writes in digits ("9 November 2026", "Saturday 5 Dec"), the year of the reference day when none is written. */
function writtenDay(f: VaultFixture, text: string, re: RegExp): string {
  const m = re.exec(text);
  if (!m) throw new Error(`no date in "${text.slice(0, 80)}"`);
  const month = MONTH_SHORT.indexOf(m[2]!.slice(0, 3));
  return iso(Date.UTC(Number(m[3] ?? f.vault.referenceDate.slice(0, 4)), month, Number(m[1])));
}

describe('one timeline', () => {
  it.each(vaults.map((f) => [f.vault.id, f] as const))(
    '%s writes no day of the month in words (the loader moves days written in digits)',
    (_id, f) => {
      const inWords = prose(f).flatMap(({ where, text }) => daysInWords(text).map((d) => `${where}: "${d}"`));
      expect(inWords).toEqual([]);
    },
  );

  it.each(vaults.map((f) => [f.vault.id, f] as const))(
    '%s: what was said in its meetings reads the same after the move (days said relative to the meeting)',
    (_id, f) => {
      const after = moved(f);
      const changed = f.meetings.flatMap((m, i) =>
        m.transcript.flatMap((t, j) =>
          after.meetings[i]!.transcript[j]!.text === t.text
            ? []
            : [`${m.id} turn ${j}: "${t.text}" became "${after.meetings[i]!.transcript[j]!.text}"`],
        ),
      );
      expect(changed).toEqual([]);
    },
  );

  it.each(SPOKEN.map((s) => [`${s.meeting}: "${s.phrase}"`, s] as const))(
    '%s names, after the move, the moved day of its record',
    (_label, s) => {
      const f = moved(byId(s.vault));
      const meeting = f.meetings.find((m) => m.id === s.meeting)!;
      const turn = meeting.transcript.find((t) => t.text.toLowerCase().includes(s.phrase.toLowerCase()));
      expect(turn, `"${s.phrase}" in ${s.meeting}`).toBeDefined();
      const said = Date.parse(`${meeting.startedAt.slice(0, 10)}T00:00:00Z`);
      expect(iso(resolveSpoken(s.phrase, said))).toBe(s.record(f));
    },
  );

  it.each(vaults.map((f) => [f.vault.id, f] as const))(
    '%s: no identifier carries a date (a moved record would disagree with it)',
    (_id, f) => {
      const dated = prose(f).filter(
        ({ where, text }) =>
          /\.(?:id|[a-zA-Z]+Id|messageId|inReplyTo)$|\.references\[\d+\]$/.test(where) &&
          /20\d\d-?[01]\d-?[0-3]\d/.test(text),
      );
      expect(dated.map((d) => `${d.where}: ${d.text}`)).toEqual([]);
    },
  );
});
