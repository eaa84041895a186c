/** Rows of the bench: one measured value, the reference measured in the same run, their ratio, the data size and the target. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Row {
  /** stable id, e.g. `stdio.stats.p50` (tests and docs refer to it) */
  metric: string;
  /** null: not measured in this run; `note` says why */
  value: number | null;
  unit: string;
  reference?: { what: string; value: number | null };
  /** value / reference value */
  ratio?: number | null;
  /** the data the number was measured on */
  size: string;
  target?: string;
  /** whether the target is met; absent without a target or a value */
  met?: boolean;
  note?: string;
}

/** A row whose ratio and verdict follow from value, reference and a bound on the ratio or the value. */
export function row(r: Omit<Row, 'ratio' | 'met'> & { maxRatio?: number; minRatio?: number; maxValue?: number }): Row {
  const { maxRatio, minRatio, maxValue, ...rest } = r;
  const ratio = r.value !== null && r.reference?.value ? r.value / r.reference.value : r.reference ? null : undefined;
  let met: boolean | undefined;
  if (r.value !== null) {
    if (maxRatio !== undefined && ratio != null) met = ratio <= maxRatio;
    if (minRatio !== undefined && ratio != null) met = ratio >= minRatio;
    if (maxValue !== undefined) met = (met ?? true) && r.value <= maxValue;
  }
  return { ...rest, ...(ratio !== undefined ? { ratio } : {}), ...(met !== undefined ? { met } : {}) };
}

export const unavailable = (metric: string, unit: string, size: string, note: string, target?: string): Row => ({
  metric,
  value: null,
  unit,
  size,
  note,
  ...(target ? { target } : {}),
});

const fmt = (v: number | null | undefined) =>
  v == null ? '—' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);

export function table(rows: Row[]): string {
  const head = ['metric', 'value', 'reference (same run)', 'ratio', 'target', 'data'];
  const body = rows.map((r) => [
    r.metric,
    r.value === null ? `n/a (${r.note ?? 'not measured'})` : `${fmt(r.value)} ${r.unit}`,
    r.reference ? `${fmt(r.reference.value)} ${r.unit} ${r.reference.what}` : '',
    r.ratio == null ? '' : `${r.ratio.toFixed(2)}×`,
    r.target ? `${r.target}${r.met === undefined ? '' : r.met ? ' ✓' : ' ✗'}` : '',
    r.note && r.value !== null ? `${r.size} (${r.note})` : r.size,
  ]);
  const lines = [head, ...body].map((cells) => `| ${cells.join(' | ')} |`);
  lines.splice(1, 0, `|${head.map(() => '---').join('|')}|`);
  return lines.join('\n');
}

export function writeResults(dir: string, result: { rows: Row[] } & Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().replace(/[:]/g, '-').replace(/\..+/, '')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}
