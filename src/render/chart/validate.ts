/**
 * The refusals: a chart spec may not set colours (the vault theme owns them), may not reach outside itself
 * (data must be inline), and must stay within the limits. Each refusal is a ChartSpecError naming the JSON path.
 *
 * Links (`href` in an encoding, a mark or config) are refused too: the chart is a PNG, where a link cannot be
 * followed, and Vega would resolve the URL. Numbers written in the spec that make the renderer generate values
 * (`sequence(0, 1e9)` in an expression, density steps, impute keyvals, a quantile step, tick counts) are
 * checked against `maxDerivedRows` here; the renderer checks what only evaluation can tell.
 *
 * Config policy: `config` is accepted, but any key in it that sets a colour (`config.range`, `config.background`,
 * `config.mark.color`, `config.axis.labelColor`, …) is refused. `null` is accepted wherever a colour could go
 * (it removes a colour, e.g. `config.view.stroke: null`).
 */
import { ChartSpecError } from './errors.js';
import { isObject, joinPath, type JsonObject } from './json.js';
import { CHART_PIXEL_RATIO, formatCount, MAX_SORT_VALUES, type ChartLimits } from './limits.js';

const SCHEMA = /^https?:\/\/vega\.github\.io\/schema\/vega-lite\/v([56])(\.\d+){0,2}\.json$/;
const VEGA_SCHEMA = /^https?:\/\/vega\.github\.io\/schema\/vega\/v\d/;
/** Deeper than any real spec; keeps the recursive walks far from the stack limit. */
const MAX_DEPTH = 100;
const COLOUR_CHANNELS = new Set(['color', 'fill', 'stroke']);
const THEME_HINT = 'Colours come from the vault theme; remove it (use a field on encoding.color to tell series apart).';

/** Keys whose string value is a Vega expression. */
const EXPRESSION_KEYS = new Set(['calculate', 'filter', 'expr', 'test', 'update']);
/** Numbers that set how many values one step generates: density steps, axis ticks, bins. */
const COUNT_KEYS = new Set(['steps', 'minsteps', 'maxsteps', 'tickCount', 'maxbins']);
const NUMBER_LITERAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A row count per data source: inline rows (summed, for the rows limit), or what a generator written in the
 * spec makes (`generated` quotes it; each is held to the derived-rows limit on its own).
 */
interface RowSource {
  path: string;
  rows: number;
  generated?: string;
}

/** Checks the spec and returns it typed as an object; throws ChartSpecError on the first problem found. */
export function checkChartSpec(spec: unknown, limits: ChartLimits): JsonObject {
  if (!isObject(spec)) {
    throw new ChartSpecError(
      '',
      'vega_lite_spec must be a JSON object: a complete Vega-Lite v5 spec with inline data.',
    );
  }

  let json: string;
  try {
    json = JSON.stringify(spec);
  } catch {
    throw new ChartSpecError(
      '',
      'vega_lite_spec must be plain JSON (no cycles, no BigInt, not nested thousands of levels deep).',
    );
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > limits.maxSpecBytes) {
    throw new ChartSpecError(
      '',
      `The spec is ${formatCount(bytes)} bytes of JSON; the limit is ${formatCount(limits.maxSpecBytes)} bytes. Aggregate the data before charting it.`,
      'spec-size',
    );
  }

  const schema = spec.$schema;
  if (schema !== undefined) {
    if (typeof schema === 'string' && VEGA_SCHEMA.test(schema)) {
      throw new ChartSpecError(
        '$schema',
        `"$schema" is a Vega schema (${schema}); render_chart takes a Vega-Lite v5 spec, e.g. "$schema": "https://vega.github.io/schema/vega-lite/v5.json".`,
      );
    }
    if (typeof schema !== 'string' || !SCHEMA.test(schema)) {
      throw new ChartSpecError(
        '$schema',
        `"$schema" must be a Vega-Lite v5 schema URL such as "https://vega.github.io/schema/vega-lite/v5.json" (v6 is accepted too); got ${JSON.stringify(schema)}.`,
      );
    }
  }

  const sources: RowSource[] = [];
  walkSpec(spec, '', sources, 0);

  for (const s of sources) {
    if (s.generated !== undefined && s.rows > limits.maxDerivedRows) {
      throw new ChartSpecError(
        s.path,
        `${s.path}: ${s.generated} would make ${formatCount(s.rows)} values; a chart may generate at most ${formatCount(limits.maxDerivedRows)}. Aggregate first, or use a smaller range or a larger step.`,
        'rows',
      );
    }
  }
  const inline = sources.filter((s) => s.generated === undefined);
  const rows = inline.reduce((sum, s) => sum + s.rows, 0);
  if (rows > limits.maxRows) {
    const biggest = inline.reduce((a, b) => (b.rows > a.rows ? b : a));
    throw new ChartSpecError(
      biggest.path,
      `The spec has ${formatCount(rows)} rows of inline data (${biggest.path}: ${formatCount(biggest.rows)}); the limit is ${formatCount(limits.maxRows)} rows. Aggregate before charting (one row per bar, point or month).`,
      'rows',
    );
  }

  for (const [key, max, limit] of [
    ['width', limits.maxWidth, 'width'],
    ['height', limits.maxHeight, 'height'],
  ] as const) {
    const value = spec[key];
    if (typeof value === 'number' && value * CHART_PIXEL_RATIO > max) {
      throw new ChartSpecError(
        key,
        `"${key}": ${value} would make the image ${formatCount(value * CHART_PIXEL_RATIO)} px ${key === 'width' ? 'wide' : 'high'} (charts are drawn at ${CHART_PIXEL_RATIO}×); the limit is ${formatCount(max)} px, so keep ${key} below ${formatCount(Math.floor(max / CHART_PIXEL_RATIO))} (axes, legend, title and padding add to it).`,
        limit,
      );
    }
  }
  return spec;
}

