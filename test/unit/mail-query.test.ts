import { describe, it, expect } from 'vitest';
import { MailQueryError, matchesMessage, parseMailQuery, type MailMessage } from '../../src/search/mail-query.js';

// A small mailbox. `now` is 2026-11-25 12:00 UTC throughout unless a test says otherwise.
const NOW = new Date('2026-11-25T12:00:00Z');

const MAILBOX: Record<string, MailMessage> = {
  // Client asks about the inventory; has an attachment; sent 7 days 3 hours before NOW.
  m1: {
    threadId: 'th-inventory',
    from: 'ana@client.com',
    fromName: 'Ana Ruiz',
    to: ['ops@vault.example'],
    cc: ['marc@vault.example'],
    subject: 'Inventory count for Q4',
    body: 'Hi team, attached is the résumé of the warehouse inventory. Can you confirm the totals?',
    sentAt: '2026-11-18T09:00:00Z',
    attachments: ['inventory-q4.xlsx'],
  },
  // The reply, to Ana; no attachment; 4 days 19.5 hours before NOW.
  m2: {
    threadId: 'th-inventory',
    from: 'marc@vault.example',
    fromName: 'Marc Dubois',
    to: ['ana@client.com'],
    cc: [],
    subject: 'Re: Inventory count for Q4',
    body: 'Thanks Ana, we will reconcile the stock report by Friday.',
    sentAt: '2026-11-20T16:30:00Z',
    attachments: [],
  },
  // Internal weekly report, Ana in Cc; exactly 28 hours before NOW.
  m3: {
    threadId: 'th-weekly',
    from: 'jose@vault.example',
    fromName: 'José Álvarez',
    to: ['team@vault.example'],
    cc: ['ana@client.com'],
    subject: 'Weekly report – week 47',
    body: 'The weekly report is ready. Résumé: revenue up 4%, returns down.',
    sentAt: '2026-11-24T08:00:00Z',
    attachments: ['report-w47.pdf'],
  },
  // An old supplier invoice, no display name, sent at midnight UTC.
  m4: {
    threadId: 'th-invoice',
    from: 'billing@supplier.io',
    fromName: null,
    to: ['ops@vault.example'],
    cc: [],
    subject: 'Invoice 2026-0412 overdue',
    body: 'Please find the overdue invoice attached. Label: urgent',
    sentAt: '2026-03-02T00:00:00Z',
    attachments: ['invoice-2026-0412.pdf'],
  },
};

/** Names of the messages a query matches, in mailbox order. */
function which(query: string, now: Date = NOW): string[] {
  const q = parseMailQuery(query);
  return Object.entries(MAILBOX)
    .filter(([, m]) => matchesMessage(q, m, now))
    .map(([name]) => name);
}

