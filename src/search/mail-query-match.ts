/** Step 3 of a mail query (see `mail-query.ts`): one parsed query against one message. */
import { normalize } from '../store/text.js';
import { fold, type MailMessage, type MailQuery, type MailQueryNode } from './mail-query-ast.js';

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
