/** People registry, mail the agent sent, the connected mailbox, and the agent's past conversations. */
import { json, limitParam, sql, type Db } from './db.js';

export interface PersonRow {
  id: string;
  name: string;
  email: string;
  title: string;
  organisation: string;
}

export function listPeople(db: Db, vaultId: string): PersonRow[] {
  return sql(db, 'SELECT id, name, email, title, organisation FROM people WHERE vault_id = ? ORDER BY name, id').all(
    vaultId,
  ) as PersonRow[];
}

/** Names of the people of several vaults at once (what scope resolution may read). */
export function peopleNamesByVault(db: Db): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of sql(db, 'SELECT vault_id, name FROM people').all() as { vault_id: string; name: string }[]) {
    (out.get(r.vault_id) ?? out.set(r.vault_id, []).get(r.vault_id)!).push(r.name);
  }
  return out;
}

interface SentRow {
  id: string;
  thread_id: string;
  message_id: string;
  in_reply_to_message_id: string | null;
  to_json: string;
  cc_json: string;
  subject: string;
  body: string;
  attachments_json: string;
  sent_at: string;
}

/** Newest first; `to` narrows to messages where that address is a To or Cc recipient. */
export function listSentEmails(db: Db, vaultId: string, opts: { to?: string; limit: number }) {
  const rows = sql(
    db,
    `SELECT * FROM sent_emails WHERE vault_id = @v AND status = 'sent'
       AND (@to IS NULL OR EXISTS (SELECT 1 FROM json_each(to_json) WHERE lower(value) = lower(@to))
                        OR EXISTS (SELECT 1 FROM json_each(cc_json) WHERE lower(value) = lower(@to)))
     ORDER BY sent_at DESC, id LIMIT ${limitParam('@limit')}`,
  ).all({ v: vaultId, to: opts.to ?? null, limit: opts.limit }) as SentRow[];
  return rows.map((r) => ({
    id: r.id,
    to: json.read(r.to_json),
    cc: json.read(r.cc_json),
    subject: r.subject,
    body: r.body,
    attachments: json.read(r.attachments_json),
    sentAt: r.sent_at,
    replyToThreadId: r.thread_id,
    inReplyToMessageId: r.message_id,
    repliesTo: r.in_reply_to_message_id,
  }));
}

export interface MailMessageRow {
  id: string;
  thread_id: string;
  thread_subject: string;
  from_addr: string;
  from_name: string | null;
  to_json: string;
  cc_json: string;
  subject: string;
  body: string;
  attachments_json: string;
  sent_at: string;
}

export function mailboxMessages(db: Db, vaultId: string): MailMessageRow[] {
  return sql(
    db,
    `SELECT m.*, t.subject AS thread_subject FROM mail_messages m JOIN mail_threads t ON t.vault_id = m.vault_id AND t.id = m.thread_id
     WHERE m.vault_id = ? ORDER BY m.sent_at, m.id`,
  ).all(vaultId) as MailMessageRow[];
}

export interface MemoryHit {
  conversationId: string;
  channel: string;
  title: string;
  personName: string | null;
  personEmail: string | null;
  position: number;
  role: string;
  text: string;
  at: string;
  rank: number;
}

/** BM25 over the agent's past messages; `match` is an FTS5 query built by the caller. */
export function searchAgentMessages(
  db: Db,
  vaultId: string,
  match: string,
  personEmail: string | undefined,
  limit: number,
): MemoryHit[] {
  return sql(
    db,
    `SELECT m.conversation_id AS conversationId, c.channel, c.title, c.person_name AS personName, c.person_email AS personEmail,
            m.position, m.role, m.text, m.at, bm25(agent_messages_fts) AS rank
     FROM agent_messages_fts f
     JOIN agent_messages m ON m.rowid = f.rowid
     JOIN agent_conversations c ON c.vault_id = m.vault_id AND c.id = m.conversation_id
     WHERE agent_messages_fts MATCH @match AND m.vault_id = @v
       AND (@person IS NULL OR lower(c.person_email) = lower(@person))
     ORDER BY rank LIMIT ${limitParam('@limit')}`,
  ).all({ match, v: vaultId, person: personEmail ?? null, limit }) as MemoryHit[];
}

/**
 * `addresses` matched against the vault's people registry (case-insensitive): those it holds, each once and
 * spelled as the registry spells it, and those it does not hold.
 */
export function registryAddresses(
  db: Db,
  vaultId: string,
  addresses: string[],
): { known: string[]; unknown: string[] } {
  const registry = new Map(
    (sql(db, 'SELECT email FROM people WHERE vault_id = ?').pluck().all(vaultId) as string[]).map((e) => [
      e.toLowerCase(),
      e,
    ]),
  );
  const known = new Set<string>();
  const unknown = new Set<string>();
  for (const a of addresses) {
    const spelled = registry.get(a.toLowerCase());
    if (spelled) known.add(spelled);
    else unknown.add(a);
  }
  return { known: [...known], unknown: [...unknown] };
}

/** The addresses among `addresses` that are not in the vault's people registry (case-insensitive). */
export const unknownAddresses = (db: Db, vaultId: string, addresses: string[]): string[] =>
  registryAddresses(db, vaultId, addresses).unknown;

