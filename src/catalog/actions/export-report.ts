import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime, storedFile } from '../shapes.js';
import { fileNameFor, storeLocalArtifact } from '../store-artifact.js';
import { datasetTable } from '../../render/datasets.js';
import { RowProgress } from '../../render/progress.js';

const FORMATS = {
  xlsx: { kind: 'workbook', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  csv: { kind: 'csv', mimeType: 'text/csv' },
  pdf: { kind: 'report', mimeType: 'application/pdf' },
} as const;

export default defineTool({
  name: 'export_report',
  title: 'Export a dataset as a file',
  description:
    'Exports the WHOLE findings or conflicts dataset of the vault as a stored file: `xlsx` (default; styled, frozen header, filters), `csv` (UTF-8, spreadsheet-safe) or `pdf` (a paginated report; the only tool that produces a PDF). Returns `url` and `artifactId` (send_email can attach it).',
  access: 'manager',
  // A file for the person here, made from data upstream already has: nothing to replay there (no outbox entry).
  sync: { staysLocal: true },
  annotations: { readOnlyHint: false, idempotentHint: false },
  input: {
    dataset: z.enum(['findings', 'conflicts']).default('findings'),
    format: z.enum(['xlsx', 'csv', 'pdf']).default('xlsx'),
  },
  output: storedFile.extend({
    rows: z.number().int(),
    createdAt: isoDatetime,
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        'what the file could not show as asked: characters no font has (drawn as "\ufffd"), a sheet name made valid for Excel',
      ),
  }),
  run: async ({ dataset, format }, ctx) => {
    // The writers load on first use: exceljs and pdf-lib stay out of server start-up.
    const writers = await import('../../render/export/index.js');
    // The PDF is read as a report (a summary, findings grouped by type, no ids); the spreadsheets stay flat tables.
    const table = datasetTable(ctx.db, ctx.vault, dataset, ctx.now, { printed: format === 'pdf' });
    if (format === 'pdf' && dataset === 'findings') {
      // The findings PDF is the deliverable: it opens on an executive summary (a few rows read; the detail streams).
      const featured = writers.featureFindings(ctx.db, ctx.vault);
      const chart = writers.summaryChart(featured, ctx.signal); // renders while the writer loads its fonts
      chart.catch(() => {}); // awaited by the writer; a cancel before it gets there must not go unhandled
      table.summary = { featured, chart };
    }
    // Counts rows as the writer pulls them: progress every page of rows, and a cancel stops the export there.
    const progress = new RowProgress(table.total, {
      signal: ctx.signal,
      progress: ctx.progress,
      what: 'export_report',
    });
    progress.start();
    const tracked = { ...table, rows: progress.track(table.rows) };
    const { kind, mimeType } = FORMATS[format];
    const day = ctx.now.toISOString().slice(0, 10);
    let rows = 0;
    let warnings: string[] = [];
    const stored = await storeLocalArtifact(
      ctx,
      {
        kind,
        title: `${table.title} (${day})`,
        fileName: fileNameFor(`${ctx.vault.name} ${dataset} ${day}`, format),
        mimeType,
      },
      async (path) => {
        const write = format === 'xlsx' ? writers.writeXlsx : format === 'csv' ? writers.writeCsv : writers.writePdf;
        const written: { rows: number; warnings?: string[] } = await write(path, tracked);
        ({ rows, warnings = [] } = written);
      },
      'export_report',
    );
    return { ...stored, rows, ...(warnings.length ? { warnings } : {}) };
  },
});
