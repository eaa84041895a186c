/**
 * Sent e-mails (list_sent_emails). The API shows the newest 25 at most, so that is what a pull can keep;
 * drafts are never listed. Their threads are recorded so a local reply can name them.
 */
import { z } from 'zod';
import { replaceSentEmailsFromUpstream } from '../../store/mail.js';
import { optionalString, pullList, readTool, stringList, type PullContext, wireTime } from './common.js';

export const SENT_EMAILS_VISIBLE = 25;

const email = {
  id: z.string(),
  to: stringList,
  cc: stringList,
  subject: z.string(),
  body: z.string(),
  attachments: stringList,
  sentAt: wireTime,
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
    async () =>
      (await readTool<{ emails?: unknown }>(ctx, 'list_sent_emails', { vault: vaultId, limit: SENT_EMAILS_VISIBLE }))
        .emails,
    (records) =>
      replaceSentEmailsFromUpstream(
        db,
        vaultId,
        records.map((r) => r.item),
        ctx.localOnly('email'),
      ),
  );
}
