import { z } from 'zod';
import { defineTool } from '../define.js';

export default defineTool({
  name: 'list_vaults',
  title: 'List vaults',
  description:
    'The vaults this key may reach: id, name, client and what the engagement is about. Start here: with more than one vault, pass the exact id (or name) as `vault` to every later call, then use suggest_vault_scope when the conversation does not say which vault.',
  vaultScoped: false,
  input: {},
  output: z.object({
    vaults: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        client: z.string(),
        description: z.string(),
        keywords: z.array(z.string()),
        summary: z.string().describe('the cached engagement summary suggest_vault_scope reads'),
      }),
    ),
  }),
  run: (_args, ctx) => ({
    vaults: ctx.reachableVaults().map((v) => ({
      id: v.id,
      name: v.name,
      client: v.client,
      description: v.description,
      keywords: v.keywords,
      summary: v.summary,
    })),
  }),
});
