import type { Command } from 'commander';
import { tools } from '../catalog/index.js';
import { describeTool, toolTableMarkdown } from '../surfaces/catalog-json.js';

export function register(program: Command): void {
  program
    .command('tools')
    .description('the tool catalog')
    .option('--json', 'the catalog as JSON, as GET /v1/tools and MCP tools/list publish it')
    .option('--markdown', "the README's tool table")
    .action((opts: { json?: boolean; markdown?: boolean }) => {
      if (opts.json)
        return void process.stdout.write(`${JSON.stringify({ tools: tools.map(describeTool) }, null, 2)}\n`);
      if (opts.markdown) return void process.stdout.write(`${toolTableMarkdown(tools)}\n`);
      const width = Math.max(...tools.map((t) => t.name.length));
      process.stdout.write(
        `${tools.map((t) => `${t.name.padEnd(width)}  ${t.access.padEnd(7)}  ${t.title}`).join('\n')}\n`,
      );
    });
}
