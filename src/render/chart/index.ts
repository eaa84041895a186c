/** The chart engine behind render_chart: a Vega-Lite v5 spec with inline data in, a PNG in the vault theme out. */
export { ChartSpecError, type ChartLimit } from './errors.js';
export { CHART_LIMITS, CHART_PIXEL_RATIO, type ChartLimits } from './limits.js';
export { renderChart, INLINE_IMAGE_LIMITS, type ChartImage, type ChartOptions, type RenderedChart } from './render.js';
export { CHART_SIZES, type ChartSize } from './layout.js';
export { closeChartRenderer } from './pool.js';
