/**
 * Every day a transcript names, accounted for. one-timeline.test.ts resolves the phrases that name a coming
 * day ("Tuesday week", "a fortnight today"); this file finds every day word spoken in the shipped meetings
 * ("yesterday", "tomorrow", "tonight", "last night", a weekday not said as a habit) and requires each to be
 * listed below: either with the record whose day it names, checked against that record after the demo's move,
 * or with why it names no record (a habit, a hypothetical, a day nothing in the vault records). A new day word
 * that is not listed fails, so a transcript cannot say "yesterday" about a visit the calendar puts a week back.
 */
import { describe, expect, it } from 'vitest';
import { shiftDates, shiftDaysFor } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import type { VaultFixture } from '../../src/vault-format/schema.js';
import { FIXTURE_DIRS } from '../helpers.js';

const DAY = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const WEEKDAY = `(?:${WEEKDAYS.join('|')})`;
/** A day word: not "yesterday's stock" (a habit), not "Mondays" (plural). */
const DAY_WORD = new RegExp(`\\b(?:yesterday|tomorrow|tonight|last night)\\b(?!'s)|\\b${WEEKDAY}\\b(?!s\\b)`, 'gi');
/** Said as a habit or a kind of day: "a Monday", "every Wednesday", "Black Friday", "Monday to Friday", "the Tuesday after". */
const HABIT_BEFORE = /\b(?:a|every|black|the|any)\s+$/i;
const RANGE_AFTER = new RegExp(`^\\s+to\\s+${WEEKDAY}`, 'i');

/** A record of the vault, by kind and id. */
type Record_ =
  | `cal:${string}`
  | `meeting:${string}`
  | `task:${number}`
  | `milestone:${string}`
  | `sent:${string}`
  | `mail:${string}`;
/** What a day word means: the day of a record, said as past or coming (a weekday), or the weekday of a record; or why no record. */
type Meaning =
  | { record: Record_; tense?: 'past' | 'coming' }
  | { weekdayOf: Record_ }
  | 'habit'
  | 'hypothetical'
  | 'not recorded';

