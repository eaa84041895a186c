import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime } from '../shapes.js';
import { fileNameFor, storeArtifact } from '../store-artifact.js';
import { invalidArgument } from '../../core/errors.js';
// Constants only: the chart engine itself loads on the first call.
import { CHART_SIZES, type ChartSize } from '../../render/chart/style.js';
import { CHART_PIXEL_RATIO } from '../../render/chart/limits.js';

export default defineTool({
  name: 'render_chart',
  view: 'chart',
  title: 'Render a chart',
  description:
    'Renders a complete Vega-Lite v5 spec with INLINE data to a PNG and stores it as an artifact; `title` is shown on the image. The chart fills a slide-sized canvas (`size`; leave width and height out of the spec). Do not set colours (the vault theme is applied). For month buckets use `timeUnit: "yearmonth"` (otherwise the axis is labelled by day). Mark choice: a time series is a line, a ranking is a sorted horizontal bar, part-of-whole is an arc. Returns `url`, `artifactId`, size, and warnings (lint advice and what the layout changed); over MCP also the image itself and a resource_link to the file.',
  access: 'manager',
  sync: { creates: { kind: 'artifact', field: 'artifactId' } },
  annotations: { readOnlyHint: false, idempotentHint: false },
  input: {
    title: z.string().min(1).max(200).describe('shown on the image'),
    vega_lite_spec: z
      .record(z.string(), z.unknown())
      .describe('a complete Vega-Lite v5 spec with inline data (data.values); no colours, no URLs'),
    size: z
      .enum(Object.keys(CHART_SIZES) as [ChartSize, ...ChartSize[]])
      .optional() // no default: a call that leaves it out stays the hosted wire's call (sync pushes the arguments as given)
      .describe(
        `the canvas (default slide): ${Object.entries(CHART_SIZES)
          .map(([name, { width, height }]) => `${name} ${width * CHART_PIXEL_RATIO} × ${height * CHART_PIXEL_RATIO} px`)
          .join(', ')}; drawn at ${CHART_PIXEL_RATIO}× and marked ${72 * CHART_PIXEL_RATIO} dpi`,
      ),
  },
  output: z.object({
    artifactId: z.string(),
    url: z.string(),
    title: z.string(),
    fileName: z.string(),
    mimeType: z.literal('image/png'),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int(),
    warnings: z.array(z.string()).describe("the spec's own advice, not errors"),
    createdAt: isoDatetime,
    outboxSeq: z.number().int(),
  }),
  run: async ({ title, vega_lite_spec, size }, ctx) => {
    const { renderChart, ChartSpecError } = await import('../../render/chart/index.js');
    let chart;
    try {
      chart = await renderChart(vega_lite_spec, { title, size, signal: ctx.signal });
    } catch (err) {
      if (err instanceof ChartSpecError) {
        const message =
          err.path && err.message.startsWith(`${err.path}: `) ? err.message.slice(err.path.length + 2) : err.message;
        throw invalidArgument(err.path ? `vega_lite_spec.${err.path}` : 'vega_lite_spec', message);
      }
      throw err;
    }
    const png = chart.png;
    const image = { mimeType: 'image/png', data: chart.inline.png };
    return storeArtifact(
      ctx,
      { kind: 'chart', title, fileName: fileNameFor(title, 'png'), mimeType: 'image/png', image },
      async (path) => {
        const { writeFile } = await import('node:fs/promises');
        await writeFile(path, png);
      },
      'render_chart',
      (stored) => ({
        artifactId: stored.artifactId,
        url: stored.url,
        title,
        fileName: stored.fileName,
        mimeType: 'image/png' as const,
        width: chart.width,
        height: chart.height,
        bytes: stored.sizeBytes,
        warnings: chart.warnings,
        createdAt: stored.createdAt,
        outboxSeq: stored.outboxSeq,
      }),
    );
  },
});
