/**
 * Artifacts upstream produced (find_artifact per kind, newest 25 of each: what the API shows), downloaded
 * into the data dir like local ones, so they can be opened and attached here. Only new ones are downloaded.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { sql } from '../../store/db.js';
import { fingerprint, pullList, type PullContext } from './common.js';

const KINDS = ['chart', 'workbook', 'csv', 'report'] as const;
const artifact = {
  artifactId: z.string(),
  kind: z.enum(KINDS),
  title: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  url: z.string(),
  createdAt: z.string(),
};

const folderOf = (vaultId: string, id: string) => join('artifacts', vaultId.replace(/[^A-Za-z0-9._-]/g, '_'), id.replace(/[^A-Za-z0-9._-]/g, '_'));

export function pullArtifacts(ctx: PullContext, dataDir: string) {
  const { db, vaultId } = ctx;
  const paths = new Map<string, string>();
  const prints = new Map<string, string>();
  return pullList(
    ctx,
    'artifacts',
    { ...artifact, id: z.string().optional() },
    async () => {
      const lists = await Promise.all(
        KINDS.map(async (kind) => (await ctx.remote.tool<{ artifacts?: unknown[] }>('find_artifact', { vault: vaultId, kind, limit: 25 })).artifacts ?? []),
      );
      const items = lists.flat() as { artifactId?: string; fileName?: string; url?: string }[];
      const landed = new Map((sql(db, "SELECT id, fingerprint FROM sync_records WHERE vault_id = ? AND resource = 'artifact'").all(vaultId) as { id: string; fingerprint: string }[]).map((r) => [r.id, r.fingerprint]));
      await Promise.all(
        items.map(async (a) => {
          if (typeof a?.artifactId !== 'string' || typeof a.fileName !== 'string' || typeof a.url !== 'string') return;
          const relative = join(folderOf(vaultId, a.artifactId), a.fileName.replace(/[/\\]/g, '_'));
          prints.set(a.artifactId, fingerprint(a));
          if (landed.get(a.artifactId) !== prints.get(a.artifactId)) {
            const bytes = await ctx.remote.download(a.url);
            mkdirSync(dirname(join(dataDir, relative)), { recursive: true });
            writeFileSync(join(dataDir, relative), bytes);
          }
          paths.set(a.artifactId, relative);
        }),
      );
      // Keyed by id like every other record (the wire calls it artifactId).
      return items.map((a) => ({ ...a, id: a.artifactId }));
    },
    (records) => {
      const keep = ctx.localOnly('artifact');
      const incoming = new Set(records.map((r) => r.item.artifactId));
      const gone = (sql(db, 'SELECT id FROM artifacts WHERE vault_id = ?').pluck().all(vaultId) as string[]).filter((id) => !keep.has(id) && !incoming.has(id));
      const remove = sql(db, 'DELETE FROM artifacts WHERE vault_id = ? AND id = ?');
      for (const id of gone) {
        remove.run(vaultId, id);
        rmSync(join(dataDir, folderOf(vaultId, id)), { recursive: true, force: true });
      }
      sql(db, "DELETE FROM sync_records WHERE vault_id = ? AND resource = 'artifact'").run(vaultId);
      const insert = sql(
        db,
        `INSERT OR REPLACE INTO artifacts (vault_id, id, kind, title, file_name, mime_type, size_bytes, path, remote_url, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 'sync', ?)`,
      );
      const landed = sql(db, "INSERT INTO sync_records (vault_id, resource, id, fingerprint) VALUES (?, 'artifact', ?, ?)");
      for (const { item: a } of records) {
        const path = paths.get(a.artifactId);
        if (!path) continue;
        insert.run(vaultId, a.artifactId, a.kind, a.title, a.fileName, a.mimeType, a.sizeBytes, path, a.createdAt);
        landed.run(vaultId, a.artifactId, prints.get(a.artifactId)!);
      }
    },
  );
}
