/**
 * Artifacts upstream produced (find_artifact per kind, newest 25 of each: what the API shows), downloaded
 * into the data dir like local ones, so they can be opened and attached here. Only new ones are downloaded.
 *
 * Every name in a path here comes from the remote, so each becomes one safe segment
 * (`artifacts/<vault>/<artifact>/<file>`) and the result is checked to stay inside `artifacts/`; a record
 * that cannot be placed is skipped with its reason. A removed artifact takes only its own folder with it.
 */
import { mkdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { resolveInside, safeSegment } from '../../safe-path.js';
import { artifactPaths, artifactsMadeHereOnly, deleteArtifact, upsertArtifactFromUpstream } from '../../store/files.js';
import { forgetLanded, landedFingerprints, setLandedFingerprint } from '../../store/sync-checkpoints.js';
import { BodyTooLargeError } from '../remote.js';
import { isLocalOnlyArtifact } from '../../core/vocabulary.js';
import { describeId, fingerprint, pullList, type PullContext, readTool, wireTime } from './common.js';

const KINDS = ['chart', 'workbook', 'csv', 'report'] as const;
const artifact = {
  artifactId: z.string(),
  kind: z.enum(KINDS),
  title: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  url: z.string(),
  createdAt: wireTime,
};

/** `<data dir>/artifacts/<vault>/<artifact>/<file>`, each part one safe segment, checked to stay in `artifacts/`. */
function artifactFile(dataDir: string, vaultId: string, artifactId: string, fileName: string): string {
  return resolveInside(
    join(dataDir, 'artifacts'),
    safeSegment(vaultId),
    safeSegment(artifactId),
    safeSegment(fileName),
  );
}

/**
 * The folder an artifact's stored file is in, when that is an artifact's own folder
 * (`<data dir>/artifacts/<vault>/<artifact>`), which is all a removal may delete; otherwise undefined.
 */
function ownFolder(dataDir: string, storedPath: string): string | undefined {
  const folder = resolve(dataDir, dirname(storedPath));
  return dirname(dirname(folder)) === resolve(dataDir, 'artifacts') ? folder : undefined;
}

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // not empty (another download of the same id), or already gone
  }
}

export async function pullArtifacts(ctx: PullContext, dataDir: string) {
  const { db, vaultId } = ctx;
  const paths = new Map<string, string>();
  const prints = new Map<string, string>();
  const removed: string[] = [];
  const result = await pullList(
    ctx,
    'artifacts',
    { ...artifact, id: z.string().optional() },
    async () => {
      const lists = await Promise.all(
        KINDS.map(
          async (kind) =>
            (await readTool<{ artifacts?: unknown }>(ctx, 'find_artifact', { vault: vaultId, kind, limit: 25 }))
              .artifacts,
        ),
      );
      // One kind answered without its list: the whole list is skipped (taken as empty, it would remove that kind).
      const malformed = lists.findIndex((l) => !Array.isArray(l));
      if (malformed >= 0) return lists[malformed];
      const items = (lists as unknown[][]).flat() as { artifactId?: string; fileName?: string; url?: string }[];
      const landed = landedFingerprints(db, vaultId, 'artifact');
      await Promise.all(
        items.map(async (a) => {
          if (typeof a?.artifactId !== 'string' || typeof a.fileName !== 'string' || typeof a.url !== 'string') return; // the parse reports it
          const skip = (why: string) => ctx.skip('artifacts', `record ${describeId(a.artifactId)}: ${why}`);
          let file: string;
          try {
            file = artifactFile(dataDir, vaultId, a.artifactId, a.fileName);
          } catch (err) {
            return skip((err as Error).message);
          }
          prints.set(a.artifactId, fingerprint(a));
          if (landed.get(a.artifactId) !== prints.get(a.artifactId)) {
            const created = mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
            try {
              await ctx.remote.downloadTo(a.url, file);
            } catch (err) {
              if (created) removeIfEmpty(dirname(file));
              if (err instanceof BodyTooLargeError) return skip(err.message);
              throw err;
            }
          }
          paths.set(a.artifactId, relative(resolve(dataDir), file));
        }),
      );
      // Keyed by id like every other record (the wire calls it artifactId).
      return items.map((a) => ({ ...a, id: a.artifactId }));
    },
    (records) => {
      const keep = new Set([...ctx.localOnly('artifact'), ...artifactsMadeHereOnly(db, vaultId)]);
      const incoming = new Set(records.map((r) => r.item.artifactId));
      // Kept: what local writes made and sync has not pushed yet, and files only this machine keeps (decks, exports).
      for (const { id, path } of artifactPaths(db, vaultId).filter(
        (r) => !keep.has(r.id) && !incoming.has(r.id) && !isLocalOnlyArtifact(r.mimeType),
      )) {
        deleteArtifact(db, vaultId, id);
        if (path === null) continue;
        const folder = ownFolder(dataDir, path);
        if (folder) removed.push(folder);
        else
          ctx.skip(
            'artifacts',
            `record ${describeId(id)}: its file ${JSON.stringify(path)} is not in an artifact's own folder, so it is left in place`,
          );
      }
      forgetLanded(db, vaultId, 'artifact');
      for (const { item: a } of records) {
        const path = paths.get(a.artifactId);
        if (!path) continue;
        upsertArtifactFromUpstream(db, vaultId, { ...a, id: a.artifactId, path });
        setLandedFingerprint(db, vaultId, 'artifact', a.artifactId, prints.get(a.artifactId)!);
      }
    },
  );
  // Files go only once the rows are gone for good (the transaction above committed).
  for (const folder of removed) rmSync(folder, { recursive: true, force: true });
  return result;
}
