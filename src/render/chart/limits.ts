/**
 * Limits of one chart render. Every refusal names its limit and the number it was measured against.
 * Width, height and pixels are measured on the PNG, which is drawn at CHART_PIXEL_RATIO (2×), so a spec
 * `width` of 2,000 becomes 4,000 PNG pixels.
 */
export interface ChartLimits {
  /** Rows of inline data, summed over every `data.values`, `datasets` entry and `sequence` generator. */
  maxRows: number;
  /**
   * Rows one step of the evaluation may produce (a flatten, fold, density, … transform), and values the
   * spec's expressions may generate in all (sequence(), timeSequence()). Checked in the spec where the
   * numbers are written out, and again while Vega evaluates it.
   */
  maxDerivedRows: number;
  /** PNG width in pixels. */
  maxWidth: number;
  /** PNG height in pixels. */
  maxHeight: number;
  /** PNG width × height. */
  maxPixels: number;
  /** Wall-clock time for compiling, laying out and rasterising (the render worker is killed after it). */
  timeoutMs: number;
  /** Size of the spec as JSON, in UTF-8 bytes. */
  maxSpecBytes: number;
}

export const CHART_LIMITS: Readonly<ChartLimits> = Object.freeze({
  maxRows: 50_000,
  maxDerivedRows: 1_000_000,
  maxWidth: 4_000,
  maxHeight: 4_000,
  maxPixels: 12_000_000,
  timeoutMs: 10_000,
  maxSpecBytes: 5 * 1024 * 1024,
});

/**
 * Longest list of values a `sort` may give. Vega-Lite compiles the list into one nested expression
 * (`datum.k === "a" ? 0 : datum.k === "b" ? 1 : …`) whose parser recurses once per value: somewhere
 * between 8,000 and 16,000 values it runs out of stack ("Maximum call stack size exceeded").
 */
export const MAX_SORT_VALUES = 2_000;

/** PNG pixels per spec pixel: charts are drawn at 2× so they stay sharp on high-density screens and in PDFs. */
export const CHART_PIXEL_RATIO = 2;

export { formatCount } from '../../core/numbers.js';