export interface UpstreamSentEmail {
  id: string;
  to: string[];
  cc: string[];
  subject: string;
  body: string;
  attachments: string[];
  sentAt: string;
  replyToThreadId: string;
  inReplyToMessageId: string;
  repliesTo: string | null;
}

/**
 * The vault's sent e-mails become upstream's, except those sent here and not pushed yet (`kept`); each one's
 * thread is recorded so a local reply can name it. Inside the caller's transaction.
 */
export function replaceSentEmailsFromUpstream(
  db: Db,
  vaultId: string,
  emails: readonly UpstreamSentEmail[],
  kept: ReadonlySet<string>,
): void {
  sql(db, 'DELETE FROM sent_emails WHERE vault_id = ? AND id NOT IN (SELECT value FROM json_each(?))').run(
    vaultId,
    JSON.stringify([...kept]),
  );
  const insert = sql(
    db,
    `INSERT OR REPLACE INTO sent_emails (vault_id, id, thread_id, message_id, in_reply_to_message_id, to_json, cc_json, subject, body,
       attachments_json, sent_at, status, send_as) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'sent', 'agent')`,
  );
  const thread = sql(db, 'INSERT OR IGNORE INTO mail_threads (vault_id, id, subject) VALUES (?, ?, ?)');
  for (const e of emails) {
    thread.run(vaultId, e.replyToThreadId, e.subject);
    insert.run(
      vaultId,
      e.id,
      e.replyToThreadId,
      e.inReplyToMessageId,
      e.repliesTo,
      json.write(e.to),
      json.write(e.cc),
      e.subject,
      e.body,
      json.write(e.attachments),
      e.sentAt,
    );
  }
}

export function insertPerson(db: Db, vaultId: string, p: PersonRow): void {
  sql(db, 'INSERT INTO people (vault_id, id, name, email, title, organisation) VALUES (?, ?, ?, ?, ?, ?)').run(
    vaultId,
    p.id,
    p.name,
    p.email,
    p.title,
    p.organisation,
  );
}

export function threadExists(db: Db, vaultId: string, threadId: string): boolean {
  return sql(db, 'SELECT 1 FROM mail_threads WHERE vault_id = ? AND id = ?').get(vaultId, threadId) !== undefined;
}

/** The thread a mailbox message is in; undefined when the mailbox does not hold it. */
export function threadOfMessage(db: Db, vaultId: string, messageId: string): string | undefined {
  return sql(db, 'SELECT thread_id FROM mail_messages WHERE vault_id = ? AND id = ?').pluck().get(vaultId, messageId) as
    | string
    | undefined;
}

/** A mailbox thread, unless the mailbox holds it already. */
export function insertMailThread(db: Db, vaultId: string, t: { id: string; subject: string }): void {
  sql(db, 'INSERT INTO mail_threads (vault_id, id, subject) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(
    vaultId,
    t.id,
    t.subject,
  );
}

export interface NewMailMessage {
  id: string;
  threadId: string;
  from: string;
  fromName: string | null;
  to: string[];
  cc: string[];
  subject: string;
  body: string;
  attachmentNames: string[];
  sentAt: string;
}

/** A mailbox message, unless the mailbox holds it already (what the agent sent is also a message of its thread). */
export function insertMailMessage(db: Db, vaultId: string, m: NewMailMessage): void {
  sql(
    db,
    `INSERT INTO mail_messages (vault_id, id, thread_id, from_addr, from_name, to_json, cc_json, subject, body, attachments_json, sent_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  ).run(
    vaultId,
    m.id,
    m.threadId,
    m.from,
    m.fromName,
    json.write(m.to),
    json.write(m.cc),
    m.subject,
    m.body,
    json.write(m.attachmentNames),
    m.sentAt,
  );
}

/** What the agent sent (or saved as a draft); `emlPath` is relative to the data dir, for mail written locally. */
export function insertSentEmail(
  db: Db,
  vaultId: string,
  e: Omit<NewMailMessage, 'from' | 'fromName'> & {
    messageId: string;
    inReplyToMessageId: string | null;
    status: 'sent' | 'draft';
    sendAs: 'agent' | 'me';
    emlPath: string | null;
  },
): void {
  sql(
    db,
    `INSERT INTO sent_emails (vault_id, id, thread_id, message_id, in_reply_to_message_id, to_json, cc_json, subject, body, attachments_json,
       sent_at, status, send_as, eml_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    vaultId,
    e.id,
    e.threadId,
    e.messageId,
    e.inReplyToMessageId,
    json.write(e.to),
    json.write(e.cc),
    e.subject,
    e.body,
    json.write(e.attachmentNames),
    e.sentAt,
    e.status,
    e.sendAs,
    e.emlPath,
  );
}

/** One of the agent's past conversations, with its messages in order. */
export function insertConversation(
  db: Db,
  vaultId: string,
  c: {
    id: string;
    channel: string;
    personName: string | null;
    personEmail: string | null;
    title: string;
    startedAt: string;
    messages: { role: string; text: string; at: string }[];
  },
): void {
  sql(
    db,
    'INSERT INTO agent_conversations (vault_id, id, channel, person_name, person_email, title, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(vaultId, c.id, c.channel, c.personName, c.personEmail, c.title, c.startedAt);
  const message = sql(
    db,
    'INSERT INTO agent_messages (vault_id, conversation_id, position, role, text, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  c.messages.forEach((m, i) => message.run(vaultId, c.id, i, m.role, m.text, m.at));
}
