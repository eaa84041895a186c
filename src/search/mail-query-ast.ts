/**
 * The shapes of a Gmail-style mail query (see `mail-query.ts` for the syntax): the message searched, the
 * parsed tree, the error a user can fix, and the folding substring operators share with the matcher.
 */

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
export type TextField = 'subject' | 'from' | 'to' | 'cc' | 'filename';

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

/** For substring operators: lower case, no accents, but punctuation kept (`@`, `.` matter in addresses). */
export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}
