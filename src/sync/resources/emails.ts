/**
 * Sent e-mails (list_sent_emails). The API shows the newest 25 at most, so that is what a pull can keep;
 * drafts are never listed. Their threads are recorded so a local reply can name them.
 */
import { z } from 'zod';
import { json, sql } from '../../store/db.js';
import { clearExcept, optionalString, pullList, readTool, stringList, type PullContext } from './common.js';

export const SENT_EMAILS_VISIBLE = 25;

const email = {
  id: z.string(),
  to: stringList,
  cc: stringList,
  subject: z.string(),
  body: z.string(),
  attachments: stringList,
  sentAt: z.string(),
  replyToThreadId: z.string(),
  inReplyToMessageId: z.string(),
  repliesTo: optionalString,
};

export function pullSentEmails(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'sent_emails',
    email,
    async () => (await readTool<{ emails?: unknown }>(ctx, 'list_sent_emails', { vault: vaultId, limit: SENT_EMAILS_VISIBLE })).emails,
    (records) => {
      clearExcept(db, 'sent_emails', vaultId, ctx.localOnly('email'));
      const insert = sql(
        db,
        `INSERT OR REPLACE INTO sent_emails (vault_id, id, thread_id, message_id, in_reply_to_message_id, to_json, cc_json, subject, body,
           attachments_json, sent_at, status, send_as) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'sent', 'agent')`,
      );
      const thread = sql(db, 'INSERT OR IGNORE INTO mail_threads (vault_id, id, subject) VALUES (?, ?, ?)');
      for (const { item: e } of records) {
        thread.run(vaultId, e.replyToThreadId, e.subject);
        insert.run(vaultId, e.id, e.replyToThreadId, e.inReplyToMessageId, e.repliesTo, json.write(e.to), json.write(e.cc), e.subject, e.body,
          json.write(e.attachments), e.sentAt);
      }
    },
  );
}
