/**
 * The canvas: a single view (one mark, or a stack of layers) fills a fixed canvas, 16:9 slide-sized by
 * default, with Vega-Lite's `fit` autosize, so bars stretch to fill it and the plot is as wide as the title.
 * Before that, the layout makes the categories readable on it: vertical bars with many categories or long
 * labels turn horizontal, labels wrap (or are shortened, keeping the words that tell them apart), a tall
 * list of categories makes the canvas taller, and a few bars do not grow into slabs.
 *
 * Facets, concatenations and repeats keep Vega-Lite's own sizing: `fit` does not apply to them.
 */
import { ChartSpecError } from './errors.js';
import { fieldValues, inlineRows, isObject, joinPath, type JsonObject } from './json.js';
import { formatCount } from './limits.js';
import {
  AXIS_TITLE,
  BAR_BAND_SHARE,
  CHART_SIZES,
  DISCRETE_STEP,
  LABEL,
  LEGEND,
  PADDING,
  TITLE,
  type ChartSize,
} from './style.js';
import { fitLabels, measureText, wrapText, type Measure, type TextStyle } from './text.js';
import { labelEveryPeriod } from './time-axis.js';

export { CHART_SIZES, type ChartSize } from './style.js';

/** Vertical bars with more categories than this are drawn as horizontal bars. */
export const MAX_VERTICAL_CATEGORIES = 12;
/** Lines a category label may take under a vertical bar, and beside a horizontal one. */
const MAX_LINES = { x: 3, y: 2 } as const;
/** Height of a row of horizontal bars with one line of label: below this the canvas grows taller. */
const MIN_ROW_STEP = 16;
/** Share of the canvas width the labels of horizontal bars may take. */
const MAX_LABEL_COLUMN = 0.32;
/** Width of a category label turned on its side (categories too narrow for level labels). */
const ROTATED_LABEL_WIDTH = 160;
/** Largest step per bar, so one or two bars do not become slabs (a bar takes about 2/3 of its step). */
const MAX_BAR_STEP = { x: 150, y: 72 } as const;
/**
 * Most category labels the layout measures and fits on one axis or legend. More cannot be read on any
 * canvas (a slide holds about 120 rows of bars within the height limit, a legend shows 30 entries); past
 * it Vega's own label limit shortens them. Keeps the layout, which runs in the server, bounded.
 */
const MAX_FITTED_LABELS = 200;
/** Rough size of a quantitative axis: tick labels plus its title. */
const QUANTITATIVE_AXIS = { width: 48, height: LABEL.lineHeight + LABEL.padding } as const;

const BAND_TYPES = new Set(['nominal', 'ordinal']);
const LEGEND_CHANNELS = ['color', 'fill', 'stroke', 'shape', 'size', 'opacity', 'strokeDash'] as const;
const SWAPPED: Record<string, string> = {
  x: 'y',
  y: 'x',
  x2: 'y2',
  y2: 'x2',
  xOffset: 'yOffset',
  yOffset: 'xOffset',
  xError: 'yError',
  yError: 'xError',
  xError2: 'yError2',
  yError2: 'xError2',
};

export interface LayoutOptions {
  size: ChartSize;
  /** Lines of the title and subtitle (0 when there is none). */
  titleLines: number;
  subtitleLines: number;
  /** Tallest the chart may grow, in spec units, and the PNG limit it comes from (for the message). */
  maxHeight: { units: number; px: number };
  measure?: Measure;
}

/** A node of the single view: the spec or a layer, with the inline rows it sees. */
interface ViewNode {
  node: JsonObject;
  /** Where the node is in the spec: '' or `layer[1]`. */
  path: string;
  rows: JsonObject[] | undefined;
}

/** A discrete axis of the view: its channel, field and the category values the data shows (undefined when unknown). */
interface BandAxis {
  channel: 'x' | 'y';
  field: string;
  /** Where its (first) definition is in the spec: `encoding.y`. */
  path: string;
  defs: JsonObject[];
  values: unknown[] | undefined;
}

