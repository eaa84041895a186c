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

/** Abbreviations whose full stop ends no sentence. */
const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|cf|approx)\.$/i;

/**
 * A description's first sentence: up to the first full stop that is followed by a space, outside parentheses,
 * and not the stop of an abbreviation ("(e.g. NWL-12)" does not end it).
 */
function firstSentence(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '.' && depth === 0 && /\s/.test(text[i + 1] ?? '') && !ABBREVIATION.test(text.slice(0, i + 1)))
      return text.slice(0, i + 1);
  }
  return text;
}

/** The README's tool table, generated; a test fails when README.md and the catalog disagree. */
export function toolTableMarkdown(tools: readonly Tool[]): string {
  const rows = tools.map((t) => {
    const d = describeTool(t);
    const props = Object.keys((d.inputSchema.properties as Record<string, unknown>) ?? {}).filter((p) => p !== 'vault');
    const required = new Set((d.inputSchema.required as string[]) ?? []);
    const args = props.map((p) => (required.has(p) ? `\`${p}\`*` : `\`${p}\``)).join(', ') || '—';
    return `| \`${t.name}\` | ${t.access} | ${args} | ${firstSentence(t.description)} |`;
  });
  return ['| Tool | Key | Arguments (* required) | What it does |', '|---|---|---|---|', ...rows].join('\n');
}
