/** Step 1 of a mail query (see `mail-query.ts`): characters to tokens (words, "phrases", operators, parentheses, OR, -). */
import { MailQueryError, type TextField } from './mail-query-ast.js';

type OpValue = { kind: 'word' | 'phrase'; raw: string } | { kind: 'group' };

export type Token =
  | { type: 'lparen' | 'rparen' | 'lbrace' | 'rbrace' | 'or' | 'and' | 'not'; pos: number }
  | { type: 'word' | 'phrase'; raw: string; pos: number }
  | { type: 'op'; name: OperatorName; value: OpValue; raw: string; pos: number };

const OPERATORS = [
  'from',
  'to',
  'cc',
  'subject',
  'filename',
  'has',
  'newer_than',
  'older_than',
  'after',
  'before',
] as const;
export type OperatorName = (typeof OPERATORS)[number];

export const TEXT_FIELDS: ReadonlySet<string> = new Set<TextField>(['subject', 'from', 'to', 'cc', 'filename']);

function isOperator(name: string): name is OperatorName {
  return (OPERATORS as readonly string[]).includes(name);
}

/** Characters that end a bare word: they are tokens (or start one) of their own. */
const BREAK = new Set(['(', ')', '{', '}', '"']);
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/** Positions in messages are 1-based character columns, as a person counts them. */
export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;

  /** Reads a "quoted phrase" starting at the quote at `start`; returns its text and the index after it. */
  const readPhrase = (start: number): [string, number] => {
    const end = query.indexOf('"', start + 1);
    if (end === -1) {
      throw new MailQueryError(`unbalanced quote: the " at character ${start + 1} is never closed`);
    }
    return [query.slice(start + 1, end), end + 1];
  };

  while (i < query.length) {
    const c = query[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    const pos = i + 1;
    if (c === '(' || c === ')' || c === '{' || c === '}') {
      const type = c === '(' ? 'lparen' : c === ')' ? 'rparen' : c === '{' ? 'lbrace' : 'rbrace';
      tokens.push({ type, pos });
      i++;
      continue;
    }
    if (c === '"') {
      const [raw, next] = readPhrase(i);
      tokens.push({ type: 'phrase', raw, pos });
      i = next;
      continue;
    }
    // A leading '-' negates what follows it; '-' alone, or before a closer, is just punctuation (a word
    // that normalizes to nothing). A '-' inside a word (`e-mail`) never gets here: the word reader eats it.
    const after = query[i + 1];
    if (c === '-' && after !== undefined && !isSpace(after) && after !== ')' && after !== '}') {
      tokens.push({ type: 'not', pos });
      i++;
      continue;
    }

    let end = i;
    while (end < query.length && !isSpace(query[end]) && !BREAK.has(query[end]!)) end++;
    const run = query.slice(i, end);
    i = end;

    if (run === 'OR') {
      tokens.push({ type: 'or', pos });
      continue;
    }
    if (run === 'AND') {
      tokens.push({ type: 'and', pos });
      continue;
    }
    const op = /^([A-Za-z_]+):(.*)$/s.exec(run);
    const name = op?.[1]?.toLowerCase();
    if (!op || name === undefined || !isOperator(name)) {
      tokens.push({ type: 'word', raw: run, pos }); // unknown `label:x` stays text, as in Gmail
      continue;
    }
    const rest = op[2] ?? '';
    if (rest !== '') {
      tokens.push({ type: 'op', name, value: { kind: 'word', raw: rest }, raw: run, pos });
    } else if (query[i] === '"') {
      const [raw, next] = readPhrase(i);
      tokens.push({ type: 'op', name, value: { kind: 'phrase', raw }, raw: query.slice(pos - 1, next), pos });
      i = next;
    } else if (query[i] === '(' || query[i] === '{') {
      // The group itself is parsed by the parser, with this operator's field applied to its words.
      tokens.push({ type: 'op', name, value: { kind: 'group' }, raw: run, pos });
    } else {
      throw new MailQueryError(
        `${name}: at character ${pos}: expected a value right after the colon (e.g. ${EXAMPLES[name]})`,
      );
    }
  }
  return tokens;
}

export const EXAMPLES: Record<OperatorName, string> = {
  from: 'from:ana or from:"Ana Ruiz"',
  to: 'to:ana@client.com',
  cc: 'cc:ana',
  subject: 'subject:report or subject:"weekly report"',
  filename: 'filename:pdf',
  has: 'has:attachment',
  newer_than: 'newer_than:7d',
  older_than: 'older_than:1y',
  after: 'after:2026/11/18',
  before: 'before:2026/11/18',
};