/** `meeting#turn:word` (the word as spoken, case kept) → what it means. */
const SAID: Record<string, Meaning> = {
  'mhg-m01-kickoff#19:Thursday': 'habit', // "A good Thursday might be eight or nine"
  'mhg-m01-kickoff#66:Monday': { record: 'cal:cal-ed-shadowing', tense: 'coming' },
  'mhg-m02-ed-shadowing-debrief#0:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#6:Tuesday': 'not recorded', // the morning after the shadowing night
  'mhg-m02-ed-shadowing-debrief#39:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#43:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#45:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#46:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#50:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#51:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#58:Monday': { record: 'cal:cal-ed-shadowing', tense: 'past' },
  'mhg-m02-ed-shadowing-debrief#96:Friday': 'not recorded', // "the write-up by Friday"
  'mhg-m03-bed-management#49:Friday': 'not recorded', // a patient's wait for X-ray
  'mhg-m03-bed-management#107:Tuesday': { record: 'cal:cal-ward7-board-round', tense: 'coming' },
  'mhg-m03-bed-management#108:Tuesday': { record: 'cal:cal-ward7-board-round', tense: 'coming' },
  'mhg-m04-discharge-workshop#26:tomorrow': 'hypothetical', // "If I know today that Mr Jones is going home tomorrow"
  'mhg-m04-discharge-workshop#35:tomorrow': 'hypothetical', // "I'd do it tomorrow"
  'mhg-m04-discharge-workshop#45:Friday': 'habit', // "Monday to Friday"
  'mhg-m04-discharge-workshop#60:Friday': 'habit', // a complaint quoted
  'mhg-m04-discharge-workshop#60:Saturday': 'habit',
  'mhg-m04-discharge-workshop#61:Sunday': 'habit',
  'mhg-m04-discharge-workshop#61:Monday': 'habit',
  'mhg-m04-discharge-workshop#62:Monday': 'habit', // "the Monday effect"
  'mhg-m04-discharge-workshop#92:Monday': 'habit', // "your Monday report"
  'mhg-m05-ehr-systems#52:tomorrow': 'hypothetical', // tomorrow's lists, in general
  'mhg-m05-ehr-systems#54:Friday': {
    record: 'mail:<portatrack-extract.883b0e99.mk@meridianhealth.org.uk>',
    tense: 'past',
  },
  'mhg-m06-finance-workforce#1:Friday': {
    record: 'mail:<agency-split.aae0c5b6.rf@meridianhealth.org.uk>',
    tense: 'coming',
  },
  'mhg-m06-finance-workforce#12:Friday': {
    record: 'mail:<agency-split.aae0c5b6.rf@meridianhealth.org.uk>',
    tense: 'coming',
  },
  'mhg-m06-finance-workforce#83:Friday': {
    record: 'mail:<agency-split.aae0c5b6.rf@meridianhealth.org.uk>',
    tense: 'coming',
  },
  'mhg-m06-finance-workforce#93:tomorrow': { record: 'meeting:mhg-m07-playback' }, // "a week tomorrow"
  'mhg-m06-finance-workforce#94:Tuesday': 'not recorded', // "Send me the slide on Tuesday"
  'mhg-m07-playback#24:Friday': { record: 'mail:<agency-split.aae0c5b6.rf@meridianhealth.org.uk>', tense: 'past' },
  'mhg-m07-playback#28:Monday': 'habit', // "a typical Monday"
  'mhg-m07-playback#47:Tuesday': 'not recorded', // the Winter Plan's Ward 12, "from Tuesday week"
  'mhg-m07-playback#59:Friday': { record: 'task:12', tense: 'coming' }, // "on Friday week"
  'mhg-m07-playback#75:Friday': { record: 'task:12', tense: 'coming' },
  'mhg-m07-playback#82:Tuesday': { record: 'cal:cal-discharge-test-design', tense: 'coming' },
  'mhg-m07-playback#83:Tuesday': { record: 'cal:cal-riverside-visit', tense: 'coming' },
  'mhg-m07-playback#83:Wednesday': { record: 'cal:cal-bedview-deep-dive', tense: 'coming' },
  'nwl-m01-kickoff#82:Wednesday': { record: 'cal:cal-leeds-site-walk', tense: 'coming' }, // "a week on Wednesday"
  'nwl-m01-kickoff#84:Wednesday': { record: 'cal:cal-steerco-1', tense: 'coming' }, // "three weeks on Wednesday"
  'nwl-m02-leeds-site-walk-debrief#4:Wednesday': 'habit', // "a normal Wednesday"
  'nwl-m02-leeds-site-walk-debrief#4:Monday': 'habit', // "Monday's worse"
  'nwl-m02-leeds-site-walk-debrief#54:Friday': 'not recorded', // the cycle count export promised "by Friday"
  'nwl-m02-leeds-site-walk-debrief#79:tomorrow': 'hypothetical',
  'nwl-m02-leeds-site-walk-debrief#95:tomorrow': 'not recorded',
  'nwl-m03-daventry-picking-inventory#2:yesterday': { record: 'cal:cal-daventry-site-walk' },
  'nwl-m03-daventry-picking-inventory#3:Wednesday': { weekdayOf: 'cal:cal-daventry-site-walk' }, // "...'s our lightest day, so you didn't see us at our worst"
  'nwl-m04-returns-deep-dive#0:yesterday': { record: 'cal:cal-daventry-site-walk' }, // the returns area was part of the Daventry walk
  'nwl-m04-returns-deep-dive#87:tonight': 'not recorded',
  'nwl-m05-it-systems#19:Monday': { record: 'milestone:(lifecycle letter)', tense: 'past' }, // checked in one-timeline.test.ts
  'nwl-m05-it-systems#51:Monday': 'not recorded', // a support ticket raised
  'nwl-m06-finance-kpi-baseline#19:Monday': 'not recorded',
  'nwl-m06-finance-kpi-baseline#32:tomorrow': { record: 'meeting:nwl-m07-current-state-playback' }, // "a week tomorrow"
  'nwl-m06-finance-kpi-baseline#94:Tuesday': { record: 'sent:sent-playback-preread', tense: 'coming' },
  'nwl-m07-current-state-playback#10:Monday': 'not recorded', // Ana went through the dock with Marcus
  'nwl-m07-current-state-playback#23:yesterday': 'not recorded', // Tradelink's logs arrived
  'nwl-m07-current-state-playback#24:last night': 'not recorded',
  'nwl-m07-current-state-playback#37:Monday': { record: 'cal:cal-pick-log-walkthrough', tense: 'coming' },
  'nwl-m07-current-state-playback#37:Tuesday': { record: 'cal:cal-bristol-site-visit', tense: 'coming' },
  'nwl-m07-current-state-playback#38:Monday': { record: 'cal:cal-pick-log-walkthrough', tense: 'coming' },
  'nwl-m07-current-state-playback#46:Saturday': 'not recorded', // the cage count "Saturday week": one-timeline.test.ts checks task 10's text
  'nwl-m07-current-state-playback#79:Tuesday': { record: 'cal:cal-wms-long-list', tense: 'coming' }, // "by Tuesday week"
  'nwl-m07-current-state-playback#84:Monday': { record: 'cal:cal-pick-log-walkthrough', tense: 'coming' },
  'nwl-m07-current-state-playback#84:Saturday': 'not recorded',
  'nwl-m07-current-state-playback#87:Tuesday': { record: 'cal:cal-bristol-site-visit', tense: 'coming' },
  'nwl-m07-current-state-playback#88:Tuesday': { record: 'cal:cal-bristol-site-visit', tense: 'coming' },
  'nwl-m07-current-state-playback#90:Wednesday': { record: 'cal:cal-dock-workshop', tense: 'coming' },
  'nwl-m07-current-state-playback#91:Wednesday': { record: 'cal:cal-dock-workshop', tense: 'coming' },
  'nwl-m07-current-state-playback#93:tomorrow': { record: 'milestone:ms-current-state' }, // "signed off by a week tomorrow"
  'nwl-m07-current-state-playback#97:tomorrow': 'not recorded', // notes and pack to follow
};

