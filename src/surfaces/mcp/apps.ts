/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): the interactive views some tools name in `_meta.ui`.
 * A tool names its view in the catalog (`view`). Each view is one self-contained HTML file built from views/ into dist/views/ (scripts/build-views.mjs, run by
 * tsup), served only as a `ui://` resource. A host without the extension ignores the `_meta` and shows the
 * tool's result as before: the results themselves do not change.
 */
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_VIEWS, type Tool, type ToolView } from '../../catalog/define.js';
import { PACKAGE_ROOT } from '../../package-info.js';

export const viewUri = (view: ToolView): string => `ui://vault-tools/${view}.html`;
const VIEWS_DIR = join(PACKAGE_ROOT, 'dist', 'views');

/** The tool's `_meta` naming its view (both the current key and the older flat one hosts still read), if it has one. */
export function appToolMeta(tool: Tool): Record<string, unknown> | undefined {
  if (!tool.view) return undefined;
  const resourceUri = viewUri(tool.view);
  return { ui: { resourceUri }, [RESOURCE_URI_META_KEY]: resourceUri };
}

/**
 * The view's resources/read content, or undefined when `uri` names no view. Its CSP names no domain: the page
 * loads nothing and connects nowhere (everything is inlined, and tool calls go through the host).
 */
export function readAppView(
  uri: string,
): { uri: string; mimeType: string; text: string; _meta: Record<string, unknown> } | undefined {
  const view = TOOL_VIEWS.find((v) => viewUri(v) === uri);
  if (!view) return undefined;
  const file = join(VIEWS_DIR, `${view}.html`);
  if (!existsSync(file)) throw new Error(`the ${view} view is not built (${file}); run the build (tsup)`);
  return {
    uri,
    mimeType: RESOURCE_MIME_TYPE,
    text: readFileSync(file, 'utf8'),
    _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
  };
}
