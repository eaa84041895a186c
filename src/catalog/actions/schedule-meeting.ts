import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineTool } from '../define.js';
import { calendarEvent, isoDatetimeArg } from '../shapes.js';
import { getEvent, insertEvent } from '../../store/calendar.js';
import { registryAddresses } from '../../store/mail.js';
import { invalidArgument } from '../../core/errors.js';
import { isoUtc } from '../../time.js';

export default defineTool({
  name: 'schedule_meeting',
  title: 'Schedule a meeting',
  description:
    "Creates a calendar event with a video-meeting link in the project's connected calendar. `startIso` is ISO 8601 with a UTC offset; `attendees` are e-mail addresses from the vault's people registry (find_person), stored once each as the registry spells them; `durationMinutes` 15 to 120, default 30. Created locally at once; the next sync books it upstream.",
  access: 'manager',
  sync: { creates: { kind: 'event', field: 'id' } },
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  input: {
    title: z.string().min(1).max(300),
    startIso: isoDatetimeArg.describe('ISO 8601 with a UTC offset, e.g. 2026-12-01T10:00:00+01:00'),
    attendees: z.array(z.email()).min(1).max(50).describe("addresses from the vault's people registry"),
    description: z.string().max(10_000).optional(),
    durationMinutes: z.number().int().min(15).max(120).default(30).describe('15 to 120, default 30'),
  },
  output: calendarEvent.extend({ pendingSync: z.boolean(), outboxSeq: z.number().int() }),
  run: (args, ctx) => {
    const { db, vault, now } = ctx;
    const start = Date.parse(args.startIso);
    if (start < now.getTime())
      throw invalidArgument('startIso', `${args.startIso} is in the past; a meeting is scheduled ahead`);
    // Stored as the registry spells them, each once: "Ana@X" and "ana@x" are one attendee.
    const { known: attendees, unknown } = registryAddresses(db, vault.id, args.attendees);
    if (unknown.length) {
      throw invalidArgument(
        'attendees',
        `not in the people registry of "${vault.name}": ${unknown.join(', ')} (find_person lists the addresses; never guess one)`,
      );
    }
    const id = `evt_${randomBytes(8).toString('hex')}`;
    return ctx.commit(
      () => {
        insertEvent(db, vault.id, {
          id,
          title: args.title,
          startAt: isoUtc(start),
          endAt: isoUtc(start + args.durationMinutes * 60_000),
          attendees,
          // A placeholder under the reserved .invalid domain until the connected calendar issues the real link.
          videoLink: `https://meet.invalid/${encodeURIComponent(vault.id)}/${id}`,
          description: args.description ?? null,
          createdAt: isoUtc(now),
        });
      },
      (_, outboxSeq) => ({ ...getEvent(db, vault.id, id, now)!, pendingSync: true, outboxSeq }),
    );
  },
});
