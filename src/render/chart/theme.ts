/**
 * The vault theme (a Vega-Lite `config`) and the rewrite that turns a checked spec into the spec we render:
 * theme applied, title replaced, data checked, categories in natural order, laid out on the canvas, dates in UTC.
 */
import { FONT_FAMILY } from '../font.js';
import { humanizeAxes } from './axes.js';
import { refuseEmptyData, showLonePoints } from './degenerate.js';
import { isObject, type JsonObject } from './json.js';
import { layoutChart } from './layout.js';
import { CHART_LIMITS, CHART_PIXEL_RATIO, type ChartLimits } from './limits.js';
import { orderCategoriesNaturally } from './order.js';
import { labelPieShares } from './pie.js';
import { labelRankingBars } from './value-labels.js';
import { toUtc } from './utc.js';
import {
  AXIS_TITLE,
  BAR_BAND_SHARE,
  CHART_SIZES,
  DISCRETE_STEP,
  GRID,
  INK,
  LABEL,
  LEGEND,
  MUTED,
  PADDING,
  RULE,
  TEXT,
  TITLE,
  VALUE_TICKS,
  VAULT_PALETTE,
  type ChartSize,
} from './style.js';
import { measureText, wrapText } from './text.js';

export { VAULT_PALETTE } from './style.js';
export type { ChartSize } from './style.js';

/** Vega-Lite config of every chart: white background, slide-sized type, the chart font everywhere. */
export const VAULT_THEME: JsonObject = {
  background: '#ffffff',
  padding: PADDING,
  font: FONT_FAMILY,
  // Sizes of views that are not fitted to the canvas (facets, concatenations, repeats).
  view: {
    continuousWidth: 400,
    continuousHeight: 240,
    discreteWidth: { step: DISCRETE_STEP },
    discreteHeight: { step: 24 },
    stroke: null,
  },
  title: {
    font: FONT_FAMILY,
    fontSize: TITLE.size,
    fontWeight: 'bold',
    lineHeight: TITLE.lineHeight,
    color: INK,
    anchor: 'start',
    frame: 'bounds',
    offset: TITLE.offset,
    subtitleFont: FONT_FAMILY,
    subtitleFontSize: TITLE.subtitleSize,
    subtitleColor: MUTED,
    subtitleLineHeight: TITLE.subtitleLineHeight,
    subtitlePadding: 4,
  },
  axis: {
    labelFont: FONT_FAMILY,
    labelFontSize: LABEL.size,
    labelLineHeight: LABEL.lineHeight,
    labelColor: TEXT,
    labelPadding: 4,
    titleFont: FONT_FAMILY,
    titleFontSize: AXIS_TITLE.size,
    titleFontWeight: 'bold',
    titleColor: INK,
    titlePadding: AXIS_TITLE.padding,
    gridColor: GRID,
    gridWidth: 1,
    domainColor: RULE,
    tickColor: RULE,
    tickSize: 4,
  },
  // The zero line stands out from the grid, so negative values read as below it.
  axisQuantitative: {
    grid: true,
    domain: false,
    ticks: false,
    tickCount: VALUE_TICKS,
    gridColor: { condition: { test: 'datum.value === 0', value: RULE }, value: GRID },
    gridWidth: { condition: { test: 'datum.value === 0', value: 1.5 }, value: 1 },
  },
  // Bands need no axis line: the zero line of the values is the baseline of the bars. Their labels may be wider
  // than Vega's default room for them (maxExtent 200), which put the axis title on top of them.
  axisBand: { grid: false, ticks: false, domain: false, labelPadding: LABEL.padding, maxExtent: 10_000 },
  axisTemporal: { grid: false },
  legend: {
    labelFont: FONT_FAMILY,
    labelFontSize: LABEL.size,
    labelLineHeight: LABEL.lineHeight,
    labelColor: TEXT,
    labelLimit: LEGEND.labelLimit,
    titleFont: FONT_FAMILY,
    titleFontSize: LABEL.size,
    titleFontWeight: 'bold',
    titleColor: INK,
    titlePadding: 6,
    rowPadding: 6,
    offset: LEGEND.offset,
    symbolType: 'circle',
    symbolSize: 100,
    symbolStrokeWidth: 0,
    gradientLength: 200,
    gradientThickness: 12,
    gradientStrokeWidth: 0,
  },
  header: {
    labelFont: FONT_FAMILY,
    labelFontSize: 13,
    labelColor: INK,
    titleFont: FONT_FAMILY,
    titleFontSize: 13,
    titleFontWeight: 'bold',
    titleColor: INK,
  },
  range: {
    category: [...VAULT_PALETTE],
    ordinal: { scheme: 'blues' },
    ramp: { scheme: 'blues' },
    heatmap: { scheme: 'blues' },
    diverging: { scheme: 'redblue' },
  },
  mark: { color: VAULT_PALETTE[0], font: FONT_FAMILY },
  bar: { binSpacing: 1, discreteBandSize: { band: BAR_BAND_SHARE } },
  line: { strokeWidth: 3, strokeCap: 'round', strokeJoin: 'round' },
  trail: { strokeCap: 'round' },
  point: { filled: true, size: 80 },
  circle: { size: 80 },
  square: { size: 80 },
  area: { opacity: 0.85 },
  arc: { stroke: '#ffffff', strokeWidth: 1.5 },
  rect: { stroke: '#ffffff', strokeWidth: 0.5 },
  rule: { color: RULE },
  text: { color: INK, fontSize: LABEL.size, font: FONT_FAMILY },
  tick: { thickness: 2 },
  boxplot: { median: { color: '#ffffff' } },
};

