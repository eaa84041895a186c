import { z } from 'zod';
import { defineTool } from '../define.js';
import { conflict, conflictStatus, isoDatetime } from '../shapes.js';
import { listConflicts } from '../../store/conflicts.js';
import { sql } from '../../store/db.js';
import { invalidArgument, notFound } from '../../core/errors.js';

export default defineTool({
  name: 'resolve_conflict',
  title: 'Resolve, dismiss or reopen a conflict',
  description:
    'Sets a conflict\'s status. `resolved`: the note states what the truth turned out to be (validated with the client). `dismissed`: the note says why (duplicate, transcription noise, not a real conflict). `open`: reopens a resolved or dismissed conflict. Every change is kept in the conflict\'s history (who, when, note).',
  access: 'manager',
  annotations: { readOnlyHint: false, idempotentHint: true },
  input: {
    conflictId: z.string().min(1).describe('from list_conflicts'),
    status: conflictStatus,
    note: z.string().max(4000).optional().describe('the validated truth, or why it was dismissed'),
  },
  output: conflict.extend({
    previousStatus: conflictStatus,
    history: z.array(z.object({ at: isoDatetime, fromStatus: conflictStatus.nullable(), toStatus: conflictStatus, note: z.string().nullable(), by: z.string().nullable() })),
    outboxSeq: z.number().int(),
  }),
  run: ({ conflictId, status, note }, ctx) => {
    const { db, vault } = ctx;
    const current = sql(db, 'SELECT status FROM conflicts WHERE vault_id = ? AND id = ?').pluck().get(vault.id, conflictId) as
      | 'open' | 'resolved' | 'dismissed' | undefined;
    if (!current) throw notFound('conflict', conflictId, vault.name);
    // The spec's state table: any state → resolved or dismissed; resolved or dismissed → open.
    if (status === 'open' && current === 'open') throw invalidArgument('status', `conflict "${conflictId}" is already open; only a resolved or dismissed conflict can be reopened`);
    const at = ctx.now.toISOString();
    const { outboxSeq } = ctx.commit(() => {
      // The note belongs to this status: a new status without a note clears the old one.
      sql(db, 'UPDATE conflicts SET status = ?, note = ?, updated_at = ? WHERE vault_id = ? AND id = ?').run(status, note ?? null, at, vault.id, conflictId);
      sql(db, 'INSERT INTO conflict_history (vault_id, conflict_id, at, from_status, to_status, note, actor) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        vault.id, conflictId, at, current, status, note ?? null, ctx.principal.name,
      );
      return { conflictId, status };
    });
    const updated = listConflicts(db, vault.id, { status: 'all', entityId: undefined }).find((c) => c.id === conflictId)!;
    const history = sql(
      db,
      'SELECT at, from_status AS fromStatus, to_status AS toStatus, note, actor AS by FROM conflict_history WHERE vault_id = ? AND conflict_id = ? ORDER BY at, rowid',
    ).all(vault.id, conflictId) as { at: string; fromStatus: 'open' | null; toStatus: 'open'; note: string | null; by: string | null }[];
    return { ...updated, previousStatus: current, history, outboxSeq };
  },
});
