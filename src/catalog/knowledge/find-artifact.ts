import { existsSync } from 'node:fs';
import { z } from 'zod';
import { defineTool } from '../define.js';
import { artifactKind, isoDatetime, limitArg } from '../shapes.js';
import { findArtifacts } from '../../store/files.js';
import { tokens } from '../../store/text.js';
import { artifactAbsolutePath } from '../../render/artifacts.js';

export default defineTool({
  name: 'find_artifact',
  title: 'Find artifacts',
  description:
    'Files this service produced (charts, workbooks, csv exports, reports), newest first. `query`: words of the title (omit for the most recent); `kind`: workbook, csv, chart or report. Gives the `artifactId` that send_email attaches.',
  input: {
    query: z.string().max(200).optional().describe('title words; omit for the most recent'),
    kind: artifactKind.optional(),
    limit: limitArg(1, 25, 10),
  },
  output: z.object({
    artifacts: z.array(
      z.object({
        artifactId: z.string(),
        kind: artifactKind,
        title: z.string(),
        fileName: z.string(),
        mimeType: z.string(),
        sizeBytes: z.number().int(),
        url: z.string(),
        createdAt: isoDatetime,
        fileMissing: z
          .boolean()
          .optional()
          .describe(
            'true when its file is not in this data dir (a store restored from a backup, which holds no files): make it again',
          ),
      }),
    ),
  }),
  run: ({ query, kind, limit }, { db, vault, links, dataDir }) => ({
    artifacts: findArtifacts(db, vault.id, { words: tokens(query ?? ''), kind, limit }).map((a) => ({
      artifactId: a.id,
      kind: a.kind,
      title: a.title,
      fileName: a.file_name,
      mimeType: a.mime_type,
      sizeBytes: a.size_bytes,
      url: a.remote_url ?? links.artifact(vault.id, a.id, artifactAbsolutePath(dataDir, a.path ?? '')),
      createdAt: a.created_at,
      ...(!a.remote_url && a.path && !existsSync(artifactAbsolutePath(dataDir, a.path)) ? { fileMissing: true } : {}),
    })),
  }),
});
