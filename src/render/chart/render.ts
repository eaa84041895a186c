/**
 * renderChart: check the spec (refusals, limits), lint it, apply the vault theme, the title and the canvas,
 * and render it in the worker (Vega-Lite → Vega → SVG → PNG with resvg and the chart font).
 */
import { ChartSpecError } from './errors.js';
import { lintChartSpec } from './lint.js';
import { CHART_LIMITS, CHART_PIXEL_RATIO, type ChartLimits } from './limits.js';
import { readPngSize, withDensity } from './png.js';
import { runJob } from './pool.js';
import { prepareChartSpec, type ChartSize } from './theme.js';
import { checkChartSpec } from './validate.js';

/** Largest image shown inline (an MCP image block): longer side in px, and bytes. A larger chart gets a smaller rendition for it. */
export const INLINE_IMAGE_LIMITS = { maxSide: 1600, maxBytes: 1024 * 1024 } as const;
/** Pixels per inch of a chart drawn at 1× (one spec unit is one point). */
const POINTS_PER_INCH = 72;

export interface ChartImage {
  png: Buffer;
  width: number;
  height: number;
}

export interface RenderedChart extends ChartImage {
  /** PNG pixels (the chart is drawn at CHART_PIXEL_RATIO, 2×, and marked 144 dpi). */
  width: number;
  height: number;
  /** Lint advice, layout notes and renderer warnings, as sentences. */
  warnings: string[];
  /** The image to show inline: the PNG itself, or a smaller rendition when it is over INLINE_IMAGE_LIMITS. */
  inline: ChartImage;
}

export interface ChartOptions {
  title: string;
  /** The canvas: a 16:9 slide (default), a square or a 3:4 portrait. */
  size?: ChartSize;
  signal?: AbortSignal;
}

/**
 * Renders a Vega-Lite v5 spec with inline data to a PNG in the vault theme, with `title` as the chart title.
 * Throws ChartSpecError when the spec is refused (colours, external data, limits, empty data, invalid Vega-Lite).
 * Identical input gives identical bytes.
 */
export async function renderChart(spec: unknown, options: ChartOptions): Promise<RenderedChart> {
  return renderChartWithLimits(spec, options, CHART_LIMITS);
}

/** renderChart with other limits (tests use it for a short time limit). */
export async function renderChartWithLimits(
  spec: unknown,
  options: ChartOptions,
  limits: ChartLimits,
): Promise<RenderedChart> {
  const checked = checkChartSpec(spec, limits);
  const lint = lintChartSpec(checked);
  const prepared = prepareChartSpec(
    checked,
    typeof options.title === 'string' ? options.title : String(options.title ?? ''),
    options.size ?? 'slide',
    limits,
  );
  const result = await runJob(
    {
      spec: prepared.spec,
      scale: CHART_PIXEL_RATIO,
      maxWidth: limits.maxWidth,
      maxHeight: limits.maxHeight,
      maxPixels: limits.maxPixels,
      maxDerivedRows: limits.maxDerivedRows,
      preview: INLINE_IMAGE_LIMITS,
    },
    limits.timeoutMs,
    options.signal, // a cancelled call stops the render (see runJob)
  );
  const png = withDensity(
    Buffer.from(result.png.buffer, result.png.byteOffset, result.png.byteLength),
    POINTS_PER_INCH * CHART_PIXEL_RATIO,
  );
  const { width, height } = readPngSize(png);
  if (width > limits.maxWidth || height > limits.maxHeight || width * height > limits.maxPixels) {
    throw new ChartSpecError(
      '',
      `The image came out at ${width} × ${height} px, beyond the limits.`,
      width > limits.maxWidth ? 'width' : height > limits.maxHeight ? 'height' : 'pixels',
    );
  }
  const preview = result.preview;
  const inline = preview
    ? {
        png: withDensity(
          Buffer.from(preview.png.buffer, preview.png.byteOffset, preview.png.byteLength),
          POINTS_PER_INCH * preview.scale,
        ),
        width: preview.width,
        height: preview.height,
      }
    : { png, width, height };
  return { png, width, height, inline, warnings: [...prepared.notes, ...lint, ...result.warnings] };
}
