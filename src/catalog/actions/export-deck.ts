import { z } from 'zod';
import { defineTool } from '../define.js';
import { entityType, isoDatetime, storedFile } from '../shapes.js';
import { fileNameFor, storeLocalArtifact } from '../store-artifact.js';
import { PPTX_MIME_TYPE } from '../../core/vocabulary.js';

const DEFAULT_FOCUS = ['problem', 'opportunity'] as const;

export default defineTool({
  name: 'export_deck',
  title: 'Export the findings as a slide deck',
  description:
    "LOCAL to vault-tools (the hosted service has no such tool, and sync does not push it): writes the vault's findings as a 16:9 PowerPoint deck (.pptx) in the vault theme. Slides: a cover, the headline numbers, the top findings of the `focus` types (default problems and opportunities), each with its description, mentions and strongest verbatim quote (speaker, meeting, date), the open conflicts with both claims side by side, the kind of disagreement and its next step, charts of the focus types by how often they came up (and by site where the vault links them), the next steps (open tasks by milestone, plan steps) and the meetings as sources; speaker notes name the evidence. Returns `url` and `artifactId` (send_email can attach it).",
  access: 'manager',
  sync: { localOnly: true },
  annotations: { readOnlyHint: false, idempotentHint: false },
  input: {
    title: z
      .string()
      .trim()
      .min(1)
      .max(120)
      .optional()
      .describe('the cover title (default "<vault name>: what we found")'),
    focus: z
      .array(entityType)
      .min(1)
      .max(4)
      .refine((types) => new Set(types).size === types.length, 'each type once')
      .optional()
      .describe(`entity types to feature, in the order shown (default ${DEFAULT_FOCUS.join(', ')})`),
    maxItems: z
      .number()
      .int()
      .min(1)
      .max(12)
      .default(6)
      .describe('findings featured, across the focus types: 1 to 12, default 6 (three a slide)'),
  },
  output: storedFile.extend({
    mimeType: z.literal(PPTX_MIME_TYPE),
    slides: z.number().int().describe('slides in the deck'),
    outline: z
      .array(z.string())
      .describe(
        'what each slide is, in order (e.g. "Top problem", "Open conflict", "Chart: Problems by how often they came up")',
      ),
    featured: z.number().int().describe('findings featured with their quote'),
    conflicts: z.number().int().describe('open conflicts shown (at most 4; the rest are counted on the numbers slide)'),
    charts: z.number().int(),
    createdAt: isoDatetime,
  }),
  run: async ({ title, focus, maxItems }, ctx) => {
    // The writer and pptxgenjs load on first use, with the chart engine: none of it is needed to start the server.
    const deck = await import('../../render/deck/index.js');
    const types = focus ?? [...DEFAULT_FOCUS];
    ctx.progress?.(0, 3, 'export_deck: reading the vault');
    const content = deck.deckContent(ctx.db, ctx.vault, { title, focus: types, maxItems, now: ctx.now });
    ctx.progress?.(1, 3, 'export_deck: drawing the charts');
    const charts = await deck.drawDeckCharts(content, ctx.signal);
    ctx.progress?.(2, 3, 'export_deck: writing the slides');
    const day = ctx.now.toISOString().slice(0, 10);
    let written = { slides: 0, outline: [] as string[] };
    const stored = await storeLocalArtifact(
      ctx,
      {
        kind: 'report',
        title: `${content.title} (${day})`,
        fileName: fileNameFor(`${ctx.vault.name} deck ${day}`, 'pptx'),
        mimeType: PPTX_MIME_TYPE,
      },
      async (path) => {
        written = await deck.writeDeck(path, content, charts);
      },
      'export_deck',
    );
    ctx.progress?.(3, 3, 'export_deck: done');
    return {
      artifactId: stored.artifactId,
      url: stored.url,
      kind: stored.kind,
      title: stored.title,
      fileName: stored.fileName,
      mimeType: PPTX_MIME_TYPE,
      sizeBytes: stored.sizeBytes,
      slides: written.slides,
      outline: written.outline,
      featured: content.featured.items.length,
      conflicts: content.featured.conflicts.length,
      charts: charts.length,
      createdAt: stored.createdAt,
    };
  },
});
