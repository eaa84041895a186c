/**
 * Public files (list_files), with their text fetched from each file's download URL. Only files whose listing
 * changed are downloaded again, one at a time, each text landing before the next is asked, and no more than
 * `maxFileBytes` of them per pull: a remote listing many large files can neither fill memory nor the store.
 * Internal files are never published, so a synced store has none.
 */
import { z } from 'zod';
import { writeTransaction } from '../../store/db.js';
import { fileText, replaceFilesFromUpstream, setFileText } from '../../store/files.js';
import { forgetLanded, landedFingerprints, setLandedFingerprint } from '../../store/sync-checkpoints.js';
import { LIMIT_SETTINGS } from '../limits.js';
import { BodyTooLargeError } from '../remote.js';
import {
  describeId,
  fingerprint,
  optionalString,
  orDefault,
  pullList,
  type PullContext,
  readTool,
  wireTime,
} from './common.js';
import { formatCount } from '../../core/numbers.js';

const file = {
  id: z.string(),
  name: z.string(),
  description: orDefault(z.string(), ''),
  mimeType: optionalString,
  sizeBytes: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? null),
  downloadUrl: optionalString,
  createdAt: wireTime,
};

export async function pullFiles(ctx: PullContext) {
  const { db, vaultId } = ctx;
  const prints = new Map<string, string>();
  const links = new Map<string, string | null>();
  const result = await pullList(
    ctx,
    'files',
    file,
    async () => {
      const files = (await readTool<{ files?: unknown }>(ctx, 'list_files', { vault: vaultId })).files;
      if (!Array.isArray(files)) return files;
      for (const f of files as { id?: unknown; downloadUrl?: unknown }[]) {
        if (typeof f?.id !== 'string') continue; // the parse reports it
        prints.set(f.id, fingerprint(f));
        links.set(f.id, typeof f.downloadUrl === 'string' ? f.downloadUrl : null);
      }
      return files;
    },
    (records) => {
      const landed = landedFingerprints(db, vaultId, 'file');
      const unchanged = new Set(
        records.filter(({ item: f }) => landed.get(f.id) === prints.get(f.id)).map(({ item: f }) => f.id),
      );
      replaceFilesFromUpstream(
        db,
        vaultId,
        records.map((r) => r.item),
        unchanged,
      );
      forgetLanded(db, vaultId, 'file');
      for (const id of unchanged) setLandedFingerprint(db, vaultId, 'file', id, prints.get(id)!);
    },
  );
  // Whether or not the list changed: a text a budget left out last time is asked for now.
  const landed = landedFingerprints(db, vaultId, 'file');
  const waiting = [...links].filter(
    ([id]) => landed.get(id) !== prints.get(id) && fileText(db, vaultId, id) !== undefined,
  );
  await pullTexts(
    ctx,
    waiting.map(([id, downloadUrl]) => ({ id, downloadUrl })),
    prints,
  );
  return result;
}

/** The texts of the files whose listing changed, one at a time, within the pull's byte budget. */
async function pullTexts(
  ctx: PullContext,
  files: readonly { id: string; downloadUrl: string | null }[],
  prints: Map<string, string>,
): Promise<void> {
  const { db, vaultId } = ctx;
  const budget = ctx.limits.maxFileBytes;
  let used = 0;
  for (const f of files) {
    const landed = (text?: string) =>
      writeTransaction(db, () => {
        if (text !== undefined) setFileText(db, vaultId, f.id, text);
        setLandedFingerprint(db, vaultId, 'file', f.id, prints.get(f.id)!);
      });
    if (!f.downloadUrl) {
      landed();
      continue;
    }
    if (used >= budget) {
      // Not marked landed: the next pull asks for it again, with a budget of its own.
      ctx.skip(
        'files',
        `text of ${describeId(f.id)}: this pull already took ${formatCount(used)} bytes of file text, its budget is ${formatCount(budget)} (${LIMIT_SETTINGS.maxFileBytes.env}); the file is listed without its text until a later sync`,
      );
      continue;
    }
    try {
      const bytes = await ctx.remote.download(f.downloadUrl);
      used += bytes.length;
      landed(bytes.toString('utf8'));
    } catch (err) {
      // Its text is held in memory and in the database, so a file over the cap lands without it.
      if (!(err instanceof BodyTooLargeError)) throw err;
      ctx.skip('files', `text of ${describeId(f.id)}: ${err.message}`);
      landed();
    }
  }
}