/** A view spec: unit, layer, concat, facet or repeat, at the top or nested. */
function walkSpec(spec: JsonObject, path: string, sources: RowSource[], depth: number): void {
  tooDeep(path, depth);
  for (const [key, value] of Object.entries(spec)) {
    const at = joinPath(path, key);
    switch (key) {
      case 'data':
        checkData(value, at, sources, depth + 1);
        break;
      case 'datasets':
        checkDatasets(value, at, sources);
        break;
      case 'usermeta':
        // vega-embed (the chart view) merges usermeta.embedOptions over its own options: a spec could turn on the
        // actions menu and have "View Source" write its own HTML and script into a window. The view's options are
        // the view's.
        if (path === '' && isObject(value) && value.embedOptions !== undefined) {
          throw new ChartSpecError(
            'usermeta.embedOptions',
            "usermeta.embedOptions is not allowed: how the chart is shown (menus, actions, source view) is the viewer's choice, not the spec's. Remove usermeta.embedOptions (other usermeta is kept as given).",
          );
        }
        break;
      case 'resolve': // keys here name channels ("color": "independent"), not colours
        break;
      case 'mark':
        checkMark(value, at, sources, depth + 1);
        break;
      case 'encoding':
        checkEncoding(value, at, sources, depth + 1);
        break;
      case 'layer':
      case 'hconcat':
      case 'vconcat':
      case 'concat':
        if (Array.isArray(value)) {
          value.forEach((sub, i) => {
            if (isObject(sub)) walkSpec(sub, joinPath(at, i), sources, depth + 1);
          });
        }
        break;
      case 'spec':
        if (isObject(value)) walkSpec(value, at, sources, depth + 1);
        break;
      case 'config':
        if (isObject(value) && value.range !== undefined && value.range !== null) {
          throw new ChartSpecError(joinPath(at, 'range'), `config.range sets the colour ranges. ${THEME_HINT}`);
        }
        walkGeneric(value, at, sources, depth + 1);
        break;
      default:
        if (key === 'url') refuseUrl(at);
        if (key === 'href') refuseLink(at);
        if (isColourKey(key) && value !== null) throw new ChartSpecError(at, `${at} sets a colour. ${THEME_HINT}`);
        walkGeneric(value, at, sources, depth + 1);
    }
  }
}