/** Fits a single view to the canvas of `options.size` (in place); returns notes for the caller. */
export function layoutChart(spec: JsonObject, options: LayoutOptions): string[] {
  const notes: string[] = [];
  const nodes = viewNodes(spec);
  const measure = options.measure ?? measureText;
  if (!nodes) {
    levelShortLabels(spec, undefined, isObject(spec.datasets) ? spec.datasets : {}, measure, 0);
    return notes;
  }
  const canvas: { width: number; height: number } = { ...CHART_SIZES[options.size] };

  const sized = (['width', 'height'] as const).filter((k) => spec[k] !== undefined);
  if (sized.length > 0) {
    notes.push(
      `The chart fills the ${options.size} canvas (${canvas.width} × ${canvas.height}), so the spec's ${sized.join(' and ')} ${sized.length > 1 ? 'were' : 'was'} not used; pick the canvas with \`size\` (slide, square or portrait).`,
    );
  }

  let x = bandAxis(nodes, 'x');
  let y = bandAxis(nodes, 'y');
  const legendWidth = legendSpace(nodes, measure);
  const top =
    PADDING +
    (options.titleLines > 0 ? options.titleLines * TITLE.lineHeight + TITLE.offset : 0) +
    options.subtitleLines * TITLE.subtitleLineHeight;
  const plotWidth = (labelColumn: number) => canvas.width - 2 * PADDING - labelColumn - legendWidth;
  const plotHeight = (labelRows: number) => canvas.height - top - PADDING - labelRows;

  // Vertical bars turn horizontal when their categories cannot be read level under them.
  if (x?.values && !y && isVerticalBarChart(nodes)) {
    const n = x.values.length;
    const step = barStep(plotWidth(QUANTITATIVE_AXIS.width + axisTitleSpace(x)), n, 'x');
    if (n > MAX_VERTICAL_CATEGORIES || !fitLevel(x.values, step, measure)) {
      swapToHorizontal(nodes);
      const field = x.field;
      notes.push(
        n > MAX_VERTICAL_CATEGORIES
          ? `${n} categories of "${field}" are too many for vertical bars on a slide, so they are drawn as horizontal bars (categories on y).`
          : `The labels of "${field}" are too long to read under vertical bars, so they are drawn as horizontal bars (categories on y).`,
      );
      const written = x.path; // where the caller put the categories, for a refusal to point at
      x = undefined;
      y = bandAxis(nodes, 'y');
      if (y) y.path = written;
    }
  }

  const style: TextStyle = { size: LABEL.size, measure };
  let labelRows = QUANTITATIVE_AXIS.height + AXIS_TITLE.size + AXIS_TITLE.padding;
  let labelColumn = QUANTITATIVE_AXIS.width + AXIS_TITLE.size + AXIS_TITLE.padding;

  if (y?.values) {
    const n = y.values.length;
    const fitsRows = Math.floor(plotHeight(x ? 3 * LABEL.lineHeight : labelRows) / MIN_ROW_STEP);
    if (n > fitsRows) {
      const extra = (n - fitsRows) * MIN_ROW_STEP;
      canvas.height += extra;
      if (canvas.height > options.maxHeight.units) {
        const most = fitsRows + Math.floor((options.maxHeight.units - CHART_SIZES[options.size].height) / MIN_ROW_STEP);
        throw new ChartSpecError(
          y.path,
          `${formatCount(n)} categories of "${y.field}" would make the chart ${formatCount(canvas.height)} high (${formatCount(canvas.height * (options.maxHeight.px / options.maxHeight.units))} px); the limit is ${formatCount(options.maxHeight.px)} px, room for ${most} categories at a readable size. Show the largest 20 and group the rest as "Other".`,
          'height',
        );
      }
      notes.push(
        `${n} categories of "${y.field}" do not fit the height of a slide at a readable size, so the chart is ${canvas.height} high instead of ${CHART_SIZES[options.size].height}; show the largest 20 and group the rest as "Other" to keep it on one slide.`,
      );
    }
    const step = barStep(plotHeight(labelRows), n, 'y');
    const lines = step >= MAX_LINES.y * LABEL.lineHeight + 4 ? MAX_LINES.y : 1;
    const column = fitAxisLabels(y, canvas.width * MAX_LABEL_COLUMN, lines, style, true);
    labelColumn = column + LABEL.padding + axisTitleSpace(y);
  }
  if (x?.values) {
    const step = barStep(plotWidth(labelColumn), x.values.length, 'x');
    if (fitLevel(x.values, step, measure)) {
      const lines = fitAxisLabels(x, step * 0.9, MAX_LINES.x, style, true);
      labelRows = lines * LABEL.lineHeight + LABEL.padding + axisTitleSpace(x);
    } else {
      fitAxisLabels(x, ROTATED_LABEL_WIDTH, 1, style, false);
    }
  }

  if (isBarChart(nodes)) {
    if (x?.values) capBars(x, plotWidth(labelColumn), nodes);
    if (y?.values) capBars(y, plotHeight(labelRows), nodes);
  }
  fitLegendLabels(nodes, { size: LABEL.size, measure });
  for (const { node, rows } of nodes) {
    const def = isObject(node.encoding) ? node.encoding.x : undefined;
    if (isObject(def))
      labelEveryPeriod(
        def,
        markType(node),
        rows ?? nodes.flatMap((n) => n.rows ?? []),
        plotWidth(labelColumn),
        LABEL.size,
        measure,
      );
  }

  spec.width = canvas.width;
  spec.height = canvas.height;
  // `resize` lets Vega settle the fitted size within the one run, where without it Vega runs the whole
  // dataflow again: the same SVG (checked on the gallery) in half the time (16 -> 7.5 ms for a line chart).
  spec.autosize = { type: 'fit', contains: 'padding', resize: true };
  return notes;
}

