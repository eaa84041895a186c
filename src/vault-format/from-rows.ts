/**
 * The reader's mirror: a vault's stored rows (src/store/vault-rows.ts) turned back into the records of the
 * folder format (schema.ts), local writes included, as they stand. What the loader derives (mention counts,
 * edge weights, evidence ids, a sent e-mail's copy in the mailbox) is not written: it derives it again.
 * The result is checked against the format's schema before anything is written (see write.ts).
 */
import type { VaultRows } from '../store/vault-rows.js';
import { json } from '../store/db.js';
import { FIXTURE_FORMAT_VERSION } from './schema.js';

type Row = Record<string, unknown>;

/** Optional fields are left out when the store holds NULL (the format has no nulls). */
const opt = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);
const str = (row: Row, column: string) => row[column] as string;
const list = <T = string>(row: Row, column: string) => json.read<T[]>(row[column] as string);
const MINUTE_MS = 60_000;

function groupBy(rows: Row[], column: string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = str(row, column);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(row);
  }
  return groups;
}

/**
 * The folder format's records for one vault. `today` (YYYY-MM-DD) becomes its referenceDate, and
 * `shiftDates: false` makes the loader keep every date as written: these are the dates of real work.
 */
export function fixtureFromRows(rows: VaultRows, today: string): Record<string, unknown> {
  const v = rows.vault[0]!;
  const turns = groupBy(rows.turns, 'meeting_id');
  const evidence = groupBy(rows.evidence, 'meeting_id');
  const claims = groupBy(rows.claims, 'conflict_id');
  const agentMessages = groupBy(rows.agentMessages, 'conversation_id');
  const messages = groupBy(rows.messages, 'thread_id');
  return {
    vault: {
      formatVersion: FIXTURE_FORMAT_VERSION,
      id: v.id,
      name: v.name,
      client: v.client,
      description: v.description,
      keywords: list(v, 'keywords_json'),
      summary: v.summary,
      boardPrefix: v.board_prefix,
      agentEmail: opt(v.agent_email),
      referenceDate: today,
      shiftDates: false,
    },
    people: rows.people.map((p) => ({
      id: p.id,
      name: p.name,
      email: p.email,
      title: p.title,
      organisation: p.organisation,
    })),
    entities: rows.entities.map((e) => ({
      id: e.id,
      type: e.type,
      name: e.name,
      aliases: list(e, 'aliases_json'),
      description: e.description,
      source: e.source,
      firstSeenAt: e.first_seen_at,
    })),
    edges: rows.edges.map((e) => ({ from: e.source_id, to: e.target_id, relation: e.relation })),
    meetings: rows.meetings.map((m) => ({
      id: m.id,
      name: m.name,
      startedAt: m.started_at,
      durationMinutes: opt(m.duration_minutes),
      attendees: list(m, 'attendees_json'),
      extractionStatus: m.extraction_status,
      notes: m.notes_md,
      transcript: (turns.get(str(m, 'id')) ?? []).map((t) => ({
        speaker: t.speaker,
        text: t.text,
        at: t.at_seconds ?? 0,
      })),
      evidence: (evidence.get(str(m, 'id')) ?? []).map((e) => ({
        entityId: e.entity_id,
        turn: opt(e.turn_index),
        quote: e.quote,
      })),
    })),
    conflicts: rows.conflicts.map((c) => ({
      id: c.id,
      entityId: c.entity_id,
      title: c.title,
      claims: (claims.get(str(c, 'id')) ?? []).map((cl) => ({
        meetingId: opt(cl.meeting_id),
        turn: opt(cl.turn_index),
        quote: cl.quote,
      })),
      status: c.status,
      note: opt(c.note),
      createdAt: c.created_at,
      updatedAt: c.updated_at,
    })),
    calendar: rows.calendar.map((e) => ({
      id: e.id,
      title: e.title,
      startAt: e.start_at,
      durationMinutes: Math.round((Date.parse(str(e, 'end_at')) - Date.parse(str(e, 'start_at'))) / MINUTE_MS),
      attendees: list(e, 'attendees_json'),
      videoLink: opt(e.video_link),
      description: opt(e.description),
      meetingId: opt(e.meeting_id),
    })),
    milestones: rows.milestones.map((m) => ({
      id: m.id,
      title: m.title,
      description: opt(m.description),
      targetDate: opt(m.target_date),
    })),
    tasks: rows.tasks.map((t) => ({
      number: t.number,
      title: t.title,
      description: opt(t.description),
      status: t.status,
      assigneeName: opt(t.assignee_name),
      estimate: opt(t.estimate),
      priority: t.priority,
      labels: list(t, 'labels_json'),
      checklist: list(t, 'checklist_json'),
      dueDate: opt(t.due_date),
      milestoneId: opt(t.milestone_id),
      blockedBy: t.blocked_by_json ? list(t, 'blocked_by_json') : undefined,
      createdAt: t.created_at,
      updatedAt: t.updated_at,
    })),
    'plan-steps': rows.planSteps.map((s) => ({
      id: s.id,
      title: s.title,
      description: opt(s.description),
      status: s.status,
      proposedBy: s.proposed_by,
      proposerName: opt(s.proposer_name),
      startDate: opt(s.start_date),
      dueDate: opt(s.due_date),
    })),
    files: rows.files.map((f) => ({
      id: f.id,
      name: f.name,
      description: f.description,
      visibility: f.visibility,
      mimeType: opt(f.mime_type),
      content: f.content_text ?? '',
      createdAt: f.created_at,
    })),
    briefs: rows.briefs.map((b) => ({
      id: b.id,
      kind: b.kind,
      title: b.title,
      createdAt: b.created_at,
      markdown: b.body_md,
    })),
    // Drafts are not mail that was sent: the format has no place for them (see docs/backup.md).
    'sent-emails': rows.sentEmails
      .filter((e) => e.status === 'sent')
      .map((e) => ({
        id: e.id,
        threadId: e.thread_id,
        messageId: e.message_id,
        inReplyToMessageId: opt(e.in_reply_to_message_id),
        to: list(e, 'to_json'),
        cc: list(e, 'cc_json'),
        subject: e.subject,
        body: e.body,
        sentAt: e.sent_at,
        attachmentNames: list(e, 'attachments_json'),
      })),
    // A thread with no message of its own holds only sent e-mails, whose thread the loader makes again.
    mailbox: rows.threads
      .filter((t) => messages.has(str(t, 'id')))
      .map((t) => ({
        id: t.id,
        subject: t.subject,
        messages: (messages.get(str(t, 'id')) ?? []).map((m) => ({
          id: m.id,
          from: m.from_addr,
          fromName: opt(m.from_name),
          to: list(m, 'to_json'),
          cc: list(m, 'cc_json'),
          sentAt: m.sent_at,
          body: m.body,
          attachmentNames: list(m, 'attachments_json'),
        })),
      })),
    conversations: rows.conversations.map((c) => ({
      id: c.id,
      channel: c.channel,
      personName: opt(c.person_name),
      personEmail: opt(c.person_email),
      title: c.title,
      messages: (agentMessages.get(str(c, 'id')) ?? []).map((m) => ({ role: m.role, at: m.at, text: m.text })),
    })),
  };
}
