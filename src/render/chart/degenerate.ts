/**
 * Data a chart cannot show as asked: no rows at all is refused (a blank image with one "0.000000" tick
 * helps nobody), and a line through a single point, which draws nothing, shows the point instead.
 */
import { ChartSpecError } from './errors.js';
import { fieldValues, inlineRows, isObject, joinPath, type JsonObject } from './json.js';

/** Throws when every inline data source of the spec is empty (and nothing generates rows). */
export function refuseEmptyData(spec: JsonObject): void {
  const datasets = isObject(spec.datasets) ? spec.datasets : {};
  const empty: string[] = [];
  let filled = false;
  const visit = (node: JsonObject, path: string, depth: number) => {
    if (depth > 50) return;
    const data = node.data;
    if (isObject(data)) {
      if (data.sequence !== undefined || data.sphere !== undefined || data.graticule !== undefined) filled = true;
      else if (Array.isArray(data.values))
        data.values.length > 0 ? (filled = true) : empty.push(joinPath(joinPath(path, 'data'), 'values'));
      else if (typeof data.name === 'string') {
        const rows = datasets[data.name];
        if (Array.isArray(rows) && rows.length === 0) empty.push(joinPath('datasets', data.name));
        else filled = true;
      } else if (data.values !== undefined) filled = true; // text or GeoJSON values: not counted here
    }
    for (const key of ['layer', 'hconcat', 'vconcat', 'concat'] as const) {
      const list = node[key];
      if (Array.isArray(list))
        list.forEach((child, i) => isObject(child) && visit(child, joinPath(joinPath(path, key), i), depth + 1));
    }
    if (isObject(node.spec)) visit(node.spec, joinPath(path, 'spec'), depth + 1);
  };
  visit(spec, '', 0);
  if (!filled && empty.length > 0) {
    throw new ChartSpecError(
      empty[0]!,
      `${empty[0]}: no rows, so there is nothing to draw. Put the rows to chart in it (one object per bar, point or slice), or leave the chart out.`,
    );
  }
}

const LINE_MARKS = new Set(['line', 'trail', 'area']);
const SERIES_CHANNELS = ['color', 'stroke', 'detail', 'strokeDash', 'fill'] as const;

/**
 * Lines (and areas) whose every series has a single x value draw nothing visible: their mark gets
 * `point: true`, and a note says why. Returns the notes.
 */
export function showLonePoints(spec: JsonObject): string[] {
  const notes: string[] = [];
  const datasets = isObject(spec.datasets) ? spec.datasets : {};
  const visit = (node: JsonObject, path: string, data: unknown, encoding: JsonObject, depth: number) => {
    if (depth > 50) return;
    const own = node.data !== undefined ? node.data : data;
    const enc = { ...encoding, ...(isObject(node.encoding) ? node.encoding : {}) };
    const type = typeof node.mark === 'string' ? node.mark : isObject(node.mark) ? node.mark.type : undefined;
    if (typeof type === 'string' && LINE_MARKS.has(type)) {
      const points = pointsPerSeries(inlineRows(own, datasets), enc);
      if (points !== undefined && points <= 1) {
        node.mark = { ...(isObject(node.mark) ? node.mark : { type }), point: true };
        const along = isObject(enc.x) && typeof enc.x.field === 'string' ? ` (one value of "${enc.x.field}")` : '';
        notes.push(
          `${joinPath(path, 'mark')}: the ${type} has a single point${along}, so it is drawn as a point; a ${type} needs at least two.`,
        );
      }
    }
    if (Array.isArray(node.layer))
      node.layer.forEach(
        (child, i) => isObject(child) && visit(child, joinPath(joinPath(path, 'layer'), i), own, enc, depth + 1),
      );
  };
  visit(spec, '', undefined, {}, 0);
  return notes;
}

/** The most x values any one series has, from the inline rows; undefined when the rows are not inline. */
function pointsPerSeries(rows: JsonObject[] | undefined, encoding: JsonObject): number | undefined {
  if (!rows) return undefined;
  if (rows.length <= 1) return rows.length;
  const x = isObject(encoding.x) && typeof encoding.x.field === 'string' ? encoding.x.field : undefined;
  if (!x) return undefined;
  const seriesFields = SERIES_CHANNELS.map((c) => encoding[c]).flatMap((d) =>
    isObject(d) && typeof d.field === 'string' ? [d.field] : [],
  );
  const series = new Map<string, Set<string>>();
  for (const row of rows) {
    const key = JSON.stringify(seriesFields.map((f) => fieldValues([row], f)?.[0] ?? null));
    const at = JSON.stringify(fieldValues([row], x)?.[0] ?? null);
    series.set(key, (series.get(key) ?? new Set()).add(at));
  }
  return Math.max(...[...series.values()].map((s) => s.size));
}
