/**
 * Gmail-style search queries for `find_email_thread`: parse a query once, then test it against messages.
 *
 * The pipeline is deliberately small and in three steps, so each can be read (and tested) on its own:
 *   1. `tokenize`  – characters to tokens (words, "phrases", operators, parentheses, OR, -).
 *   2. `Parser`    – recursive descent into an AST of and / or / not / leaf nodes.
 *   3. `evaluate`  – one AST against one message.
 *
 * Supported syntax (what Gmail does, where it matters to a mailbox of plain messages):
 *   word                 every word must occur somewhere in the message (see "Word rule" below)
 *   "a phrase"           those words, adjacent and in that order, within one field
 *   from:x to:x cc:x     x is a substring of the address or display name; `to:` also looks at Cc (as Gmail)
 *   subject:x            x / "a phrase" / (a b) / {a b} in the subject
 *   filename:x           x is a substring of an attachment name (Gmail's operator; cheap to support here)
 *   has:attachment       at least one attachment
 *   newer_than:7d        sent within the last 7 days; units h, d, w, m (30 days), y (365 days)
 *   older_than:7d        sent before that; exactly the complement of newer_than for a valid date
 *   after:2026/11/18     sent at or after 00:00 UTC that day (also 2026-11-18 or a full ISO date-time)
 *   before:2026/11/18    sent before 00:00 UTC that day (exclusive)
 *   -term                negation of any term, phrase, operator or group
 *   a OR b               either; `OR` only in upper case (lower-case `or` is a word, as in Gmail)
 *   {a b}                a OR b
 *   ( … )                grouping, nested to any depth
 *   a b, a AND b         both (juxtaposition is AND)
 *
 * Precedence follows Gmail: OR binds tighter than juxtaposition, so `a b OR c` is `a AND (b OR c)`.
 * An unknown operator such as `label:urgent` is not an error: like Gmail, it is searched as text, i.e. the
 * word sequence "label urgent".
 *
 * Word rule: text is normalized (NFD, combining marks removed, lower case, every run of characters that are
 * not letters or digits becomes one space), so `resume` finds "Résumé" and punctuation never matters.
 * A single query word matches a word of the text when it equals it, or when the query word has at least 4
 * characters and is a prefix of it (`inve` finds "inventory", `inv` does not: short prefixes match too much).
 * A quoted phrase, and an unquoted token that normalizes to several words (`ana@client.com`, `label:x`,
 * `q4-report`), must match whole words, adjacent and in order, within a single field (subject, body, an
 * address…); a quoted single word (`"inve"`) must match a whole word.
 *
 * Normalization is the one rule of `src/store/text.ts`, shared with every other text match.
 */
import { normalize, tokens as words } from '../store/text.js';

export interface MailMessage {
  threadId: string;
  from: string; // address
  fromName: string | null; // display name
  to: string[]; // addresses
  cc: string[];
  subject: string;
  body: string;
  sentAt: string; // ISO 8601 UTC, e.g. 2026-11-18T09:00:00Z
  attachments: string[]; // file names
}

/** A query the user can fix: the message says what is wrong and where. */
export class MailQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MailQueryError';
  }
}

/** Fields whose operator takes text (and may take a group, as in `subject:(a b)`). */
type TextField = 'subject' | 'from' | 'to' | 'cc' | 'filename';

export type MailQueryNode =
  | { kind: 'and'; children: MailQueryNode[] }
  | { kind: 'or'; children: MailQueryNode[] }
  | { kind: 'not'; child: MailQueryNode }
  /** Normalized words; `prefix` lets a single unquoted word match a longer word (see the word rule). */
  | { kind: 'words'; field: 'any' | 'subject'; words: string[]; prefix: boolean }
  /** A folded (lower case, no accents) substring of an address, display name or file name. */
  | { kind: 'substring'; field: 'from' | 'to' | 'cc' | 'filename'; value: string }
  /** Relative to `now` at match time, so one parsed query can be reused. */
  | { kind: 'age'; op: 'newer_than' | 'older_than'; ms: number }
  | { kind: 'date'; op: 'after' | 'before'; at: number }
  | { kind: 'has_attachment' };

export interface MailQuery {
  /** The query as given. */
  readonly source: string;
  readonly ast: MailQueryNode;
  /**
   * The plain words and phrases, normalized (a phrase is its words joined by one space), in query order,
   * without duplicates, for ranking. Excludes negated terms and operator values (`subject:x`, `from:x`…);
   * includes unknown operators searched as text (`label:x` gives "label x").
   */
  readonly terms: string[];
}

// ---------------------------------------------------------------------------------------------------------
// Text helpers

