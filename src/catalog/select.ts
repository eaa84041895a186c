/**
 * Which tools a server offers: all, only the read-only ones, a named list, or all but some. The same
 * selection feeds MCP tools/list, GET /v1/tools, the OpenAPI document and which calls are accepted.
 */
import type { Tool } from './define.js';
import { tools as catalog } from './index.js';
import { didYouMean } from '../core/closest.js';

export interface ToolSelection {
  readOnly?: boolean;
  include?: string[];
  exclude?: string[];
}

export class ToolSelectionError extends Error {}

const names = (list: string[] | undefined) =>
  (list ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The tools a selection serves; `warn` hears of a tool named in `include` that `readOnly` leaves out (it
 * changes something), which would otherwise vanish without a word.
 */
export function selectTools(
  selection: ToolSelection,
  from: readonly Tool[] = catalog,
  warn: (sentence: string) => void = () => {},
): Tool[] {
  const known = [...from.map((t) => t.name)];
  const include = names(selection.include);
  const exclude = new Set(names(selection.exclude));
  const unknown = [...new Set([...include, ...exclude])].filter((n) => !known.includes(n));
  if (unknown.length) {
    const each = unknown.map(
      (n) => `${n}${didYouMean(n, known, (x) => x).replace(/^ Did you mean (.*)\?$/, ' (did you mean $1?)')}`,
    );
    throw new ToolSelectionError(`no tool named ${each.join(', ')}; \`vault-tools tools\` lists all ${known.length}`);
  }
  const chosen = from.filter(
    (t) =>
      (!include.length || include.includes(t.name)) &&
      !exclude.has(t.name) &&
      (!selection.readOnly || t.annotations.readOnlyHint),
  );
  const dropped = from
    .filter(
      (t) => include.includes(t.name) && !exclude.has(t.name) && selection.readOnly && !t.annotations.readOnlyHint,
    )
    .map((t) => t.name);
  if (dropped.length)
    warn(
      `--read-only leaves out ${dropped.join(', ')} (named in --tools): ${dropped.length > 1 ? 'they change' : 'it changes'} the store`,
    );
  if (!chosen.length) throw new ToolSelectionError('this selection leaves no tool to serve');
  return chosen;
}