/** What the renderer needs beyond the spec itself. */
export interface PreparedSpec {
  spec: JsonObject;
  /** Adjustments made to the spec that the caller should know about. */
  notes: string[];
}

/**
 * The spec we render: a copy of the (already checked) spec with the vault theme as its config (the spec's own
 * config, which cannot set colours, is merged over it), `title` as the chart title, axis titles made of words,
 * the view fitted to the canvas of `size`, value labels on a ranking, and dates handled in UTC so the image does not depend on the machine's time zone.
 * Throws ChartSpecError when the data is empty, or when its categories need a chart taller than `limits` allow.
 */
export function prepareChartSpec(
  checked: JsonObject,
  title: string,
  size: ChartSize = 'slide',
  limits: Pick<ChartLimits, 'maxHeight'> = CHART_LIMITS,
): PreparedSpec {
  const spec = structuredClone(checked);
  refuseEmptyData(spec);
  const notes: string[] = [];

  // The title wraps at the width of the canvas (a long title never widens the chart).
  const text = title.trim();
  const old = spec.title;
  const subtitle =
    isObject(old) && (typeof old.subtitle === 'string' || Array.isArray(old.subtitle)) ? old.subtitle : undefined;
  const titleWidth = CHART_SIZES[size].width - 2 * PADDING;
  const lines = text
    ? text
        .split(/\r?\n/)
        .flatMap((line) => wrapText(line.trim(), titleWidth, { size: TITLE.size, bold: true, measure: measureText }))
    : [];
  if (text || subtitle !== undefined) {
    spec.title = { text: lines.length > 1 ? lines : text, ...(subtitle !== undefined ? { subtitle } : {}) };
  } else {
    delete spec.title;
  }

  spec.config = mergeConfig(VAULT_THEME, isObject(spec.config) ? spec.config : {});

  for (const key of ['width', 'height'] as const) {
    if (spec[key] === 'container') {
      delete spec[key];
      notes.push(`"${key}": "container" needs a web page to size against; the chart is sized without it.`);
    }
  }

  notes.push(...showLonePoints(spec));
  labelPieShares(spec); // before the natural order, which would list the slices alphabetically
  orderCategoriesNaturally(spec);
  const subtitleLines = subtitle === undefined ? 0 : Array.isArray(subtitle) ? subtitle.length : 1;
  const maxHeight = { units: limits.maxHeight / CHART_PIXEL_RATIO, px: limits.maxHeight };
  humanizeAxes(spec);
  notes.push(...layoutChart(spec, { size, titleLines: lines.length, subtitleLines, maxHeight }));
  labelRankingBars(spec); // after the layout: it knows which way the bars run
  toUtc(spec);
  return { spec, notes };
}

function mergeConfig(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? mergeConfig(current, value) : value;
  }
  return out;
}