/** For substring operators: lower case, no accents, but punctuation kept (`@`, `.` matter in addresses). */
function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------------------
// 1. Tokenizer

type OpValue = { kind: 'word' | 'phrase'; raw: string } | { kind: 'group' };

type Token =
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
type OperatorName = (typeof OPERATORS)[number];

const TEXT_FIELDS: ReadonlySet<string> = new Set<TextField>(['subject', 'from', 'to', 'cc', 'filename']);

function isOperator(name: string): name is OperatorName {
  return (OPERATORS as readonly string[]).includes(name);
}

/** Characters that end a bare word: they are tokens (or start one) of their own. */
const BREAK = new Set(['(', ')', '{', '}', '"']);
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/** Positions in messages are 1-based character columns, as a person counts them. */
function tokenize(query: string): Token[] {
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

const EXAMPLES: Record<OperatorName, string> = {
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

// ---------------------------------------------------------------------------------------------------------
// 2. Parser
//
//   query    := sequence EOF
//   sequence := orExpr (AND? orExpr)*                  juxtaposition is AND
//   orExpr   := unary (OR unary)*                       OR binds tighter (Gmail)
//   unary    := '-' unary | primary
//   primary  := '(' sequence ')' | '{' orExpr* '}' | word | phrase | operator
//   operator := name ':' (word | phrase | '(' … ')' | '{' … '}')
//
// Every parse function returns null for a term with nothing to search (a word made only of punctuation,
// such as `&` or `""`): Gmail ignores those, and so do we, by dropping them from their and/or.

/** `field` is set inside `subject:( … )` and friends: bare words and phrases there belong to that field. */
type Ctx = TextField | null;

const TERM_START = new Set<Token['type']>(['word', 'phrase', 'op', 'not', 'lparen', 'lbrace']);

class Parser {
  private p = 0;
  constructor(private readonly tokens: Token[]) {}

  parseQuery(): MailQueryNode | null {
    const node = this.sequence(null);
    const stray = this.peek();
    if (stray) {
      // sequence() only stops early at a closer, so this one has no opener.
      const [ch, opener] = stray.type === 'rbrace' ? ['}', '{'] : [')', '('];
      throw new MailQueryError(
        `unbalanced ${ch === ')' ? 'parenthesis' : 'brace'}: '${ch}' at character ${stray.pos} has no matching '${opener}'`,
      );
    }
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.p];
  }

  private startsTerm(t: Token | undefined): boolean {
    return t !== undefined && TERM_START.has(t.type);
  }

  private sequence(field: Ctx): MailQueryNode | null {
    const items: (MailQueryNode | null)[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || t.type === 'rparen' || t.type === 'rbrace') break;
      if (t.type === 'and') {
        // Explicit AND is the same as juxtaposition, but only between two terms.
        if (items.length === 0 || !this.startsTerm(this.tokens[this.p + 1])) {
          throw new MailQueryError(`AND at character ${t.pos} must stand between two terms`);
        }
        this.p++;
      }
      items.push(this.orExpr(field));
    }
    return combine('and', items);
  }

  private orExpr(field: Ctx): MailQueryNode | null {
    const items = [this.unary(field)];
    for (let t = this.peek(); t?.type === 'or'; t = this.peek()) {
      this.p++;
      if (!this.startsTerm(this.peek())) {
        throw new MailQueryError(`OR at character ${t.pos} must stand between two terms`);
      }
      items.push(this.unary(field));
    }
    return combine('or', items);
  }

  private unary(field: Ctx): MailQueryNode | null {
    const t = this.peek();
    if (t?.type !== 'not') return this.primary(field);
    this.p++;
    if (!this.startsTerm(this.peek())) {
      throw new MailQueryError(`'-' at character ${t.pos} must be followed by a term`);
    }
    const child = this.unary(field);
    return child ? { kind: 'not', child } : null;
  }

  private primary(field: Ctx): MailQueryNode | null {
    const t = this.peek();
    if (!t) throw new MailQueryError('expected a term at the end of the query'); // unreachable by construction
    this.p++;
    switch (t.type) {
      case 'or':
      case 'and':
        throw new MailQueryError(`${t.type.toUpperCase()} at character ${t.pos} must stand between two terms`);
      case 'lparen': {
        if (this.peek()?.type === 'rparen') {
          throw new MailQueryError(`empty parentheses at character ${t.pos}`);
        }
        const inner = this.sequence(field);
        this.close(t.pos, '(', 'rparen');
        return inner;
      }
      case 'lbrace': {
        // Gmail: `{a b}` is `a OR b`. Each juxtaposed item is an alternative.
        if (this.peek()?.type === 'rbrace') {
          throw new MailQueryError(`empty braces at character ${t.pos}`);
        }
        const items: (MailQueryNode | null)[] = [];
        for (let n = this.peek(); n && n.type !== 'rparen' && n.type !== 'rbrace'; n = this.peek()) {
          items.push(this.orExpr(field)); // a stray OR / AND here is reported by orExpr
        }
        this.close(t.pos, '{', 'rbrace');
        return combine('or', items);
      }
      case 'word':
        return leaf(field, t.raw, false);
      case 'phrase':
        return leaf(field, t.raw, true);
      case 'op':
        return this.operator(t);
      default:
        // rparen / rbrace / not: callers only get here on a term start, so this is a parser bug.
        throw new MailQueryError(`unexpected '${t.type}' at character ${t.pos}`);
    }
  }

  /** Consumes the closer of a group opened at `openPos`, or explains why there is none. */
  private close(openPos: number, opener: '(' | '{', want: 'rparen' | 'rbrace'): void {
    const t = this.peek();
    const what = opener === '(' ? 'parenthesis' : 'brace';
    if (!t) {
      throw new MailQueryError(`unbalanced ${what}: '${opener}' at character ${openPos} is never closed`);
    }
    if (t.type !== want) {
      const got = t.type === 'rparen' ? ')' : '}';
      throw new MailQueryError(`mismatched ${what}: '${got}' at character ${t.pos} does not close '${opener}' at character ${openPos}`);
    }
    this.p++;
  }

  private operator(t: Extract<Token, { type: 'op' }>): MailQueryNode | null {
    const { name, value } = t;
    if (value.kind === 'group') {
      if (!TEXT_FIELDS.has(name)) {
        throw new MailQueryError(`${name}: at character ${t.pos}: takes a single value, not a group (e.g. ${EXAMPLES[name]})`);
      }
      return this.primary(name as TextField); // the next token is the '(' or '{'
    }
    const raw = value.raw;
    switch (name) {
      case 'from':
      case 'to':
      case 'cc':
      case 'subject':
      case 'filename': {
        const node = leaf(name, raw, value.kind === 'phrase');
        if (!node) throw new MailQueryError(`${t.raw}: expected a value with letters or digits (e.g. ${EXAMPLES[name]})`);
        return node;
      }
      case 'has':
        if (raw.toLowerCase() !== 'attachment') {
          throw new MailQueryError(`${t.raw}: only has:attachment is supported`);
        }
        return { kind: 'has_attachment' };
      case 'newer_than':
      case 'older_than':
        return { kind: 'age', op: name, ms: parseAge(t.raw, raw) };
      case 'after':
      case 'before':
        return { kind: 'date', op: name, at: parseDate(t.raw, raw) };
    }
  }
}

