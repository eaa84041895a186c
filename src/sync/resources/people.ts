/** The people registry (find_person with no query lists everyone). */
import { z } from 'zod';
import { replacePeopleFromUpstream } from '../../store/people.js';
import { orDefault, pullList, type PullContext, readTool } from './common.js';

const person = {
  id: z.string(),
  name: z.string(),
  email: z.string(),
  title: orDefault(z.string(), ''),
  organisation: orDefault(z.string(), ''),
};

export function pullPeople(ctx: PullContext) {
  return pullList(
    ctx,
    'people',
    person,
    async () => (await readTool<{ people?: unknown }>(ctx, 'find_person', { vault: ctx.vaultId })).people,
    (records) =>
      replacePeopleFromUpstream(
        ctx.db,
        ctx.vaultId,
        records.map((r) => r.item),
      ),
  );
}
