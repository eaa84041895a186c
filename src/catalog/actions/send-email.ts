import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime } from '../shapes.js';
import { getArtifact } from '../../store/files.js';
import {
  insertMailMessage,
  insertMailThread,
  insertSentEmail,
  threadExists,
  threadOfMessage,
  unknownAddresses,
} from '../../store/mail.js';
import { artifactAbsolutePath, vaultFilePath } from '../../render/artifacts.js';
import { buildEml } from '../../render/eml.js';
import { invalidArgument, notFound, quoted } from '../../core/errors.js';
import { isoUtc } from '../../time.js';

export default defineTool({
  name: 'send_email',
  title: 'Send an e-mail',
  description:
    "Sends (or with `asDraft`, saves) a plain-text e-mail from the vault's agent. Recipients must be in the vault's people registry (find_person; never guess an address). `attachmentIds` are artifact ids of this vault (find_artifact); `sendAs: agent` (default) may attach several, `sendAs: me` one. To reply in a conversation pass `replyToThreadId` and `inReplyToMessageId` (from list_sent_emails or find_email_thread).",
  access: 'manager',
  sync: { creates: { kind: 'email', field: 'id' }, references: { attachmentIds: 'artifact' } },
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  input: {
    to: z
      .union([z.email(), z.array(z.email()).min(1).max(50)])
      .describe('an address or a list of addresses of the vault'),
    subject: z.string().min(1).max(300),
    body: z.string().min(1).max(100_000).describe('plain text'),
    cc: z.array(z.email()).max(50).optional(),
    attachmentIds: z.array(z.string().min(1)).max(10).optional(),
    sendAs: z.enum(['agent', 'me']).default('agent'),
    replyToThreadId: z.string().min(1).optional(),
    inReplyToMessageId: z.string().min(1).optional(),
    asDraft: z.boolean().default(false),
  },
  output: z.object({
    id: z.string(),
    status: z.enum(['sent', 'draft']),
    messageId: z.string(),
    replyToThreadId: z.string().describe('the thread, for a follow-up'),
    inReplyToMessageId: z.string().describe('this message, for a reply to it'),
    repliesTo: z.string().nullable(),
    from: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string(),
    attachments: z.array(z.object({ artifactId: z.string(), fileName: z.string(), sizeBytes: z.number().int() })),
    sentAt: isoDatetime,
    emlPath: z.string().describe('the RFC 5322 file written locally'),
    outboxSeq: z.number().int(),
  }),
  run: (args, ctx) => {
    const { db, vault, now } = ctx;
    const to = Array.isArray(args.to) ? args.to : [args.to];
    const cc = args.cc ?? [];
    for (const [field, list] of [
      ['to', to],
      ['cc', cc],
    ] as const) {
      const unknown = unknownAddresses(db, vault.id, list);
      if (unknown.length)
        throw invalidArgument(
          field,
          `not in the people registry of "${vault.name}": ${unknown.join(', ')} (find_person lists the addresses)`,
        );
    }
    const ids = args.attachmentIds ?? [];
    if (args.sendAs === 'me' && ids.length > 1)
      throw invalidArgument(
        'attachmentIds',
        'sendAs "me" sends one attachment at most; use sendAs "agent" for several',
      );
    const attachments = ids.map((id) => {
      const row = getArtifact(db, vault.id, id);
      if (!row?.path) throw notFound('artifact', id, vault.name);
      return { row, bytes: readFileSync(artifactAbsolutePath(ctx.dataDir, row.path)) };
    });

    // Threading: a reply stays in its thread; the message replied to must be in the mailbox (and that thread).
    let threadId = args.replyToThreadId;
    if (threadId && !threadExists(db, vault.id, threadId)) throw notFound('thread', threadId, vault.name);
    if (args.inReplyToMessageId) {
      const inThread = threadOfMessage(db, vault.id, args.inReplyToMessageId);
      if (!inThread || (threadId && inThread !== threadId))
        throw notFound(
          threadId ? `message in thread ${quoted(threadId)}` : 'message',
          args.inReplyToMessageId,
          vault.name,
        );
      threadId = inThread;
    }
    const newThread = !threadId;
    threadId ??= `thr_${randomBytes(8).toString('hex')}`;

    const id = `mail_${randomBytes(8).toString('hex')}`;
    const messageId = `<${randomUUID()}@vault-tools.local>`;
    const sentAt = isoUtc(now.getTime());
    const from = vault.agentEmail ?? `agent@${vault.id}.vault-tools.local`;
    const fromName = args.sendAs === 'me' ? ctx.principal.name : `${vault.name} agent`;
    const status: 'sent' | 'draft' = args.asDraft ? 'draft' : 'sent';
    const { absolute: emlPath, relative } = vaultFilePath(ctx.dataDir, 'mail', vault.id, `${id}.eml`);
    mkdirSync(dirname(emlPath), { recursive: true, mode: 0o700 });
    const eml = buildEml({
      from: { name: fromName, address: from },
      to,
      cc,
      subject: args.subject,
      body: args.body,
      date: now,
      messageId,
      inReplyTo: args.inReplyToMessageId,
      attachments: attachments.map((a) => ({ fileName: a.row.file_name, mimeType: a.row.mime_type, bytes: a.bytes })),
    });
    writeFileSync(`${emlPath}.partial`, eml, { mode: 0o600 });
    renameSync(`${emlPath}.partial`, emlPath);
    const attachmentNames = attachments.map((a) => a.row.file_name);
    try {
      return ctx.commit(
        () => {
          const message = { threadId, to, cc, subject: args.subject, body: args.body, attachmentNames, sentAt };
          insertSentEmail(db, vault.id, {
            ...message,
            id,
            messageId,
            inReplyToMessageId: args.inReplyToMessageId ?? null,
            status,
            sendAs: args.sendAs,
            emlPath: relative,
          });
          if (status === 'sent') {
            if (newThread) insertMailThread(db, vault.id, { id: threadId, subject: args.subject });
            insertMailMessage(db, vault.id, { ...message, id: messageId, from, fromName });
          }
        },
        (_, outboxSeq) => ({
          id,
          status,
          messageId,
          replyToThreadId: threadId,
          inReplyToMessageId: messageId,
          repliesTo: args.inReplyToMessageId ?? null,
          from,
          to,
          cc,
          subject: args.subject,
          attachments: attachments.map((a) => ({
            artifactId: a.row.id,
            fileName: a.row.file_name,
            sizeBytes: a.row.size_bytes,
          })),
          sentAt,
          emlPath,
          outboxSeq,
        }),
      );
    } catch (err) {
      rmSync(emlPath, { force: true });
      throw err;
    }
  },
});
