import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime } from '../shapes.js';
import { fileNameFor, storeArtifact } from '../store-artifact.js';
import { invalidArgument } from '../../core/errors.js';

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * One string, as the SDKs send it; an array of strings (what this tool took first) is accepted too and stands for
 * its lines. Either way the call keeps the one-string form, so the outbox pushes upstream what the hosted service takes.
 */
const sourcesArg = z
  .union([z.string().min(1).max(20_000), z.array(z.string().min(1).max(1000)).max(100)])
  .transform((v) => (typeof v === 'string' ? v : v.join('\n')))
  .describe(
    'where the numbers come from, one string as the SDKs send it (an array of strings is accepted too); each line goes on the provenance sheet',
  );

export default defineTool({
  name: 'export_workbook',
  title: 'Export a multi-sheet workbook',
  description:
    'Builds a styled .xlsx from the sheets you give, one tab each: `{name, columns:[{header, key, numFmt?}], rows:[{<key>: value}]}` (formatted header, frozen header row, filters), plus a Provenance sheet (title, sources, vault, time, who). Returns `url` and `artifactId`.',
  access: 'manager',
  sync: { creates: { kind: 'artifact', field: 'artifactId' } },
  annotations: { readOnlyHint: false, idempotentHint: false },
  input: {
    title: z.string().min(1).max(200),
    sheets: z
      .array(
        z.strictObject({
          name: z
            .string()
            .describe(
              'tab name: at most 31 characters, none of : \\ / ? * [ ] (a longer name is cut and those characters replaced, with a warning)',
            ),
          columns: z
            .array(
              z.strictObject({
                header: z.string().min(1).max(200),
                key: z.string().min(1).max(100),
                numFmt: z.string().max(100).optional(),
              }),
            )
            .min(1)
            .max(200),
          rows: z.array(z.record(z.string(), cell)).max(100_000),
        }),
      )
      .min(1)
      .max(100),
    sources: sourcesArg.optional(),
  },
  output: z.object({
    artifactId: z.string(),
    url: z.string(),
    title: z.string(),
    fileName: z.string(),
    mimeType: z.string(),
    sizeBytes: z.number().int(),
    sheets: z.number().int(),
    rows: z.number().int(),
    createdAt: isoDatetime,
    outboxSeq: z.number().int(),
    warnings: z
      .array(z.string())
      .optional()
      .describe('sheet names made valid for Excel, with the place they were given'),
  }),
  run: async ({ title, sheets, sources }, ctx) => {
    const { validateWorkbook, writeWorkbook, WorkbookError } = await import('../../render/export/index.js');
    try {
      validateWorkbook({ sheets });
    } catch (err) {
      if (err instanceof WorkbookError) throw invalidArgument(err.path, err.message.replace(`${err.path}: `, ''));
      throw err;
    }
    let totals = { sheets: 0, rows: 0, warnings: [] as string[] };
    return storeArtifact(
      ctx,
      {
        kind: 'workbook',
        title,
        fileName: fileNameFor(title, 'xlsx'),
        mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
      async (path) => {
        totals = await writeWorkbook(
          path,
          {
            title,
            sheets,
            sources: sources?.split(/\r?\n/).filter((line) => line.trim()),
            provenance: { vault: ctx.vault.name, generatedAt: ctx.now, by: ctx.principal.name },
          },
          { signal: ctx.signal, progress: ctx.progress, what: 'export_workbook' },
        );
      },
      'export_workbook',
      (stored) => ({
        artifactId: stored.artifactId,
        url: stored.url,
        title,
        fileName: stored.fileName,
        mimeType: stored.mimeType,
        sizeBytes: stored.sizeBytes,
        sheets: totals.sheets,
        rows: totals.rows,
        createdAt: stored.createdAt,
        outboxSeq: stored.outboxSeq,
        ...(totals.warnings.length ? { warnings: totals.warnings } : {}),
      }),
    );
  },
});
