/**
 * The sizes and colours of the vault theme, in one place: the theme (a Vega-Lite config) is written with
 * them, and the layout uses the same numbers to decide how labels wrap and what fits on the canvas.
 * Sizes are spec units, which are points on the page: charts are drawn at 2× and marked 144 dpi.
 */

/** Categorical palette, in the order series receive them: twelve hues chosen to stay apart in print and for the common colour-vision deficiencies. */
export const VAULT_PALETTE = [
  '#2f6fdb', // blue
  '#f08c2e', // orange
  '#22a37a', // green
  '#d9475a', // red
  '#8a5cd1', // violet
  '#1fa5c4', // cyan
  '#e0b12b', // gold
  '#c25a9e', // plum
  '#7a8b3c', // olive
  '#8590a0', // slate
  '#8f5b34', // brown
  '#2b3f73', // navy
] as const;

export const INK = '#1f2937'; // titles
export const TEXT = '#4b5563'; // labels
export const MUTED = '#6b7280'; // subtitles
export const GRID = '#e5e7eb';
export const RULE = '#9ca3af'; // axis domains, ticks and the zero line

export const PADDING = 16;
export const TITLE = { size: 20, lineHeight: 26, offset: 14, subtitleSize: 14, subtitleLineHeight: 18 } as const;
/** Axis and legend labels. */
export const LABEL = { size: 12, lineHeight: 15, padding: 6 } as const;
export const AXIS_TITLE = { size: 12, padding: 10 } as const;
export const LEGEND = { symbol: 16, offset: 18, labelLimit: 200 } as const;
/** Ticks on a value axis (the theme's `tickCount`), and the count its domain is made nice for. */
export const VALUE_TICKS = 6;
/** Share of its band a bar takes. */
export const BAR_BAND_SHARE = 0.75;
/** Width of a category in views that are not fitted to the canvas (facets, concatenations, repeats). */
export const DISCRETE_STEP = 36;

/**
 * Canvas sizes in spec units, which are points: drawn at 2× and marked 144 dpi, a slide chart is a
 * 1600 × 900 px PNG that pastes at 11.1 × 6.25 in, the width of a 16:9 slide's content area, with its
 * labels at 12 pt. Portrait fits the text width of an A4 or Letter page.
 */
export const CHART_SIZES = {
  slide: { width: 800, height: 450 },
  square: { width: 450, height: 450 },
  portrait: { width: 450, height: 600 },
} as const;
export type ChartSize = keyof typeof CHART_SIZES;
