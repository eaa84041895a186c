/**
 * The catalog as JSON: the one description of each tool that MCP tools/list, GET /v1/tools, the OpenAPI
 * document and `vault-tools tools --json` all publish. Computed once per tool list.
 */
import { jsonSchema, type Tool } from '../catalog/define.js';

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  access: Tool['access'];
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Tool['annotations'] & { title: string };
}

const cache = new WeakMap<Tool, ToolDescriptor>();

export function describeTool(tool: Tool): ToolDescriptor {
  let d = cache.get(tool);
  if (!d) {
    d = {
      name: tool.name,
      title: tool.title,
      description: tool.access === 'manager' ? `${tool.description} Requires a manager key.` : tool.description,
      access: tool.access,
      inputSchema: jsonSchema(tool.input, 'input'),
      outputSchema: jsonSchema(tool.output, 'output'),
      annotations: { title: tool.title, ...tool.annotations },
    };
    cache.set(tool, d);
  }
  return d;
}

/** The README's tool table, generated; a test fails when README.md and the catalog disagree. */
export function toolTableMarkdown(tools: readonly Tool[]): string {
  const rows = tools.map((t) => {
    const d = describeTool(t);
    const props = Object.keys((d.inputSchema.properties as Record<string, unknown>) ?? {}).filter((p) => p !== 'vault');
    const required = new Set((d.inputSchema.required as string[]) ?? []);
    const args = props.map((p) => (required.has(p) ? `\`${p}\`*` : `\`${p}\``)).join(', ') || '—';
    const firstSentence = t.description.split(/(?<=\.)\s/)[0];
    return `| \`${t.name}\` | ${t.access} | ${args} | ${firstSentence} |`;
  });
  return ['| Tool | Key | Arguments (* required) | What it does |', '|---|---|---|---|', ...rows].join('\n');
}