/** Anything else: refuses colour keys, URLs and links, checks nested data and generators anywhere below. */
function walkGeneric(value: unknown, path: string, sources: RowSource[], depth: number): void {
  tooDeep(path, depth);
  if (Array.isArray(value)) {
    value.forEach((item, i) => walkGeneric(item, joinPath(path, i), sources, depth + 1));
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const at = joinPath(path, key);
    if (key === 'data' && isObject(child)) {
      checkData(child, at, sources, depth + 1); // e.g. transform[0].from.data of a lookup
      continue;
    }
    if (key === 'usermeta' || key === 'resolve') continue;
    if (key === 'url') refuseUrl(at);
    if (key === 'href') refuseLink(at);
    checkSortList(key, child, at);
    countGenerated(value, key, child, at, sources);
    if (isColourKey(key) && child !== null) {
      throw new ChartSpecError(at, `${at} sets a colour. ${THEME_HINT}`);
    }
    walkGeneric(child, at, sources, depth + 1);
  }
}

function isColourKey(key: string): boolean {
  return (
    key === 'color' ||
    key === 'fill' ||
    key === 'stroke' ||
    key === 'background' ||
    key === 'scheme' ||
    /[a-z]Color$/.test(key)
  );
}

function refuseUrl(path: string): never {
  throw new ChartSpecError(
    path,
    `${path}: charts cannot load anything by URL (no network, no files). Put the rows inline in data.values instead.`,
  );
}

function refuseLink(path: string): never {
  throw new ChartSpecError(
    path,
    `${path}: links (href) are not allowed; the chart is a PNG image, where a link cannot be followed. Remove it.`,
  );
}

/** Records what a generator written out in the spec would make: literal sequence() calls, counts, keyvals. */
function countGenerated(parent: JsonObject, key: string, value: unknown, path: string, sources: RowSource[]): void {
  if (typeof value === 'string' && EXPRESSION_KEYS.has(key)) {
    for (const call of value.matchAll(/\bsequence\s*\(([^()]*)\)/g)) {
      const args = call[1]!.split(',').map((a) => a.trim());
      if (args.length > 3 || !args.every((a) => NUMBER_LITERAL.test(a))) continue; // computed bounds: the renderer checks them
      const [start, stop, step] =
        args.length === 1 ? [0, Number(args[0]), 1] : [Number(args[0]), Number(args[1]), Number(args[2] ?? 1)];
      sources.push({ path, rows: sequenceRows({ start, stop, step }), generated: call[0].replace(/\s+/g, '') });
    }
  } else if (typeof value === 'number' && COUNT_KEYS.has(key)) {
    sources.push({ path, rows: value, generated: `"${key}": ${value}` });
  } else if (key === 'keyvals' && isObject(value)) {
    sources.push({ path, rows: sequenceRows(value), generated: 'this keyvals sequence' });
  } else if (key === 'step' && parent.quantile !== undefined && typeof value === 'number' && value > 0) {
    sources.push({ path, rows: Math.ceil(1 / value), generated: `a quantile step of ${value}` });
  }
}

/** A `sort` that lists its values: no longer than Vega-Lite can compile (see MAX_SORT_VALUES). */
function checkSortList(key: string, value: unknown, path: string): void {
  if (key !== 'sort' || !Array.isArray(value) || value.length <= MAX_SORT_VALUES) return;
  throw new ChartSpecError(
    path,
    `${path} lists ${formatCount(value.length)} values; a sort list may have at most ${formatCount(MAX_SORT_VALUES)}. Sort by value instead ("sort": "-x"), or show the largest 20 and group the rest as "Other".`,
  );
}

function tooDeep(path: string, depth: number): void {
  if (depth > MAX_DEPTH)
    throw new ChartSpecError(path, `The spec is nested more than ${MAX_DEPTH} levels deep at ${path}.`);
}

function checkData(data: unknown, path: string, sources: RowSource[], depth: number): void {
  if (data === null || data === undefined) return;
  if (!isObject(data))
    throw new ChartSpecError(
      path,
      `${path} must be an object with inline "values" (or the "name" of an entry in "datasets").`,
    );
  if (data.url !== undefined) {
    throw new ChartSpecError(
      joinPath(path, 'url'),
      `${joinPath(path, 'url')}: data must be inline; charts cannot load data by URL (no network, no files). Put the rows in ${joinPath(path, 'values')} instead.`,
    );
  }
  for (const [key, value] of Object.entries(data)) {
    const at = joinPath(path, key);
    if (key === 'values') sources.push({ path: at, rows: countRows(value) });
    else if (key === 'sequence') sources.push({ path: at, rows: sequenceRows(value) });
    else walkGeneric(value, at, sources, depth + 1); // format, name, sphere, graticule
  }
}

