/** Small helpers for walking parsed JSON. */
export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Appends a key or index to a JSON path: `encoding` + `color` → `encoding.color`; `layer` + 1 → `layer[1]`. */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** The inline rows of a data object (its `values`, or the named entry of `datasets`), when they are objects. */
export function inlineRows(data: unknown, datasets: JsonObject): JsonObject[] | undefined {
  if (!isObject(data)) return undefined;
  const values = Array.isArray(data.values)
    ? data.values
    : typeof data.name === 'string'
      ? datasets[data.name]
      : undefined;
  if (!Array.isArray(values)) return undefined;
  return values.filter(isObject);
}

/** Values of a field in inline rows (nested "a.b" paths too); undefined when no row has the field. */
export function fieldValues(rows: JsonObject[] | undefined, field: string): unknown[] | undefined {
  if (!rows || rows.length === 0) return undefined;
  const parts = field.split(/(?<!\\)\./).map((p) => p.replace(/\\(.)/g, '$1'));
  const get = (row: JsonObject): unknown => {
    if (field in row) return row[field];
    let v: unknown = row;
    for (const p of parts) v = isObject(v) ? v[p] : undefined;
    return v;
  };
  const values = rows.map(get).filter((v) => v !== undefined && v !== null);
  return values.length > 0 ? values : undefined;
}
