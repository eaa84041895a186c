import { z } from 'zod';
import { defineTool } from '../define.js';
import { conflict, conflictStatus, isoDatetime } from '../shapes.js';
import {
  appendConflictHistory,
  conflictHistory,
  getConflictStatus,
  listConflicts,
  setConflictStatus,
} from '../../store/conflicts.js';
import { invalidArgument, notFound, quoted } from '../../core/errors.js';
import { isoUtc } from '../../time.js';

export default defineTool({
  name: 'resolve_conflict',
  title: 'Resolve, dismiss or reopen a conflict',
  description:
    "Sets a conflict's status. `resolved`: the note states what the truth turned out to be (validated with the client). `dismissed`: the note says why (duplicate, transcription noise, not a real conflict). `open`: reopens a resolved or dismissed conflict. Every change is kept in the conflict's history (who, when, note).",
  access: 'manager',
  annotations: { readOnlyHint: false, idempotentHint: true },
  input: {
    conflictId: z.string().min(1).describe('from list_conflicts'),
    status: conflictStatus,
    note: z.string().max(4000).optional().describe('the validated truth, or why it was dismissed'),
  },
  output: conflict.extend({
    previousStatus: conflictStatus,
    history: z.array(
      z.object({
        at: isoDatetime,
        fromStatus: conflictStatus.nullable(),
        toStatus: conflictStatus,
        note: z.string().nullable(),
        by: z.string().nullable(),
      }),
    ),
    outboxSeq: z.number().int(),
  }),
  run: ({ conflictId, status, note }, ctx) => {
    const { db, vault } = ctx;
    const current = getConflictStatus(db, vault.id, conflictId);
    if (!current) throw notFound('conflict', conflictId, vault.name);
    // The spec's state table: any state → resolved or dismissed; resolved or dismissed → open.
    if (status === 'open' && current === 'open')
      throw invalidArgument(
        'status',
        `conflict ${quoted(conflictId)} is already open; only a resolved or dismissed conflict can be reopened`,
      );
    const at = isoUtc(ctx.now);
    return ctx.commit(
      () => {
        setConflictStatus(db, vault.id, conflictId, { status, note: note ?? null, at });
        appendConflictHistory(db, vault.id, conflictId, {
          at,
          fromStatus: current,
          toStatus: status,
          note: note ?? null,
          by: ctx.principal.name,
        });
      },
      (_, outboxSeq) => {
        const updated = listConflicts(db, vault.id, { status: 'all', entityId: undefined }).find(
          (c) => c.id === conflictId,
        )!;
        return { ...updated, previousStatus: current, history: conflictHistory(db, vault.id, conflictId), outboxSeq };
      },
    );
  },
});