/** A word or phrase, in the context of a field (or of the whole message when `field` is null). */
function leaf(field: Ctx, raw: string, quoted: boolean): MailQueryNode | null {
  if (field === null || field === 'subject') {
    const ws = words(raw);
    if (ws.length === 0) return null;
    return { kind: 'words', field: field ?? 'any', words: ws, prefix: !quoted && ws.length === 1 };
  }
  const value = fold(raw);
  return value ? { kind: 'substring', field, value } : null;
}

function combine(kind: 'and' | 'or', items: (MailQueryNode | null)[]): MailQueryNode | null {
  const children = items.filter((n): n is MailQueryNode => n !== null);
  if (children.length === 0) return null;
  if (children.length === 1) return children[0]!;
  return { kind, children };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNIT_MS: Record<string, number> = { h: HOUR, d: DAY, w: 7 * DAY, m: 30 * DAY, y: 365 * DAY };

function parseAge(token: string, value: string): number {
  const m = /^(\d+)([hdwmy])$/i.exec(value);
  if (!m) {
    throw new MailQueryError(
      `${token}: expected a whole number and a unit h, d, w, m or y (e.g. ${token.split(':')[0]}:7d)`,
    );
  }
  return Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
}

/**
 * `YYYY/MM/DD` or `YYYY-MM-DD` (day start, UTC) or an ISO 8601 date-time (that instant; UTC when it has no
 * offset). Gmail reads dates in the user's time zone; the vault has none, so UTC.
 */
function parseDate(token: string, value: string): number {
  const bad = () =>
    new MailQueryError(`${token}: expected a date YYYY/MM/DD or YYYY-MM-DD, or an ISO 8601 date-time (e.g. ${token.split(':')[0]}:2026/11/18)`);

  const day = /^(\d{4})([/-])(\d{1,2})\2(\d{1,2})$/.exec(value);
  if (day) return utcDay(Number(day[1]), Number(day[3]), Number(day[4])) ?? throwIt(bad());

  const iso = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(value);
  if (!iso) throw bad();
  // Date.parse accepts 2026-02-30 (it rolls over), so check the calendar date ourselves.
  if (utcDay(Number(iso[1]), Number(iso[2]), Number(iso[3])) === null) throw bad();
  if (Number(iso[4]) > 23 || Number(iso[5]) > 59 || Number(iso[6] ?? 0) > 59) throw bad();
  // Without an offset, Date.parse would use the server's local zone; pin it to UTC instead.
  const at = Date.parse(iso[7] ? value : `${value}Z`);
  if (Number.isNaN(at)) throw bad();
  return at;
}

function utcDay(y: number, m: number, d: number): number | null {
  const at = Date.UTC(y, m - 1, d);
  const back = new Date(at);
  return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d ? at : null;
}

function throwIt(e: Error): never {
  throw e;
}

// ---------------------------------------------------------------------------------------------------------
// Public: parse

export function parseMailQuery(query: string): MailQuery {
  if (query.trim() === '') throw new MailQueryError('query is empty');
  const ast = new Parser(tokenize(query)).parseQuery();
  if (!ast) throw new MailQueryError('query has no words to search for (only punctuation)');
  return { source: query, ast, terms: collectTerms(ast) };
}

function collectTerms(ast: MailQueryNode): string[] {
  const out = new Set<string>();
  const walk = (n: MailQueryNode): void => {
    switch (n.kind) {
      case 'and':
      case 'or':
        n.children.forEach(walk);
        return;
      case 'not':
        return; // a negated word is never in a match, so it cannot help ranking
      case 'words':
        if (n.field === 'any') out.add(n.words.join(' '));
        return;
      default:
        return;
    }
  };
  walk(ast);
  return [...out];
}

// ---------------------------------------------------------------------------------------------------------
// 3. Matcher

/**
 * A message prepared for matching. Normalized text is ` w1 w2 | w3 w4 ` with ' | ' between fields: '|' can
 * never survive normalization, so a phrase cannot run from the end of one field into the next one.
 */
interface Prepared {
  all: string;
  subject: string;
  from: string[];
  to: string[]; // To and Cc (Gmail's `to:`)
  cc: string[];
  files: string[];
  sentMs: number;
  nowMs: number;
}

function padded(fields: string[]): string {
  return ` ${fields.map(normalize).filter(Boolean).join(' | ')} `;
}

function prepare(m: MailMessage, now: Date): Prepared {
  const fromParts = m.fromName ? [m.from, m.fromName] : [m.from];
  return {
    all: padded([m.subject, m.body, ...fromParts, ...m.to, ...m.cc, ...m.attachments]),
    subject: padded([m.subject]),
    from: fromParts.map(fold),
    to: [...m.to, ...m.cc].map(fold),
    cc: m.cc.map(fold),
    files: m.attachments.map(fold),
    sentMs: Date.parse(m.sentAt), // NaN for a bad date: every date test is then false
    nowMs: now.getTime(),
  };
}

function hasWords(text: string, n: Extract<MailQueryNode, { kind: 'words' }>): boolean {
  const seq = n.words.join(' ');
  if (text.includes(` ${seq} `)) return true;
  // Prefix rule: single unquoted words of 4+ characters may match the start of a longer word.
  return n.prefix && [...seq].length >= 4 && text.includes(` ${seq}`);
}

function evaluate(n: MailQueryNode, m: MailMessage, p: Prepared): boolean {
  switch (n.kind) {
    case 'and':
      return n.children.every((c) => evaluate(c, m, p));
    case 'or':
      return n.children.some((c) => evaluate(c, m, p));
    case 'not':
      return !evaluate(n.child, m, p);
    case 'words':
      return hasWords(n.field === 'subject' ? p.subject : p.all, n);
    case 'substring': {
      const list = n.field === 'filename' ? p.files : p[n.field];
      return list.some((s) => s.includes(n.value));
    }
    case 'age': {
      // newer_than is inclusive of the cutoff and older_than exclusive, so together they cover every date.
      const cutoff = p.nowMs - n.ms;
      return n.op === 'newer_than' ? p.sentMs >= cutoff : p.sentMs < cutoff;
    }
    case 'date':
      return n.op === 'after' ? p.sentMs >= n.at : p.sentMs < n.at;
    case 'has_attachment':
      return m.attachments.length > 0;
  }
}

export function matchesMessage(q: MailQuery, m: MailMessage, now: Date): boolean {
  return evaluate(q.ast, m, prepare(m, now));
}
