/**
 * What the embedder reads of a chunk. Transcripts carry editorial marks that are not speech: `{disfmarker}`,
 * `{vocalsound}` (QMSum/AMI), `[inaudible]`, `[laughter]`, `[00:12:03]`, `(laughs)`, `(crosstalk)`; and some
 * carry a tokeniser's spacing ("we 're", "it ,"), fillers ("um", "uh") and spoken repeats ("the the", "which one
 * which one"). USE-lite reads 128 tokens a window, and all of this took an eighth of a QMSum chunk's characters.
 * Leaving it out (speaker labels and short replies such as "Yeah." stay: taking those out too measured worse)
 * lifted QMSum on both halves (docs/search.md, seventh, sixteenth and seventeenth rounds). Text without any of this
 * comes back as it is, so its vector, and the hash that keys it, does not change.
 */
import { createHash } from 'node:crypto';

/** Curly and square brackets around a short note are editorial in a transcript, whatever they say. */
const BRACKETED = /\{[^{}\n]{0,60}\}|\[[^[\]\n]{0,60}\]/g;
/** Parentheses are also speech ("the dock (the new one)"), so only a note of a sound is taken out. */
const PARENTHESISED = /\(([^()\n]{1,40})\)/g;
const SOUND =
  /\b(?:laugh\w*|chuckl\w*|inaudible|unintelligible|crosstalk|cross-talk|noise|pause|silence|cough\w*|sigh\w*|applause|music|static|background|indistinct|overlapping|no audio)\b/i;
/**
 * Fillers: "um", "uh", "erm", "hmm", "mm-hmm", "uh-huh" (any length: "ummm"), with a comma or full stop of their
 * own. In lower case or capitalised only, so an acronym in capitals ("UM") stays.
 */
const FILLER = /(^|\s)(u+m+|u+h+|e+r+m+|h+m+|m+-?h+m+|uh-huh)[,.]?(?=\s|$)/gi;
const HAS_FILLER = new RegExp(FILLER.source, 'im'); // not global: test() keeps no position between calls
const isFiller = (word: string) =>
  word === word.toLowerCase() || word === word[0]!.toUpperCase() + word.slice(1).toLowerCase();

/** A word said again at once, any number of times ("the the the"), then a pair of words ("which one which one"): said once. */
const REPEATED_WORD = /\b(\w+)(?: \1\b)+/gi;
const REPEATED_PAIR = /\b(\w+ \w+)(?: \1\b)+/gi;
/** A speaker label at the start of a line, as chunks are written ("Speaker: words"). */
const LABEL = /^[^:\n]{1,60}:\s+/;

/**
 * Whatever cleanSpeech or the line handling below would change: a bracket, whitespace before punctuation or an
 * apostrophe, "n't" after a space, whitespace other than single spaces between words, a line's leading or trailing
 * space, an empty line, speech that starts with punctuation; or a repeat (REPEATED_WORD, REPEATED_PAIR) or a filler.
 */
const MAY_CHANGE = /[{[(]|\s[,.?!;:]|\s'(?:s|re|ve|ll|d|m)\b|\sn't\b|[^\S \n]| {2}|^ | $|^$|^[,.;:]|: [,.;:]/im;
const HAS_REPEAT = /\b(\w+(?: \w+)?) \1\b/i; // not global: test() keeps no position between calls
const mayChange = (text: string) => MAY_CHANGE.test(text) || HAS_REPEAT.test(text) || HAS_FILLER.test(text);

/** One line of speech without its marks, its tokeniser spacing mended. */
function cleanSpeech(speech: string): string {
  return speech
    .replace(BRACKETED, ' ')
    .replace(PARENTHESISED, (note, inner: string) => (SOUND.test(inner) ? ' ' : note))
    .replace(/\s+([,.?!;:])/g, '$1') // "it ," → "it,"
    .replace(/(\w)\s+('(?:s|re|ve|ll|d|m)\b|n't\b)/gi, '$1$2') // "we 're" → "we're"
    .replace(FILLER, (all, before: string, word: string) => (isFiller(word) ? before : all)) // "so um, the dock" → "so the dock"
    .replace(/\s+/g, ' ')
    .replace(REPEATED_WORD, '$1') // "the the dock" → "the dock"
    .replace(REPEATED_PAIR, '$1')
    .replace(/^[\s,.;:]+/, '') // what a removed mark left at the start
    .trim();
}

/**
 * The chunk's text as the embedder reads it: each "Speaker: words" line without editorial marks; a line left
 * with no words is dropped. A text of nothing but marks is returned as it is (the model needs something).
 */
export function embeddingText(text: string): string {
  // Most text has nothing to take out; three scans find that in about half the time cleaning every line takes, and
  // it is what every import and sync pays for each chunk (contentHash).
  if (!mayChange(text)) return text;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const label = LABEL.exec(line)?.[0] ?? '';
    const speech = cleanSpeech(line.slice(label.length));
    if (speech) lines.push(label ? `${label.trim()} ${speech}` : speech);
  }
  const out = lines.join('\n');
  return out || text;
}

/**
 * The key of a chunk's vector (its content_hash): the SHA-256 of the text the embedder reads of it, so a vector is
 * reused exactly while what the model sees is unchanged, and a change to what it reads re-embeds only the chunks
 * it changes. Changing what embeddingText returns for any text is a new migration that re-keys stores with a
 * frozen copy of the new function, as migration 8 does (migration-8-content-hash.ts; test/unit/migrations-frozen.test.ts
 * holds the live function to the newest copy).
 */
export const contentHash = (text: string): string => createHash('sha256').update(embeddingText(text)).digest('hex');
