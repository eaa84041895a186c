import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime, limitArg } from '../shapes.js';
import { listSentEmails } from '../../store/mail.js';

export default defineTool({
  name: 'list_sent_emails',
  title: 'List e-mails the agent sent',
  description:
    "Messages the vault's agent already sent, newest first. To reply in the same conversation, pass the message's `replyToThreadId` and `inReplyToMessageId` to send_email. `to` narrows to one recipient.",
  input: {
    to: z.email().optional().describe('one recipient address (To or Cc)'),
    limit: limitArg(1, 25, 10),
  },
  output: z.object({
    emails: z.array(
      z.object({
        id: z.string(),
        to: z.array(z.string()),
        cc: z.array(z.string()),
        subject: z.string(),
        body: z.string(),
        attachments: z.array(z.string()),
        sentAt: isoDatetime,
        replyToThreadId: z.string().describe('pass to send_email to stay in this thread'),
        inReplyToMessageId: z.string().describe("this message's id: pass to send_email to reply to it"),
        repliesTo: z.string().nullable().describe('the message this one replied to'),
      }),
    ),
  }),
  run: ({ to, limit }, { db, vault }) => ({ emails: listSentEmails(db, vault.id, { to, limit }) }),
});
