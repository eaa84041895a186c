/** Conflicts of every status, with their claims (list_conflicts status=all). Their entities must have landed first. */
import { z } from 'zod';
import { replaceConflictsFromUpstream } from '../../store/conflicts.js';
import {
  optionalString,
  orDefault,
  pullList,
  type PullContext,
  readTool,
  wireTime,
  optionalWireTime,
} from './common.js';

const claim = z.object({
  speaker: z.string(),
  quote: z.string(),
  meetingId: optionalString,
  spokenAt: optionalWireTime,
  turnIndex: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
});
const conflict = {
  id: z.string(),
  entityId: z.string(),
  title: z.string(),
  status: z.enum(['open', 'resolved', 'dismissed']),
  note: optionalString,
  claims: orDefault(z.array(claim), []),
  createdAt: wireTime,
  updatedAt: wireTime,
};

export function pullConflicts(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'conflicts',
    conflict,
    async () =>
      (await readTool<{ conflicts?: unknown }>(ctx, 'list_conflicts', { vault: vaultId, status: 'all' })).conflicts,
    (records) => {
      for (const c of replaceConflictsFromUpstream(
        db,
        vaultId,
        records.map((r) => r.item),
      )) {
        ctx.skip('conflicts', `conflict "${c.id}" is about entity "${c.entityId}", which is not in the vault (yet)`);
      }
    },
  );
}
