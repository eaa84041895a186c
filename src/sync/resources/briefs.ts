/** The latest brief of each kind (get_brief per kind; a kind with none yet is a 404, not an error). */
import { z } from 'zod';
import { replaceBriefsFromUpstream } from '../../store/briefs.js';
import { RemoteError } from '../remote.js';
import { pullList, type PullContext, readTool, wireTime } from './common.js';

const KINDS = ['daily', 'weekly-plan', 'weekly-digest'] as const;
const brief = { id: z.string(), kind: z.enum(KINDS), title: z.string(), createdAt: wireTime, markdown: z.string() };

export function pullBriefs(ctx: PullContext) {
  const { db, vaultId } = ctx;
  return pullList(
    ctx,
    'briefs',
    brief,
    async () => {
      const found = await Promise.all(
        KINDS.map((kind) =>
          readTool(ctx, 'get_brief', { vault: vaultId, kind }).catch((err) => {
            if (err instanceof RemoteError && err.status === 404) return undefined;
            throw err;
          }),
        ),
      );
      return found.filter((b) => b !== undefined);
    },
    (records) =>
      replaceBriefsFromUpstream(
        db,
        vaultId,
        records.map((r) => r.item),
      ),
  );
}
