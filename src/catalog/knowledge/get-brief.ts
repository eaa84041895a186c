import { z } from 'zod';
import { defineTool } from '../define.js';
import { briefKind, isoDatetime } from '../shapes.js';
import { latestBrief } from '../../store/briefs.js';
import { ServiceError } from '../../core/errors.js';

export default defineTool({
  name: 'get_brief',
  title: 'Get the latest brief',
  description:
    "The latest agent-written brief of a kind: `daily` (current snapshot of the vault), `weekly-plan` (mirrors Monday's plan e-mail) or `weekly-digest` (mirrors Friday's digest e-mail). Markdown.",
  input: { kind: briefKind.default('daily').describe('daily (default), weekly-plan or weekly-digest') },
  output: z.object({
    id: z.string(),
    kind: briefKind,
    title: z.string(),
    createdAt: isoDatetime,
    markdown: z.string(),
  }),
  run: ({ kind }, { db, vault }) => {
    const brief = latestBrief(db, vault.id, kind);
    if (!brief) throw new ServiceError('not_found', `Vault "${vault.name}" has no ${kind} brief yet.`);
    return brief;
  },
});
