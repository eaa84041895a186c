/**
 * The names a conversation mentions (people, organisations, sites, products): runs of capitalised words that are
 * not capitalised merely for starting a sentence, and are not words people capitalise anyway (I, days, months,
 * office tools, common acronyms, the catalog's own nouns). suggest_vault_scope compares them with what a vault
 * advertises, to tell a conversation about another client from a generic one.
 *
 * Limits, on purpose on the side of asking rather than guessing: a one-word name that opens a sentence
 * ("Carla said …") is not seen, nor a name written in lower case; a sentence of three or more words with no
 * lower-case word (Title Case, or all capitals) carries no signal and is skipped.
 */
import { normalize } from '../store/text.js';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const SENTENCE_BREAK = /[.!?;:\n]/;

/** Lower-cased words people capitalise that name no client. */
const COMMON = new Set(
  [
    'i mr mrs ms dr hi hello hey thanks ok okay yes no',
    'monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday',
    'january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec',
    'excel word powerpoint outlook gmail google drive docs sheets slack teams zoom meet jira notion confluence claude chatgpt openai anthropic',
    'ai api apis mcp pdf csv xlsx sql url json http rest sdk',
    'kpi kpis okr okrs roi sla slas erp crm ceo cfo coo cto cio vp hr it pm am utc gmt fyi asap eta eod tbd tba faq',
    'uk us usa eu',
    'vault vaults brief briefs daily weekly digest plan conflict conflicts finding findings task tasks meeting meetings',
    'milestone milestones transcript transcripts calendar report reports workbook chart charts dashboard entity entities',
  ]
    .join(' ')
    .split(' '),
);

/** Sentence openers that are never part of a name ("Did Carla Mendes …" names Carla Mendes, not "Did"). */
const OPENERS = new Set(
  'a an and are as at but by can could did do does for from had has have how if in is it let lets may might of on or please should show so tell the then there these they this those to was we were what when where which who why will with would you your our my give find list compare draft send write'.split(
    ' ',
  ),
);

interface Word {
  text: string;
  /** the first word of a sentence (or of the text) */
  opens: boolean;
  /** only spaces or tabs separate it from the word before (a name continues across them, not across punctuation) */
  joined: boolean;
}

const capitalised = (w: string) => /^\p{Lu}/u.test(w);
const bare = (w: string) => w.replace(/['’]s$/iu, '');
const common = (w: string) => {
  const n = normalize(bare(w));
  return n.length < 2 || COMMON.has(n) || /^([qh][1-4]|fy\d{2,4}|\d+\w*)$/.test(n);
};

/** Each name the text mentions, as written (possessive 's dropped), in order of first mention, each once. */
export function mentionedNames(text: string): string[] {
  const sentences: Word[][] = [];
  let end = 0;
  for (const m of text.matchAll(WORD)) {
    const gap = text.slice(end, m.index);
    const opens = sentences.length === 0 || SENTENCE_BREAK.test(gap);
    if (opens) sentences.push([]);
    sentences.at(-1)!.push({ text: m[0], opens, joined: /^[ \t]*$/.test(gap) });
    end = m.index + m[0].length;
  }
  const names = new Set<string>();
  for (const words of sentences) {
    if (words.length >= 3 && !words.some((w) => /^\p{Ll}/u.test(w.text))) continue;
    const isName = words.map((w, i) => capitalised(w.text) && !common(w.text) && i > 0);
    // A sentence's first word belongs to a name when a name follows it at once and it is no common opener.
    if (
      words.length > 1 &&
      isName[1] &&
      words[1]!.joined &&
      capitalised(words[0]!.text) &&
      !common(words[0]!.text) &&
      !OPENERS.has(normalize(words[0]!.text))
    ) {
      isName[0] = true;
    }
    let run: string[] = [];
    const flush = () => {
      if (run.length) names.add(run.join(' '));
      run = [];
    };
    words.forEach((w, i) => {
      if (!isName[i]) return flush();
      if (run.length && !w.joined) flush();
      run.push(bare(w.text));
    });
    flush();
  }
  return [...names];
}