interface Spoken {
  key: string;
  text: string;
  word: string;
  at: number; // where the word stands in the turn
  said: number; // the meeting's day, UTC midnight
}

/** Every day word of the vault's transcripts that is not said as a habit by its form. */
function spokenDays(f: VaultFixture): Spoken[] {
  return f.meetings.flatMap((m) =>
    m.transcript.flatMap((t, turn) =>
      [...t.text.matchAll(DAY_WORD)]
        .filter(
          (w) => !HABIT_BEFORE.test(t.text.slice(0, w.index)) && !RANGE_AFTER.test(t.text.slice(w.index + w[0].length)),
        )
        .map((w) => ({
          key: `${m.id}#${turn}:${w[0]}`,
          text: t.text,
          word: w[0],
          at: w.index,
          said: Date.parse(`${m.startedAt.slice(0, 10)}T00:00:00Z`),
        })),
    ),
  );
}

/**
 * The day a day word names: "yesterday" the day before, "a week ago yesterday" eight days before,
 * "tomorrow" the day after, "a week tomorrow" eight days after; a weekday the nearest one before (past) or
 * after (coming) the meeting's day, a week later when followed by "week" ("Friday week") or preceded by
 * "a week on" / "three weeks on".
 */
function resolve(s: Spoken, tense: 'past' | 'coming' | undefined): number {
  const before = s.text.slice(0, s.at).toLowerCase();
  const after = s.text.slice(s.at + s.word.length).toLowerCase();
  const word = s.word.toLowerCase();
  const weeksBefore = /\b(a|one|two|three) weeks? (?:on |ago )?$/.exec(before);
  const weeks = weeksBefore ? { a: 1, one: 1, two: 2, three: 3 }[weeksBefore[1] as 'a'] : 0;
  if (word === 'yesterday' || word === 'last night') return s.said - (1 + 7 * weeks) * DAY;
  if (word === 'tomorrow') return s.said + (1 + 7 * weeks) * DAY;
  if (word === 'tonight') return s.said;
  const weekday = WEEKDAYS.indexOf(word);
  const today = new Date(s.said).getUTCDay();
  const base =
    tense === 'past'
      ? s.said - ((today - weekday + 7) % 7 || 7) * DAY
      : s.said + ((weekday - today + 7) % 7 || 7) * DAY;
  return base + (/^ week\b/.test(after) ? 7 : 0) * DAY + 7 * weeks * DAY;
}

