/** Conflicts of every status, with their claims (list_conflicts status=all). Their entities must have landed first. */
import { z } from 'zod';
import { sql } from '../../store/db.js';
import { clearExcept, optionalString, orDefault, pullList, type PullContext, readTool } from './common.js';

const claim = z.object({
  speaker: z.string(),
  quote: z.string(),
  meetingId: optionalString,
  spokenAt: optionalString,
  turnIndex: z.number().int().nullish().transform((v) => v ?? null),
});
const conflict = {
  id: z.string(),
  entityId: z.string(),
  title: z.string(),
  status: z.enum(['open', 'resolved', 'dismissed']),
  note: optionalString,
  claims: orDefault(z.array(claim), []),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export function pullConflicts(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'conflicts',
    conflict,
    async () => (await readTool<{ conflicts?: unknown }>(ctx, 'list_conflicts', { vault: vaultId, status: 'all' })).conflicts,
    (records) => {
      clearExcept(db, 'conflicts', vaultId, new Set());
      const known = new Set(sql(db, 'SELECT id FROM entities WHERE vault_id = ?').pluck().all(vaultId) as string[]);
      const insert = sql(db, 'INSERT INTO conflicts (vault_id, id, entity_id, title, status, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      const insertClaim = sql(
        db,
        'INSERT INTO conflict_claims (vault_id, conflict_id, position, meeting_id, turn_index, speaker, quote, spoken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      for (const { item: c } of records) {
        if (!known.has(c.entityId)) {
          ctx.skip('conflicts', `conflict "${c.id}" is about entity "${c.entityId}", which is not in the vault (yet)`);
          continue;
        }
        insert.run(vaultId, c.id, c.entityId, c.title, c.status, c.note, c.createdAt, c.updatedAt);
        c.claims.forEach((cl, i) => insertClaim.run(vaultId, c.id, i, cl.meetingId, cl.turnIndex, cl.speaker, cl.quote, cl.spokenAt));
      }
    },
  );
}