/** The MailQueryError message a query raises (fails the test if it parses). */
function errorOf(query: string): string {
  try {
    parseMailQuery(query);
  } catch (e) {
    expect(e).toBeInstanceOf(MailQueryError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

describe('plain words', () => {
  it('match words anywhere in the message', () => {
    expect(which('inventory')).toEqual(['m1', 'm2']);
    expect(which('warehouse')).toEqual(['m1']);
  });

  it('are ANDed when juxtaposed', () => {
    expect(which('inventory thanks')).toEqual(['m2']);
    expect(which('inventory weekly')).toEqual([]);
  });

  it('are case-insensitive', () => {
    expect(which('INVENTORY')).toEqual(['m1', 'm2']);
    expect(which('FrIdAy')).toEqual(['m2']);
  });

  it('are accent-insensitive both ways', () => {
    expect(which('resume')).toEqual(['m1', 'm3']);
    expect(which('résumé')).toEqual(['m1', 'm3']);
    expect(which('alvarez')).toEqual(['m3']);
    expect(which('JOSÉ')).toEqual(['m3']);
  });

  it('match a prefix of a word only from 4 characters on', () => {
    expect(which('inve')).toEqual(['m1', 'm2']);
    expect(which('inv')).toEqual([]);
    expect(which('warehou')).toEqual(['m1']);
  });

  it('never match the middle or end of a word, nor a longer word', () => {
    expect(which('ventory')).toEqual([]);
    expect(which('reports')).toEqual([]);
    expect(which('report')).toEqual(['m2', 'm3']);
  });

  it('search addresses, display names and attachment names', () => {
    expect(which('supplier')).toEqual(['m4']); // from address
    expect(which('dubois')).toEqual(['m2']); // display name
    expect(which('xlsx')).toEqual(['m1']); // attachment
    expect(which('team')).toEqual(['m1', 'm3']); // body of m1, To of m3
  });

  it('treat punctuated tokens as adjacent words', () => {
    expect(which('ana@client.com')).toEqual(['m1', 'm2', 'm3']);
    expect(which('invoice-2026-0412')).toEqual(['m4']);
    expect(which('invoice-0412')).toEqual([]);
  });

  it('treat lower-case "or" as a word, not an operator', () => {
    expect(which('invoice or weekly')).toEqual([]);
  });
});

describe('quoted phrases', () => {
  it('match adjacent words in order', () => {
    expect(which('"stock report"')).toEqual(['m2']);
    expect(which('"weekly report"')).toEqual(['m3']);
    expect(which('"report stock"')).toEqual([]);
    expect(which('"stock by"')).toEqual([]);
  });

  it('ignore punctuation and accents', () => {
    expect(which('"report — by Friday!"')).toEqual(['m2']);
    expect(which('"resume revenue"')).toEqual(['m3']);
  });

  it('do not run from one field into the next', () => {
    // m1's subject ends with "Q4" and its body starts with "Hi".
    expect(which('"q4 hi"')).toEqual([]);
    expect(which('"for q4"')).toEqual(['m1', 'm2']);
  });

  it('match whole words only, even for a single quoted word', () => {
    expect(which('"inve"')).toEqual([]);
    expect(which('"inventory"')).toEqual(['m1', 'm2']);
  });
});

describe('from:, to:, cc:', () => {
  it('from: matches a substring of the address or display name', () => {
    expect(which('from:ana')).toEqual(['m1']);
    expect(which('from:ruiz')).toEqual(['m1']);
    expect(which('from:billing@supplier.io')).toEqual(['m4']);
    expect(which('from:vault.example')).toEqual(['m2', 'm3']);
    expect(which('from:nobody')).toEqual([]);
  });

  it('from: takes a quoted value and ignores case and accents', () => {
    expect(which('from:"Ana Ruiz"')).toEqual(['m1']);
    expect(which('from:"ana  ruiz"')).toEqual(['m1']);
    expect(which('from:"Ruiz Ana"')).toEqual([]);
    expect(which('from:alvarez')).toEqual(['m3']);
    expect(which('FROM:ÁLVAREZ')).toEqual(['m3']);
  });

  it('to: matches To and Cc', () => {
    expect(which('to:ana@client.com')).toEqual(['m2', 'm3']); // m2 in To, m3 in Cc
    expect(which('to:marc')).toEqual(['m1']); // Cc only
    expect(which('to:ops')).toEqual(['m1', 'm4']);
  });

  it('cc: matches Cc only', () => {
    expect(which('cc:ana')).toEqual(['m3']);
    expect(which('cc:ops')).toEqual([]);
  });

  it('is not fooled by the word appearing elsewhere', () => {
    // "Ana" is in m2's body, but m2 is not from Ana.
    expect(which('from:ana thanks')).toEqual([]);
  });

  it('takes a group: from:(a OR b)', () => {
    expect(which('from:(ana OR billing)')).toEqual(['m1', 'm4']);
    expect(which('from:{jose marc}')).toEqual(['m2', 'm3']);
  });
});

describe('subject:', () => {
  it('matches words in the subject only', () => {
    expect(which('subject:report')).toEqual(['m3']);
    expect(which('report')).toEqual(['m2', 'm3']); // m2 has it in the body only
    expect(which('subject:warehouse')).toEqual([]);
    expect(which('subject:re')).toEqual(['m2']);
  });

  it('takes a quoted phrase', () => {
    expect(which('subject:"count for q4"')).toEqual(['m1', 'm2']);
    expect(which('subject:"q4 count"')).toEqual([]);
  });

  it('takes a group of words (AND), OR and braces', () => {
    expect(which('subject:(weekly report)')).toEqual(['m3']);
    expect(which('subject:(weekly inventory)')).toEqual([]);
    expect(which('subject:(inventory OR invoice)')).toEqual(['m1', 'm2', 'm4']);
    expect(which('subject:{weekly invoice}')).toEqual(['m3', 'm4']);
  });

  it('keeps the words of a group in the subject', () => {
    // "thanks" is in m2's body, not its subject.
    expect(which('subject:(inventory thanks)')).toEqual([]);
  });
});

describe('the catalog examples', () => {
  it('to:ana@client.com inventory', () => {
    expect(which('to:ana@client.com inventory')).toEqual(['m2']);
  });

  it('subject:report newer_than:7d', () => {
    expect(which('subject:report newer_than:7d')).toEqual(['m3']);
    expect(which('subject:report newer_than:7d', new Date('2026-12-05T00:00:00Z'))).toEqual([]);
  });
});

describe('negation', () => {
  it('negates a word', () => {
    expect(which('-inventory')).toEqual(['m3', 'm4']);
    expect(which('report -weekly')).toEqual(['m2']);
  });

  it('negates a phrase', () => {
    expect(which('-"stock report"')).toEqual(['m1', 'm3', 'm4']);
  });

  it('negates operators', () => {
    expect(which('-from:ana')).toEqual(['m2', 'm3', 'm4']);
    expect(which('-subject:inventory')).toEqual(['m3', 'm4']);
    expect(which('-has:attachment')).toEqual(['m2']);
    expect(which('inventory -to:ana')).toEqual(['m1']);
  });

  it('negates a group', () => {
    expect(which('-(inventory OR invoice)')).toEqual(['m3']);
    expect(which('-{invoice weekly}')).toEqual(['m1', 'm2']);
  });

  it('double negation cancels', () => {
    expect(which('--inventory')).toEqual(['m1', 'm2']);
  });

  it('leaves a hyphen inside a word alone', () => {
    expect(which('q4-inventory')).toEqual([]); // the words "q4 inventory" adjacent: no such text
    expect(which('inventory-q4')).toEqual(['m1']); // the attachment name
  });
});

describe('OR, braces and grouping', () => {
  it('OR between two terms', () => {
    expect(which('invoice OR weekly')).toEqual(['m3', 'm4']);
    expect(which('from:ana OR from:billing')).toEqual(['m1', 'm4']);
  });

  it('OR chains', () => {
    expect(which('invoice OR weekly OR thanks')).toEqual(['m2', 'm3', 'm4']);
  });

  it('OR binds tighter than juxtaposition (Gmail)', () => {
    // thanks AND (weekly OR report) -> m2 only; (thanks AND weekly) OR report would add m3.
    expect(which('thanks weekly OR report')).toEqual(['m2']);
  });

  it('braces are OR', () => {
    expect(which('{invoice weekly}')).toEqual(['m3', 'm4']);
    expect(which('{invoice weekly} overdue')).toEqual(['m4']);
    expect(which('{invoice OR weekly}')).toEqual(['m3', 'm4']);
  });

  it('parentheses group', () => {
    expect(which('(invoice OR weekly) -overdue')).toEqual(['m3']);
    expect(which('(from:marc thanks) OR invoice')).toEqual(['m2', 'm4']);
  });

  it('parentheses nest', () => {
    expect(which('((invoice OR weekly) OR (from:marc thanks)) -overdue')).toEqual(['m2', 'm3']);
    expect(which('(((weekly)))')).toEqual(['m3']);
  });

  it('explicit AND is the same as juxtaposition', () => {
    expect(which('report AND weekly')).toEqual(['m3']);
    expect(which('report AND thanks')).toEqual(['m2']);
  });

  it('operators combine with OR and negation', () => {
    expect(which('has:attachment -(from:ana OR subject:weekly)')).toEqual(['m4']);
    expect(which('-from:ana -from:billing')).toEqual(['m2', 'm3']);
  });
});

describe('newer_than: and older_than:', () => {
  it('days, inclusive at the cutoff for newer_than', () => {
    expect(which('newer_than:1d')).toEqual([]);
    expect(which('newer_than:2d')).toEqual(['m3']);
  });

  it('hours, at the exact boundary (m3 is exactly 28 h old)', () => {
    expect(which('newer_than:28h')).toEqual(['m3']);
    expect(which('newer_than:27h')).toEqual([]);
    expect(which('older_than:28h')).toEqual(['m1', 'm2', 'm4']);
    expect(which('older_than:27h')).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('weeks', () => {
    // m1 is 7 d 3 h old, m2 4 d 19.5 h.
    expect(which('newer_than:1w')).toEqual(['m2', 'm3']);
    expect(which('older_than:1w')).toEqual(['m1', 'm4']);
    expect(which('newer_than:2w')).toEqual(['m1', 'm2', 'm3']);
  });

  it('months are 30 days', () => {
    // m4 is 268.5 days old: more than 8 × 30, less than 9 × 30.
    expect(which('newer_than:8m')).toEqual(['m1', 'm2', 'm3']);
    expect(which('newer_than:9m')).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(which('older_than:1m')).toEqual(['m4']);
    // 2026-04-01 is exactly 30 days after m4 (not a calendar month): at the cutoff, newer and not older.
    const thirty = new Date('2026-04-01T00:00:00Z');
    expect(which('newer_than:1m from:billing', thirty)).toEqual(['m4']);
    expect(which('older_than:1m from:billing', thirty)).toEqual([]);
    expect(which('older_than:1m from:billing', new Date('2026-04-01T00:00:01Z'))).toEqual(['m4']);
  });

  it('years are 365 days', () => {
    expect(which('newer_than:1y')).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(which('older_than:1y')).toEqual([]);
    // One 365-day year after m4 it is exactly at the cutoff: newer, not older.
    const later = new Date('2027-03-02T00:00:00Z');
    expect(which('newer_than:1y from:billing', later)).toEqual(['m4']);
    expect(which('older_than:1y from:billing', later)).toEqual([]);
    expect(which('older_than:1y from:billing', new Date('2027-03-02T00:00:01Z'))).toEqual(['m4']);
  });

  it('accepts an upper-case unit', () => {
    expect(which('newer_than:2D')).toEqual(['m3']);
  });

  it('is relative to the now given at match time', () => {
    const q = parseMailQuery('newer_than:1d');
    expect(matchesMessage(q, MAILBOX.m3!, new Date('2026-11-24T20:00:00Z'))).toBe(true);
    expect(matchesMessage(q, MAILBOX.m3!, NOW)).toBe(false);
  });
});

describe('after: and before:', () => {
  it('after: is inclusive of the day start (UTC)', () => {
    expect(which('after:2026/11/18')).toEqual(['m1', 'm2', 'm3']);
    expect(which('after:2026/11/19')).toEqual(['m2', 'm3']);
    expect(which('after:2026/03/02')).toEqual(['m1', 'm2', 'm3', 'm4']); // m4 at exactly 00:00
    expect(which('after:2026/03/03')).toEqual(['m1', 'm2', 'm3']);
  });

  it('before: is exclusive of the day start (UTC)', () => {
    expect(which('before:2026/03/02')).toEqual([]); // m4 at exactly 00:00 is not before
    expect(which('before:2026/03/03')).toEqual(['m4']);
    expect(which('before:2026/11/18')).toEqual(['m4']);
    expect(which('before:2026/11/19')).toEqual(['m1', 'm4']);
  });

  it('accepts dashes and one-digit months and days', () => {
    expect(which('after:2026-11-20 before:2026-11-21')).toEqual(['m2']);
    expect(which('before:2026/3/3')).toEqual(['m4']);
  });

  it('accepts a full ISO date-time (that instant; UTC without an offset)', () => {
    expect(which('after:2026-11-20T16:30:00Z')).toEqual(['m2', 'm3']);
    expect(which('before:2026-11-20T16:30:00Z')).toEqual(['m1', 'm4']);
    expect(which('after:2026-11-20T16:30')).toEqual(['m2', 'm3']);
    expect(which('after:2026-11-20T16:30:01Z')).toEqual(['m3']);
    // 17:30 at +01:00 is 16:30 UTC.
    expect(which('after:2026-11-20T17:30:00+01:00')).toEqual(['m2', 'm3']);
  });

  it('a message with an unparsable date matches no date test', () => {
    const bad: MailMessage = { ...MAILBOX.m1!, sentAt: 'yesterday' };
    expect(matchesMessage(parseMailQuery('after:2000/01/01'), bad, NOW)).toBe(false);
    expect(matchesMessage(parseMailQuery('before:2100/01/01'), bad, NOW)).toBe(false);
    expect(matchesMessage(parseMailQuery('newer_than:100y'), bad, NOW)).toBe(false);
  });
});

describe('has:, filename: and unknown operators', () => {
  it('has:attachment', () => {
    expect(which('has:attachment')).toEqual(['m1', 'm3', 'm4']);
    expect(which('has:ATTACHMENT inventory')).toEqual(['m1']);
  });

  it('filename: matches a substring of an attachment name', () => {
    expect(which('filename:pdf')).toEqual(['m3', 'm4']);
    expect(which('filename:inventory-q4.xlsx')).toEqual(['m1']);
    expect(which('filename:docx')).toEqual([]);
  });

  it('an unknown operator is searched as text', () => {
    expect(which('label:urgent')).toEqual(['m4']); // m4's body says "Label: urgent"
    expect(which('label:important')).toEqual([]);
    expect(which('is:unread')).toEqual([]);
    expect(parseMailQuery('label:urgent').terms).toEqual(['label urgent']);
  });

  it('a time or URL is text, not an operator', () => {
    expect(which('"by friday" 10:30')).toEqual([]);
    expect(() => parseMailQuery('https://example.com/report')).not.toThrow();
  });
});

describe('terms', () => {
  it('lists positive plain words and phrases, normalized, in order, without duplicates', () => {
    const q = parseMailQuery('from:ana "Stock  Report" Inventory -draft subject:x OR Résumé inventory');
    expect(q.terms).toEqual(['stock report', 'inventory', 'resume']);
  });

  it('includes both sides of an OR and leaves out a negated group', () => {
    expect(parseMailQuery('{invoice weekly} -(thanks OR marc)').terms).toEqual(['invoice', 'weekly']);
  });

  it('is empty for an operator-only query', () => {
    expect(parseMailQuery('has:attachment newer_than:7d').terms).toEqual([]);
  });

  it('keeps the source', () => {
    expect(parseMailQuery('inventory').source).toBe('inventory');
  });
});

describe('punctuation-only words', () => {
  it('are ignored next to real terms', () => {
    expect(which('inventory & thanks')).toEqual(['m2']);
    expect(which('inventory - thanks')).toEqual(['m2']);
    expect(which('"" weekly')).toEqual(['m3']);
  });
});

describe('errors', () => {
  it('empty query', () => {
    expect(errorOf('')).toBe('query is empty');
    expect(errorOf('   \t\n')).toBe('query is empty');
  });

  it('a query with only punctuation', () => {
    expect(errorOf('&& -')).toMatch(/no words to search for/);
    expect(errorOf('""')).toMatch(/no words to search for/);
  });

  it('unbalanced quote, with its position', () => {
    expect(errorOf('inventory "stock report')).toBe('unbalanced quote: the " at character 11 is never closed');
    expect(errorOf('from:"Ana')).toMatch(/unbalanced quote: the " at character 6/);
  });

  it('unclosed parenthesis and brace', () => {
    expect(errorOf('(invoice OR weekly')).toBe("unbalanced parenthesis: '(' at character 1 is never closed");
    expect(errorOf('a {invoice weekly')).toBe("unbalanced brace: '{' at character 3 is never closed");
    expect(errorOf('subject:(a b')).toMatch(/'\(' at character 9 is never closed/);
  });

  it('stray closing parenthesis and brace', () => {
    expect(errorOf('invoice weekly)')).toBe("unbalanced parenthesis: ')' at character 15 has no matching '('");
    expect(errorOf('invoice}')).toBe("unbalanced brace: '}' at character 8 has no matching '{'");
  });

  it('mismatched closers', () => {
    expect(errorOf('(invoice}')).toMatch(
      /mismatched parenthesis: '}' at character 9 does not close '\(' at character 1/,
    );
    expect(errorOf('{invoice)')).toMatch(/mismatched brace: '\)' at character 9 does not close '\{' at character 1/);
  });

  it('empty groups', () => {
    expect(errorOf('invoice ()')).toBe('empty parentheses at character 9');
    expect(errorOf('{}')).toBe('empty braces at character 1');
  });

  it('OR without a term on both sides', () => {
    expect(errorOf('OR invoice')).toBe('OR at character 1 must stand between two terms');
    expect(errorOf('invoice OR')).toBe('OR at character 9 must stand between two terms');
    expect(errorOf('invoice OR OR weekly')).toMatch(/OR at character 9 must stand between two terms/);
    expect(errorOf('(invoice OR) weekly')).toMatch(/OR at character 10/);
  });

  it('AND without a term on both sides', () => {
    expect(errorOf('AND invoice')).toMatch(/AND at character 1 must stand between two terms/);
    expect(errorOf('invoice AND')).toMatch(/AND at character 9 must stand between two terms/);
  });

  it('a negation with nothing to negate', () => {
    expect(errorOf('-OR weekly')).toMatch(/'-' at character 1 must be followed by a term/);
  });

  it('newer_than: / older_than: with a bad value', () => {
    expect(errorOf('newer_than:abc')).toBe(
      'newer_than:abc: expected a whole number and a unit h, d, w, m or y (e.g. newer_than:7d)',
    );
    expect(errorOf('older_than:7x')).toMatch(/^older_than:7x: expected a whole number/);
    expect(errorOf('newer_than:7')).toMatch(/^newer_than:7: /);
    expect(errorOf('newer_than:1.5d')).toMatch(/^newer_than:1.5d: /);
    expect(errorOf('newer_than:-3d')).toMatch(/^newer_than:-3d: /);
  });

  it('after: / before: with a bad date', () => {
    expect(errorOf('after:2026/13/01')).toMatch(/^after:2026\/13\/01: expected a date YYYY\/MM\/DD/);
    expect(errorOf('after:2026/02/30')).toMatch(/^after:2026\/02\/30: /);
    expect(errorOf('before:yesterday')).toMatch(/^before:yesterday: /);
    expect(errorOf('before:2026/11-18')).toMatch(/^before:2026\/11-18: /);
    expect(errorOf('after:2026-02-30T10:00:00Z')).toMatch(/^after:2026-02-30T10:00:00Z: /);
    expect(errorOf('after:2026-11-20T25:00Z')).toMatch(/^after:2026-11-20T25:00Z: /);
  });

  it('has: with anything but attachment', () => {
    expect(errorOf('has:drive')).toBe('has:drive: only has:attachment is supported');
  });

  it('an operator without a value', () => {
    expect(errorOf('from:')).toMatch(/^from: at character 1: expected a value right after the colon/);
    expect(errorOf('inventory to: ana')).toMatch(/^to: at character 11: expected a value/);
    expect(errorOf('from:""')).toMatch(/^from:"": expected a value with letters or digits/);
    expect(errorOf('subject:!!')).toMatch(/^subject:!!: expected a value/);
  });

  it('a group after an operator that takes one value', () => {
    expect(errorOf('newer_than:(7d)')).toMatch(/^newer_than: at character 1: takes a single value, not a group/);
  });

  it('MailQueryError is an Error with its own name', () => {
    try {
      parseMailQuery('');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).name).toBe('MailQueryError');
    }
  });
});
