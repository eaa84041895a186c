/**
 * Public files (list_files), with their text fetched from each file's download URL. Only files whose listing
 * changed are downloaded again. Internal files are never published, so a synced store has none.
 */
import { z } from 'zod';
import { fileText, replaceFilesFromUpstream } from '../../store/files.js';
import { forgetLanded, landedFingerprints, setLandedFingerprint } from '../../store/sync-checkpoints.js';
import { BodyTooLargeError } from '../remote.js';
import { describeId, fingerprint, optionalString, orDefault, pullList, type PullContext, readTool } from './common.js';

const file = {
  id: z.string(),
  name: z.string(),
  description: orDefault(z.string(), ''),
  mimeType: optionalString,
  sizeBytes: z.number().int().nullish().transform((v) => v ?? null),
  downloadUrl: optionalString,
  createdAt: z.string(),
};

export function pullFiles(ctx: PullContext) {
  const { db, vaultId } = ctx;
  const contents = new Map<string, string | null>();
  const prints = new Map<string, string>();
  return pullList(
    ctx,
    'files',
    file,
    async () => {
      const files = (await readTool<{ files?: unknown }>(ctx, 'list_files', { vault: vaultId })).files;
      if (!Array.isArray(files)) return files;
      // Texts are fetched before the write transaction, which then only writes.
      const landed = landedFingerprints(db, vaultId, 'file');
      await Promise.all(
        files.map(async (f: { id?: string; downloadUrl?: string }) => {
          if (typeof f?.id !== 'string') return;
          prints.set(f.id, fingerprint(f));
          if (landed.get(f.id) === prints.get(f.id)) {
            contents.set(f.id, fileText(db, vaultId, f.id) ?? null);
          } else if (f.downloadUrl) {
            try {
              contents.set(f.id, (await ctx.remote.download(f.downloadUrl)).toString('utf8'));
            } catch (err) {
              // Its text is held in memory and in the database, so a file over the cap lands without it.
              if (!(err instanceof BodyTooLargeError)) throw err;
              ctx.skip('files', `text of ${describeId(f.id)}: ${err.message}`);
            }
          }
        }),
      );
      return files;
    },
    (records) => {
      replaceFilesFromUpstream(db, vaultId, records.map(({ item: f }) => ({ ...f, contentText: contents.get(f.id) ?? null })));
      forgetLanded(db, vaultId, 'file');
      for (const { item: f } of records) setLandedFingerprint(db, vaultId, 'file', f.id, prints.get(f.id)!);
    },
  );
}