function recordDay(f: VaultFixture, r: Record_): string {
  const [kind, id] = [r.slice(0, r.indexOf(':')), r.slice(r.indexOf(':') + 1)];
  const found =
    kind === 'cal'
      ? f.calendar.find((c) => c.id === id)?.startAt
      : kind === 'meeting'
        ? f.meetings.find((m) => m.id === id)?.startedAt
        : kind === 'task'
          ? f.tasks.find((t) => t.number === Number(id))?.dueDate
          : kind === 'milestone'
            ? f.milestones.find((m) => m.id === id)?.targetDate
            : kind === 'sent'
              ? f['sent-emails'].find((e) => e.id === id)?.sentAt
              : f.mailbox.flatMap((t) => t.messages).find((m) => m.id === id)?.sentAt;
  if (!found) throw new Error(`no record ${r}`);
  return found.slice(0, 10);
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const vaults = (['northwind', 'meridian'] as const).map((name) => readVaultDir(FIXTURE_DIRS[name]));

/** The fixture as the demo loads it two weeks and three days after its reference day. */
function moved(f: VaultFixture): VaultFixture {
  const now = new Date(Date.parse(`${f.vault.referenceDate}T10:00:00Z`) + 17 * DAY);
  return shiftDates(f, shiftDaysFor(f.vault.referenceDate, now), f.vault.referenceDate);
}

describe.each(vaults.map((f) => [f.vault.id, moved(f)] as const))('the days %s says in its meetings', (_id, f) => {
  const spoken = spokenDays(f);

  it('are each accounted for: a record they name, or why they name none', () => {
    expect(spoken.length).toBeGreaterThan(20);
    const unlisted = spoken
      .filter((s) => !(s.key in SAID))
      .map((s) => `${s.key}: "${s.text.slice(Math.max(0, s.at - 40), s.at + 40)}"`);
    expect(unlisted).toEqual([]);
  });

  it('name the day of the record they name, after the move', () => {
    const checked = spoken.flatMap((s) => {
      const meaning = SAID[s.key];
      if (!meaning || typeof meaning === 'string' || ('record' in meaning && meaning.record.startsWith('milestone:(')))
        return [];
      if ('weekdayOf' in meaning) {
        const weekday = WEEKDAYS[new Date(`${recordDay(f, meaning.weekdayOf)}T00:00:00Z`).getUTCDay()];
        return [{ key: s.key, said: s.word.toLowerCase(), record: weekday }];
      }
      return [{ key: s.key, said: iso(resolve(s, meaning.tense)), record: recordDay(f, meaning.record) }];
    });
    expect(checked.length).toBeGreaterThan(5);
    expect(checked.filter((c) => c.said !== c.record)).toEqual([]);
  });
});

it('every listed day word is still said (the list holds no stale entries)', () => {
  const keys = new Set(vaults.flatMap((f) => spokenDays(f).map((s) => s.key)));
  expect(Object.keys(SAID).filter((k) => !keys.has(k))).toEqual([]);
});