/**
 * In views Vega-Lite sizes itself, it turns every category label on a discrete x axis on its side. Labels
 * that fit level under their step (months, weekdays, codes) read better level, so they stay level.
 */
function levelShortLabels(
  node: JsonObject,
  data: unknown,
  datasets: JsonObject,
  measure: Measure,
  depth: number,
): void {
  if (depth > 50) return;
  const own = node.data !== undefined ? node.data : data;
  const x = isObject(node.encoding) ? node.encoding.x : undefined;
  if (isObject(x) && isBand(x) && x.axis !== null && !(isObject(x.axis) && x.axis.labelAngle !== undefined)) {
    const values = fieldValues(inlineRows(own, datasets), x.field as string);
    if (
      values &&
      values.length <= MAX_FITTED_LABELS &&
      values.every((v) => measure(String(v), LABEL.size) <= DISCRETE_STEP * 0.9)
    )
      x.axis = { ...(isObject(x.axis) ? x.axis : {}), labelAngle: 0 };
  }
  for (const key of ['layer', 'hconcat', 'vconcat', 'concat'] as const) {
    const list = node[key];
    if (Array.isArray(list))
      for (const child of list) if (isObject(child)) levelShortLabels(child, own, datasets, measure, depth + 1);
  }
  if (isObject(node.spec)) levelShortLabels(node.spec, own, datasets, measure, depth + 1);
}

/** The spec and its layers when the spec is one view; undefined for facets, concats and repeats. */
function viewNodes(spec: JsonObject): ViewNode[] | undefined {
  const datasets = isObject(spec.datasets) ? spec.datasets : {};
  const nodes: ViewNode[] = [];
  const visit = (node: JsonObject, path: string, data: unknown, depth: number): boolean => {
    if (depth > 50) return false;
    if (['facet', 'repeat', 'concat', 'hconcat', 'vconcat', 'spec'].some((k) => node[k] !== undefined)) return false;
    const encoding = isObject(node.encoding) ? node.encoding : {};
    if (encoding.row !== undefined || encoding.column !== undefined || encoding.facet !== undefined) return false;
    const own = node.data !== undefined ? node.data : data;
    nodes.push({ node, path, rows: inlineRows(own, datasets) });
    if (!Array.isArray(node.layer)) return node.mark !== undefined;
    return node.layer.every(
      (child, i) => isObject(child) && visit(child, joinPath(joinPath(path, 'layer'), i), own, depth + 1),
    );
  };
  return visit(spec, '', undefined, 0) ? nodes : undefined;
}

