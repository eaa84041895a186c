import { z } from 'zod';
import { defineTool } from '../define.js';
import { ENTITY_TYPES, TASK_STATUSES } from '../../fixtures/schema.js';
import { vaultRef } from '../shapes.js';
import { countsByType } from '../../store/entities.js';
import { meetingCounts } from '../../store/meetings.js';
import { taskCountsByStatus } from '../../store/plan.js';

const countsOf = <K extends string>(keys: readonly K[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])) as Record<K, z.ZodNumber>);

export default defineTool({
  name: 'stats',
  title: 'Vault statistics',
  description: 'Entity counts by type, meetings extracted versus total, and tasks by status: the quick shape of a vault. Call after choosing the vault, before get_brief.',
  input: {},
  output: z.object({
    vault: vaultRef,
    entities: z.object({ total: z.number().int(), byType: countsOf(ENTITY_TYPES) }),
    meetings: z.object({ total: z.number().int(), extracted: z.number().int() }),
    tasks: z.object({ total: z.number().int(), byStatus: countsOf(TASK_STATUSES) }),
  }),
  run: (_args, { db, vault }) => {
    const byType = Object.fromEntries(ENTITY_TYPES.map((t) => [t, 0])) as Record<(typeof ENTITY_TYPES)[number], number>;
    for (const { type, n } of countsByType(db, vault.id)) byType[type as keyof typeof byType] = n;
    const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<(typeof TASK_STATUSES)[number], number>;
    for (const { status, n } of taskCountsByStatus(db, vault.id)) byStatus[status as keyof typeof byStatus] = n;
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    return {
      vault: { id: vault.id, name: vault.name },
      entities: { total: sum(byType), byType },
      meetings: meetingCounts(db, vault.id),
      tasks: { total: sum(byStatus), byStatus },
    };
  },
});
