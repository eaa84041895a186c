import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime, limitArg } from '../shapes.js';
import { mailboxMessages } from '../../store/mail.js';
import { json } from '../../store/db.js';
import { matchesMessage, MailQueryError, parseMailQuery, type MailMessage } from '../../search/mail-query.js';
import { invalidArgument } from '../../core/errors.js';

const SNIPPET_CHARS = 240;

export default defineTool({
  name: 'find_email_thread',
  title: 'Find an e-mail thread',
  description:
    'Searches the vault\'s connected mailbox (including mail from before logging started) for an existing conversation, with mailbox search syntax: words, "exact phrase", from:, to:, cc:, subject:, -term, OR, newer_than:7d, older_than:, after:YYYY/MM/DD, before:, has:attachment. Example: `to:ana@client.com inventory`, `subject:report newer_than:7d`. Returns thread ids usable as `replyToThreadId` (and the last message id as `inReplyToMessageId`) for send_email; most recent activity first.',
  input: {
    query: z.string().min(1).max(500).describe('mailbox search syntax'),
    limit: limitArg(1, 20, 5),
  },
  output: z.object({
    threads: z.array(
      z.object({
        threadId: z.string(),
        replyToThreadId: z.string(),
        inReplyToMessageId: z.string().describe('the latest message of the thread'),
        subject: z.string(),
        participants: z.array(z.string()),
        messageCount: z.number().int(),
        matchingMessages: z.number().int(),
        firstMessageAt: isoDatetime,
        lastMessageAt: isoDatetime,
        hasAttachments: z.boolean(),
        snippet: z.string().describe('start of the latest matching message'),
      }),
    ),
    total: z.number().int().describe('matching threads before the limit'),
  }),
  run: ({ query, limit }, { db, vault, now }) => {
    let parsed;
    try {
      parsed = parseMailQuery(query);
    } catch (err) {
      if (err instanceof MailQueryError) throw invalidArgument('query', err.message);
      throw err;
    }
    const threads = new Map<
      string,
      { messages: MailMessage[]; matching: MailMessage[]; lastId: string; subject: string }
    >();
    for (const row of mailboxMessages(db, vault.id)) {
      const m: MailMessage = {
        threadId: row.thread_id,
        from: row.from_addr,
        fromName: row.from_name,
        to: json.read(row.to_json),
        cc: json.read(row.cc_json),
        subject: row.subject,
        body: row.body,
        sentAt: row.sent_at,
        attachments: json.read(row.attachments_json),
      };
      const t = threads.get(row.thread_id) ?? {
        messages: [],
        matching: [],
        lastId: row.id,
        subject: row.thread_subject,
      };
      t.messages.push(m);
      t.lastId = row.id; // rows come in time order
      if (matchesMessage(parsed, m, now)) t.matching.push(m);
      threads.set(row.thread_id, t);
    }
    const hits = [...threads]
      .filter(([, t]) => t.matching.length)
      .map(([id, t]) => {
        const last = t.messages[t.messages.length - 1]!;
        const lastMatch = t.matching[t.matching.length - 1]!;
        const body = lastMatch.body.replace(/\s+/g, ' ').trim();
        return {
          threadId: id,
          replyToThreadId: id,
          inReplyToMessageId: t.lastId,
          subject: t.subject,
          participants: [...new Set(t.messages.flatMap((m) => [m.from, ...m.to, ...m.cc]))],
          messageCount: t.messages.length,
          matchingMessages: t.matching.length,
          firstMessageAt: t.messages[0]!.sentAt,
          lastMessageAt: last.sentAt,
          hasAttachments: t.messages.some((m) => m.attachments.length > 0),
          snippet: body.length > SNIPPET_CHARS ? `${body.slice(0, SNIPPET_CHARS)}…` : body,
        };
      })
      .sort((a, b) => b.lastMessageAt.localeCompare(a.lastMessageAt));
    return { threads: hits.slice(0, limit), total: hits.length };
  },
});
