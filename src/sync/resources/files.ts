/**
 * Public files (list_files), with their text fetched from each file's download URL. Only files whose listing
 * changed are downloaded again. Internal files are never published, so a synced store has none.
 */
import { z } from 'zod';
import { sql } from '../../store/db.js';
import { BodyTooLargeError } from '../remote.js';
import { clearExcept, describeId, fingerprint, optionalString, orDefault, pullList, type PullContext, readTool } from './common.js';

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
      const landed = new Map((sql(db, "SELECT id, fingerprint FROM sync_records WHERE vault_id = ? AND resource = 'file'").all(vaultId) as { id: string; fingerprint: string }[]).map((r) => [r.id, r.fingerprint]));
      await Promise.all(
        files.map(async (f: { id?: string; downloadUrl?: string }) => {
          if (typeof f?.id !== 'string') return;
          prints.set(f.id, fingerprint(f));
          if (landed.get(f.id) === prints.get(f.id)) {
            contents.set(f.id, sql(db, 'SELECT content_text FROM files WHERE vault_id = ? AND id = ?').pluck().get(vaultId, f.id) as string | null);
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
      clearExcept(db, 'files', vaultId, new Set());
      sql(db, "DELETE FROM sync_records WHERE vault_id = ? AND resource = 'file'").run(vaultId);
      const insert = sql(
        db,
        `INSERT INTO files (vault_id, id, name, description, visibility, mime_type, size_bytes, content_text, created_at)
         VALUES (?, ?, ?, ?, 'public', ?, ?, ?, ?)`,
      );
      const landed = sql(db, "INSERT INTO sync_records (vault_id, resource, id, fingerprint) VALUES (?, 'file', ?, ?)");
      for (const { item: f } of records) {
        insert.run(vaultId, f.id, f.name, f.description, f.mimeType, f.sizeBytes, contents.get(f.id) ?? null, f.createdAt);
        landed.run(vaultId, f.id, prints.get(f.id)!);
      }
    },
  );
}