const markType = (node: JsonObject): string | undefined =>
  typeof node.mark === 'string'
    ? node.mark
    : isObject(node.mark) && typeof node.mark.type === 'string'
      ? node.mark.type
      : undefined;
const marks = (nodes: ViewNode[]) => nodes.map((n) => markType(n.node)).filter((m): m is string => m !== undefined);
const isBarChart = (nodes: ViewNode[]) => marks(nodes).includes('bar');

/** Every definition of `channel` in the view, in the spec and its layers. */
function channelDefs(
  nodes: ViewNode[],
  channel: string,
): { def: JsonObject; path: string; rows: JsonObject[] | undefined }[] {
  return nodes.flatMap(({ node, path, rows }) => {
    const def = isObject(node.encoding) ? node.encoding[channel] : undefined;
    return isObject(def) ? [{ def, path: joinPath(joinPath(path, 'encoding'), channel), rows }] : [];
  });
}

const isBand = (def: JsonObject) =>
  typeof def.field === 'string' &&
  BAND_TYPES.has(def.type as string) &&
  def.timeUnit === undefined &&
  def.bin === undefined;
const isQuantity = (def: JsonObject) => def.type === 'quantitative' && (def.bin === undefined || def.bin === false);

/** The discrete axis on `channel`, when the view has one whose labels are shown. */
function bandAxis(nodes: ViewNode[], channel: 'x' | 'y'): BandAxis | undefined {
  const found = channelDefs(nodes, channel);
  const first = found[0]?.def;
  if (!first || !isBand(first) || found.some(({ def }) => def.field !== first.field || !isBand(def))) return undefined;
  const field = first.field as string;
  let values: unknown[] | undefined = [];
  for (const { def, rows } of found) {
    // A definition may sit on a layer parent whose own rows are undefined while its layers carry data: use theirs.
    const seen = fieldValues(rows ?? nodes.flatMap((n) => n.rows ?? []), def.field as string);
    if (!seen) {
      values = undefined;
      break;
    }
    values.push(...seen);
  }
  if (values) values = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
  return {
    channel,
    field,
    path: found[0]!.path,
    defs: found.map(({ def }) => def),
    values: values && values.length > 0 ? values : undefined,
  };
}

/** Bars (and text on them) with categories on x and a quantity on y, which can be turned on their side. */
function isVerticalBarChart(nodes: ViewNode[]): boolean {
  const kinds = marks(nodes);
  if (!kinds.includes('bar') || kinds.some((m) => m !== 'bar' && m !== 'text')) return false;
  const ys = channelDefs(nodes, 'y');
  return (
    ys.length > 0 &&
    ys.every(({ def }) => isQuantity(def)) &&
    channelDefs(nodes, 'x2').length === 0 &&
    channelDefs(nodes, 'y2').length === 0
  );
}

/** Every category label fits level under its step: wrapped to 90% of it, in at most three lines, no word wider. */
function fitLevel(values: unknown[], step: number, measure: Measure): boolean {
  if (values.length > MAX_FITTED_LABELS) return false;
  const width = step * 0.9;
  return values.every((v) => {
    const lines = wrapText(String(v), width, { size: LABEL.size, measure });
    return lines.length <= MAX_LINES.x && lines.every((l) => measure(l, LABEL.size) <= width);
  });
}

/** The step of one category along `extent`, no larger than a bar should be. */
function barStep(extent: number, n: number, channel: 'x' | 'y'): number {
  return Math.min(extent / Math.max(n, 1), MAX_BAR_STEP[channel]);
}

