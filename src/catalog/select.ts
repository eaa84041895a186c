/**
 * Which tools a server offers: all, only the read-only ones, a named list, or all but some. The same
 * selection feeds MCP tools/list, GET /v1/tools, the OpenAPI document and which calls are accepted.
 */
import type { Tool } from './define.js';
import { tools as catalog } from './index.js';

export interface ToolSelection {
  readOnly?: boolean;
  include?: string[];
  exclude?: string[];
}

export class ToolSelectionError extends Error {}

const names = (list: string[] | undefined) => (list ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);

export function selectTools(selection: ToolSelection, from: readonly Tool[] = catalog): Tool[] {
  const known = new Set(from.map((t) => t.name));
  const include = names(selection.include);
  const exclude = new Set(names(selection.exclude));
  const unknown = [...include, ...exclude].filter((n) => !known.has(n));
  if (unknown.length) throw new ToolSelectionError(`unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the tools are: ${[...known].join(', ')}`);
  const chosen = from.filter(
    (t) => (!include.length || include.includes(t.name)) && !exclude.has(t.name) && (!selection.readOnly || t.annotations.readOnlyHint),
  );
  if (!chosen.length) throw new ToolSelectionError('this selection leaves no tool to serve');
  return chosen;
}
