/**
 * renderChart: check the spec (refusals, limits), lint it, apply the vault theme and the title, and render
 * it in the worker (Vega-Lite → Vega → SVG → PNG with resvg and DejaVu Sans).
 */
import { ChartSpecError } from './errors.js';
import { lintChartSpec } from './lint.js';
import { CHART_LIMITS, CHART_PIXEL_RATIO, type ChartLimits } from './limits.js';
import { readPngSize } from './png.js';
import { runJob } from './pool.js';
import { prepareChartSpec } from './theme.js';
import { checkChartSpec } from './validate.js';

export interface RenderedChart {
  png: Buffer;
  /** PNG pixels (the chart is drawn at CHART_PIXEL_RATIO, 2×). */
  width: number;
  height: number;
  /** Lint advice and renderer warnings, as sentences. */
  warnings: string[];
}

/**
 * Renders a Vega-Lite v5 spec with inline data to a PNG in the vault theme, with `title` as the chart title.
 * Throws ChartSpecError when the spec is refused (colours, external data, limits, invalid Vega-Lite).
 * Identical input gives identical bytes.
 */
export async function renderChart(spec: unknown, options: { title: string; signal?: AbortSignal }): Promise<RenderedChart> {
  return renderChartWithLimits(spec, options, CHART_LIMITS);
}

/** renderChart with other limits (tests use it for a short time limit). */
export async function renderChartWithLimits(spec: unknown, options: { title: string; signal?: AbortSignal }, limits: ChartLimits): Promise<RenderedChart> {
  const checked = checkChartSpec(spec, limits);
  const lint = lintChartSpec(checked);
  const prepared = prepareChartSpec(checked, typeof options.title === 'string' ? options.title : String(options.title ?? ''));
  const result = await runJob(
    { spec: prepared.spec, scale: CHART_PIXEL_RATIO, maxWidth: limits.maxWidth, maxHeight: limits.maxHeight, maxPixels: limits.maxPixels, maxDerivedRows: limits.maxDerivedRows },
    limits.timeoutMs,
    options.signal, // a cancelled call stops the render (see runJob)
  );
  const png = Buffer.from(result.png.buffer, result.png.byteOffset, result.png.byteLength);
  const { width, height } = readPngSize(png);
  if (width > limits.maxWidth || height > limits.maxHeight || width * height > limits.maxPixels) {
    throw new ChartSpecError('', `The image came out at ${width} × ${height} px, beyond the limits.`, width > limits.maxWidth ? 'width' : height > limits.maxHeight ? 'height' : 'pixels');
  }
  return { png, width, height, warnings: [...prepared.notes, ...lint, ...result.warnings] };
}