function checkDatasets(datasets: unknown, path: string, sources: RowSource[]): void {
  if (!isObject(datasets)) throw new ChartSpecError(path, `${path} must be an object mapping names to inline rows.`);
  for (const [name, value] of Object.entries(datasets)) {
    const at = joinPath(path, name);
    if (typeof value === 'string' && /^\s*([a-z][a-z0-9+.-]*:|\/\/)/i.test(value) && !/\n/.test(value)) {
      refuseUrl(at);
    }
    if (isObject(value) && value.url !== undefined) refuseUrl(joinPath(at, 'url'));
    sources.push({ path: at, rows: countRows(value) });
  }
}

/** Rows in inline values: array length, lines of CSV/TSV/JSON text, features of GeoJSON, or 1 for an object. */
function countRows(values: unknown): number {
  if (Array.isArray(values)) return values.length;
  if (typeof values === 'string') return values.split('\n').filter((line) => line.trim() !== '').length;
  if (isObject(values) && Array.isArray(values.features)) return values.features.length;
  return values === null || values === undefined ? 0 : 1;
}

function sequenceRows(seq: unknown): number {
  if (!isObject(seq)) return 0;
  const start = Number(seq.start ?? 0);
  const stop = Number(seq.stop ?? 0);
  const step = Number(seq.step ?? 1);
  const n = Math.ceil((stop - start) / step);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function checkMark(mark: unknown, path: string, sources: RowSource[], depth: number): void {
  const type = typeof mark === 'string' ? mark : isObject(mark) ? mark.type : undefined;
  if (type === 'image') {
    throw new ChartSpecError(
      typeof mark === 'string' ? path : joinPath(path, 'type'),
      `${path}: image marks are not allowed; they load pictures by URL, and charts use inline data only.`,
    );
  }
  if (isObject(mark)) walkGeneric(mark, path, sources, depth);
}

function checkEncoding(encoding: unknown, path: string, sources: RowSource[], depth: number): void {
  if (!isObject(encoding)) return;
  for (const [channel, def] of Object.entries(encoding)) {
    const at = joinPath(path, channel);
    if (channel === 'url') {
      throw new ChartSpecError(at, `${at}: images by URL are not allowed; charts use inline data only.`);
    }
    if (channel === 'href') refuseLink(at);
    if (COLOUR_CHANNELS.has(channel)) checkColourChannel(def, at, sources, depth + 1);
    else walkGeneric(def, at, sources, depth + 1);
  }
}

/** encoding.color / fill / stroke: fields and datums are fine (the theme maps them), fixed colours are not. */
function checkColourChannel(def: unknown, path: string, sources: RowSource[], depth: number): void {
  tooDeep(path, depth);
  if (Array.isArray(def)) {
    def.forEach((d, i) => checkColourChannel(d, joinPath(path, i), sources, depth + 1));
    return;
  }
  if (!isObject(def)) return;
  for (const [key, value] of Object.entries(def)) {
    const at = joinPath(path, key);
    if (key === 'value' && value !== null) {
      throw new ChartSpecError(at, `${at} sets a fixed colour. ${THEME_HINT}`);
    }
    if (key === 'scale') {
      if (value === null) {
        throw new ChartSpecError(at, `${at} is null, which would use the data values as colours. ${THEME_HINT}`);
      }
      if (isObject(value)) {
        for (const k of ['range', 'scheme'] as const) {
          if (value[k] !== undefined && value[k] !== null) {
            throw new ChartSpecError(
              joinPath(at, k),
              `${joinPath(at, k)} chooses the colours. ${THEME_HINT} The scale's domain may still be set.`,
            );
          }
        }
      }
      walkGeneric(value, at, sources, depth + 1);
      continue;
    }
    if (key === 'condition') {
      checkColourChannel(value, at, sources, depth + 1);
      continue;
    }
    checkSortList(key, value, at);
    walkGeneric(value, at, sources, depth + 1);
  }
}
