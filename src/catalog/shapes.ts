/** Wire shapes shared by several tools: enums of the catalog and the records more than one tool returns. */
import { z } from 'zod';
import { isoUtc } from '../time.js';
import {
  BRIEF_KINDS,
  CONFLICT_STATUSES,
  ENTITY_SOURCES,
  ENTITY_TYPES,
  EXTRACTION_STATUSES,
  PLAN_STEP_STATUSES,
  TASK_ESTIMATES,
  TASK_PRIORITIES,
  TASK_STATUSES,
} from '../core/vocabulary.js';

export const entityType = z.enum(ENTITY_TYPES);
export const entitySource = z.enum(ENTITY_SOURCES);
export const conflictStatus = z.enum(CONFLICT_STATUSES);
export const taskStatus = z.enum(TASK_STATUSES);
export const briefKind = z.enum(BRIEF_KINDS);
export const extractionStatus = z.enum(EXTRACTION_STATUSES);
export const planStepStatus = z.enum(PLAN_STEP_STATUSES);
export const taskEstimate = z.enum(TASK_ESTIMATES);
export const taskPriority = z.enum(TASK_PRIORITIES);
export const artifactKind = z.enum(['workbook', 'csv', 'chart', 'report']);

export const isoDatetime = z.string().describe('ISO 8601 datetime, UTC');
export const isoDate = z.string().describe('ISO 8601 date (YYYY-MM-DD)');

/** An ISO 8601 datetime argument; an offset is required so the moment is unambiguous. */
export const isoDatetimeArg = z.iso.datetime({
  offset: true,
  message: 'expected an ISO 8601 datetime with a UTC offset, e.g. 2026-11-01T00:00:00Z',
});

/** A date bound of a filter: a day (its start, UTC) or a datetime with an offset. */
export const dateBound = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .describe('ISO 8601 date (2026-11-01) or datetime with offset (2026-11-01T09:00:00Z)');
/** A dateBound as the UTC datetime the store compares with. */
export function asDatetime(v: string): string;
export function asDatetime(v: string | undefined): string | undefined;
export function asDatetime(v: string | undefined): string | undefined {
  return v === undefined ? undefined : v.length === 10 ? `${v}T00:00:00Z` : isoUtc(Date.parse(v));
}

/** `query` of a list a model narrows by words (list_tasks, list_calendar: catalog/word-match.ts does the matching). */
export const wordsQuery = (records: string, fields: string) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200)
    .optional()
    .describe(`words the ${records} hold (${fields}); the ${records} holding every word, or if none, the most of them`);

export const limitArg = (min: number, max: number, byDefault: number) =>
  z.number().int().min(min).max(max).default(byDefault).describe(`${min} to ${max}, default ${byDefault}`);

/** An entity as lists return it (the full item of list_findings, matches of search_knowledge). */
export const finding = z.object({
  id: z.string(),
  name: z.string(),
  type: entityType,
  description: z.string(),
  aliases: z.array(z.string()),
  source: entitySource,
  mentionCount: z.number().int(),
  firstSeenAt: isoDatetime,
  lastMentionedAt: isoDatetime.nullable(),
});

export const compactFinding = finding
  .pick({ id: true, name: true, type: true, mentionCount: true, lastMentionedAt: true })
  .strict();

export const edge = z.object({
  entityId: z.string(),
  name: z.string(),
  type: entityType,
  relation: z.string(),
  direction: z.enum(['out', 'in', 'both']).describe('out: this entity → other; in: other → this entity'),
  weight: z.number().int().describe('co-mentions across meetings'),
});

export const claim = z.object({
  speaker: z.string(),
  quote: z.string(),
  meetingId: z.string().nullable(),
  meetingName: z.string().nullable(),
  spokenAt: isoDatetime.nullable(),
  turnIndex: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe('the turn of its meeting (get_transcript turnStart reads around it)'),
  context: z
    .string()
    .nullable()
    .optional()
    .describe(
      'the whole sentences of the turn the quote was clipped from: read the claim with its qualifiers; null when the turn is unknown',
    ),
});

/** Meetings not extracted yet that are newer than a record's evidence (src/catalog/knowledge-lag.ts). */
export const laterMeetingsNotExtracted = z
  .array(z.object({ meetingId: z.string(), meetingName: z.string(), date: isoDatetime, extractionStatus }))
  .optional()
  .describe(
    'meetings held after the latest evidence this rests on whose transcripts are not extracted yet: this record predates them and may be out of date; search their transcripts (search_transcripts with meetingId). Absent when there are none',
  );

export const conflict = z.object({
  id: z.string(),
  entityId: z.string(),
  entityName: z.string(),
  title: z.string(),
  status: conflictStatus,
  note: z.string().nullable(),
  claims: z.array(claim),
  createdAt: isoDatetime,
  updatedAt: isoDatetime,
  laterMeetingsNotExtracted,
});

export const meetingSummary = z.object({
  id: z.string(),
  name: z.string(),
  date: isoDatetime,
  durationMinutes: z.number().int().nullable(),
  attendees: z.array(z.string()),
  extractionStatus,
  createdAt: isoDatetime.describe('when the recording was added to the vault (what changes_since counts as new)'),
});

/** A verbatim quote about an entity: who said it, in which meeting, when (get_entity with evidence). */
export const evidenceQuote = z.object({
  quote: z.string(),
  speaker: z.string(),
  meetingId: z.string(),
  meetingName: z.string(),
  spokenAt: isoDatetime,
  turnIndex: z.number().int().nullable(),
});

export const vaultRef = z.object({ id: z.string(), name: z.string() });

/** A task as list_tasks, add_task and update_task return it. */
export const task = z.object({
  id: z.string(),
  identifier: z.string(),
  number: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  status: taskStatus,
  owner: z.string().nullable(),
  estimate: taskEstimate.nullable(),
  priority: taskPriority,
  labels: z.array(z.string()),
  checklist: z.array(z.object({ text: z.string(), done: z.boolean() })),
  dueDate: isoDate.nullable(),
  milestoneId: z.string().nullable(),
  milestoneTitle: z.string().nullable(),
  createdAt: isoDatetime,
  updatedAt: isoDatetime,
  blockedBy: z
    .array(
      z.object({
        kind: z.enum(['task', 'person', 'event']),
        ref: z
          .string()
          .nullable()
          .describe("the blocking task's identifier (`NWL-16`) or the event's id; null for a person"),
        name: z.string().describe("the blocking task's title, the person's name or the event's title"),
        status: taskStatus.nullable().describe("the blocking task's status"),
        note: z.string().nullable().describe('what is awaited'),
        dueDate: isoDate.nullable().describe('when it is expected to clear'),
        afterDueDate: z
          .boolean()
          .describe("it is expected to clear after this task's own due date: that due date cannot hold"),
      }),
    )
    .optional()
    .describe('what holds this task up, where the board records it; absent when nothing is recorded'),
});

/** A calendar event as list_calendar and schedule_meeting return it. */
export const calendarEvent = z.object({
  id: z.string(),
  title: z.string(),
  start: isoDatetime,
  end: isoDatetime,
  durationMinutes: z.number().int(),
  happened: z.boolean().describe('the event has ended'),
  attendees: z.array(z.string()),
  videoLink: z.string().nullable(),
  description: z.string().nullable(),
  meetingId: z.string().nullable().describe('the recorded meeting, when there is one'),
});

/** What an export tool answers about the file it stored (export_report, export_deck extend it). */
export const storedFile = z.object({
  artifactId: z.string(),
  url: z.string(),
  kind: artifactKind,
  title: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
});