/** Room the title of a discrete axis takes (none when the spec hides it). */
function axisTitleSpace(axis: BandAxis): number {
  const hidden = axis.defs.every(
    (d) => d.title === null || (isObject(d.axis) && d.axis.title === null) || d.axis === null,
  );
  return hidden ? 0 : AXIS_TITLE.size + AXIS_TITLE.padding;
}

/** Categories on x and values on y become categories on y and values on x, in the spec and every layer. */
function swapToHorizontal(nodes: ViewNode[]): void {
  for (const { node } of nodes) {
    if (isObject(node.encoding)) {
      const swapped: JsonObject = {};
      for (const [channel, def] of Object.entries(node.encoding)) {
        const to = SWAPPED[channel] ?? channel;
        swapped[to] = to !== channel && isObject(def) ? swapDef(def) : def;
      }
      node.encoding = swapped;
    }
    if (isObject(node.mark)) node.mark = swapMark(node.mark);
  }
}

/** A channel definition moved to the other axis: sorts by the other channel follow, a label angle goes. */
function swapDef(def: JsonObject): JsonObject {
  const out = { ...def };
  if (typeof out.sort === 'string' && /^-?[xy]$/.test(out.sort))
    out.sort = out.sort.replace(/[xy]/, (c) => (c === 'x' ? 'y' : 'x'));
  if (isObject(out.sort) && (out.sort.encoding === 'x' || out.sort.encoding === 'y'))
    out.sort = { ...out.sort, encoding: out.sort.encoding === 'x' ? 'y' : 'x' };
  if (isObject(out.axis)) {
    const { labelAngle: _angle, ...axis } = out.axis;
    out.axis = axis;
  }
  return out;
}

/** A bar's orientation and a value label's offset, turned with the bars: a label above a bar goes to its right. */
function swapMark(mark: JsonObject): JsonObject {
  const out = { ...mark };
  if (out.orient === 'vertical' || out.orient === 'horizontal')
    out.orient = out.orient === 'vertical' ? 'horizontal' : 'vertical';
  if (out.type !== 'text') return out;
  const dx = typeof out.dx === 'number' ? out.dx : undefined;
  const dy = typeof out.dy === 'number' ? out.dy : undefined;
  delete out.dx;
  delete out.dy;
  if (dy !== undefined) out.dx = -dy;
  if (dx !== undefined) out.dy = -dx;
  if (out.baseline === 'bottom' || out.baseline === 'top' || (dy !== undefined && out.align === undefined)) {
    out.align = out.baseline === 'top' || (dy !== undefined && dy > 0) ? 'right' : 'left';
    out.baseline = 'middle';
  }
  return out;
}

/**
 * Fits every category label of `axis` into `lines` lines of at most `width` and puts the result on the
 * axis as a label expression (only labels that changed are listed). `level` keeps x labels level.
 * Returns the lines used (x) or the widest label (y), for the layout's estimate of the axis size.
 */
function fitAxisLabels(axis: BandAxis, width: number, lines: number, style: TextStyle, level: boolean): number {
  if (axis.values!.length > MAX_FITTED_LABELS) return axis.channel === 'x' ? 1 : width;
  const fitted = new Map<string, string[]>();
  let used = 1;
  let widest = 0;
  for (const [label, out] of fitLabels(axis.values!.map(String), width, lines, style)) {
    used = Math.max(used, out.length);
    for (const line of out) widest = Math.max(widest, style.measure(line, style.size));
    if (out.length !== 1 || out[0] !== label) fitted.set(label, out);
  }
  for (const def of axis.defs) {
    if (def.axis === null) continue;
    const own = isObject(def.axis) ? def.axis : {};
    const axisProps: JsonObject = { labelLimit: 0, ...own };
    if (level && axis.channel === 'x' && own.labelAngle === undefined) axisProps.labelAngle = 0;
    if (fitted.size > 0 && own.labelExpr === undefined) axisProps.labelExpr = lookupExpression(fitted);
    def.axis = axisProps;
  }
  return axis.channel === 'x' ? used : widest;
}

