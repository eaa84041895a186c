/** The people registry (find_person with no query lists everyone). */
import { z } from 'zod';
import { sql } from '../../store/db.js';
import { clearExcept, orDefault, pullList, type PullContext, readTool } from './common.js';

const person = { id: z.string(), name: z.string(), email: z.string(), title: orDefault(z.string(), ''), organisation: orDefault(z.string(), '') };

export function pullPeople(ctx: PullContext) {
  return pullList(
    ctx,
    'people',
    person,
    async () => (await readTool<{ people?: unknown }>(ctx, 'find_person', { vault: ctx.vaultId })).people,
    (records) => {
      clearExcept(ctx.db, 'people', ctx.vaultId, new Set());
      const insert = sql(ctx.db, 'INSERT OR REPLACE INTO people (vault_id, id, name, email, title, organisation) VALUES (?, ?, ?, ?, ?, ?)');
      for (const { item: p } of records) insert.run(ctx.vaultId, p.id, p.name, p.email, p.title, p.organisation);
    },
  );
}
