/** Step 2 of a mail query (see `mail-query.ts`): recursive descent from tokens into an and / or / not / leaf tree. */
import { tokens as words } from '../store/text.js';
import { fold, MailQueryError, type MailQuery, type MailQueryNode, type TextField } from './mail-query-ast.js';
import { EXAMPLES, TEXT_FIELDS, tokenize, type Token } from './mail-query-tokenize.js';

// Grammar:
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
      throw new MailQueryError(
        `mismatched ${what}: '${got}' at character ${t.pos} does not close '${opener}' at character ${openPos}`,
      );
    }
    this.p++;
  }

  private operator(t: Extract<Token, { type: 'op' }>): MailQueryNode | null {
    const { name, value } = t;
    if (value.kind === 'group') {
      if (!TEXT_FIELDS.has(name)) {
        throw new MailQueryError(
          `${name}: at character ${t.pos}: takes a single value, not a group (e.g. ${EXAMPLES[name]})`,
        );
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
        if (!node)
          throw new MailQueryError(`${t.raw}: expected a value with letters or digits (e.g. ${EXAMPLES[name]})`);
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
    new MailQueryError(
      `${token}: expected a date YYYY/MM/DD or YYYY-MM-DD, or an ISO 8601 date-time (e.g. ${token.split(':')[0]}:2026/11/18)`,
    );

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