/** Legend labels of discrete colour (and other) fields, fitted to the legend's width in at most two lines. */
function fitLegendLabels(nodes: ViewNode[], style: TextStyle): void {
  for (const channel of LEGEND_CHANNELS) {
    for (const { def, rows } of channelDefs(nodes, channel)) {
      if (def.legend === null || typeof def.field !== 'string' || !BAND_TYPES.has(def.type as string)) continue;
      const values = fieldValues(rows ?? nodes.flatMap((n) => n.rows ?? []), def.field);
      if (!values || values.length > MAX_FITTED_LABELS) continue;
      const fitted = new Map<string, string[]>();
      for (const [label, out] of fitLabels(values.map(String), LEGEND.labelLimit, 2, style)) {
        if (out.length !== 1 || out[0] !== label) fitted.set(label, out);
      }
      const own = isObject(def.legend) ? def.legend : {};
      if (fitted.size > 0 && own.labelExpr === undefined)
        def.legend = { labelLimit: 0, ...own, labelExpr: lookupExpression(fitted) };
    }
  }
}

/** Width a legend takes on the right of the plot: symbol, widest label (up to the legend's limit) and offset. */
function legendSpace(nodes: ViewNode[], measure: Measure): number {
  let widest = 0;
  for (const channel of LEGEND_CHANNELS) {
    for (const { def, rows } of channelDefs(nodes, channel)) {
      if (def.legend === null || (typeof def.field !== 'string' && def.aggregate === undefined)) continue;
      const values =
        typeof def.field === 'string' ? fieldValues(rows ?? nodes.flatMap((n) => n.rows ?? []), def.field) : undefined;
      const title = typeof def.title === 'string' ? def.title : typeof def.field === 'string' ? def.field : '';
      const labels = values && BAND_TYPES.has(def.type as string) ? values.map(String) : ['00000'];
      // Past MAX_FITTED_LABELS some label is surely as wide as the legend allows.
      const label =
        labels.length > MAX_FITTED_LABELS
          ? LEGEND.labelLimit
          : labels.reduce((w, l) => Math.min(LEGEND.labelLimit, Math.max(w, measure(l, LABEL.size))), 0);
      widest = Math.max(widest, LEGEND.symbol + 6 + label, measure(title, LABEL.size, true));
    }
  }
  return widest > 0 ? widest + LEGEND.offset : 0;
}

/**
 * Keeps one or a few bars bar-shaped: the categories keep sharing the whole axis (as in a spreadsheet's
 * chart, each bar centred in its own slot) and the bars take a smaller share of a slot wider than the cap.
 */
function capBars(axis: BandAxis, extent: number, nodes: ViewNode[]): void {
  const n = axis.values!.length;
  const maxStep = MAX_BAR_STEP[axis.channel];
  const step = extent / n; // Vega-Lite's default outer padding is half the inner: n steps fill the axis
  if (step <= maxStep || channelDefs(nodes, axis.channel === 'x' ? 'xOffset' : 'yOffset').length > 0) return;
  const def = axis.defs[0]!;
  const scale = isObject(def.scale) ? def.scale : {};
  if (scale.padding !== undefined || scale.paddingOuter !== undefined || scale.paddingInner !== undefined) return;
  const share = { band: round(BAR_BAND_SHARE * (maxStep / step)) };
  const size = axis.channel === 'x' ? 'width' : 'height';
  for (const { node } of nodes) {
    if (markType(node) !== 'bar') continue;
    const mark = isObject(node.mark) ? node.mark : { type: 'bar' };
    if (mark[size] === undefined) node.mark = { ...mark, [size]: share };
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** A Vega expression giving the fitted lines of each listed label, and the label itself otherwise. */
function lookupExpression(fitted: Map<string, string[]>): string {
  const literal = (v: unknown) =>
    JSON.stringify(v)
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029');
  const entries = [...fitted].map(
    ([label, lines]) => `${literal(label)}: ${literal(lines.length === 1 ? lines[0] : lines)}`,
  );
  return `({${entries.join(', ')}})[datum.label] || datum.label`;
}
