/**
 * What a model is given, exactly as an MCP client receives it: the server's `instructions` from initialize and
 * the `tools/list` answer (name, title, description, input and output schemas, annotations), from a real MCP SDK
 * client over stdio to `serve` on a data dir. The agent evaluation hands this, and nothing else about the
 * server, to a fresh-context model (README.md here).
 *
 *   npx tsx bench/agent-eval/surface.ts --data-dir <store> [--bin <path to bin/vault-tools.js>] > surface.json
 *
 * `--bin` picks the build to evaluate (another checkout's bin: before and after a change); default this one.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, bin: { type: 'string' } } });
if (!values['data-dir']) {
  process.stderr.write('usage: surface.ts --data-dir <store> [--bin <bin/vault-tools.js>]\n');
  process.exit(2);
}
const bin = resolve(values.bin ?? resolve(import.meta.dirname, '..', '..', 'bin', 'vault-tools.js'));
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin, 'serve', '--data-dir', resolve(values['data-dir']), '--no-index'],
  env: { PATH: process.env.PATH ?? '', VAULT_TOOLS_LOG: 'warn' },
  stderr: 'inherit',
});
const client = new Client({ name: 'agent-eval-surface', version: '1.0.0' });
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  const surface = { server: client.getServerVersion(), instructions: client.getInstructions() ?? null, tools };
  process.stdout.write(`${JSON.stringify(surface, null, 2)}\n`);
} finally {
  await client.close();
}
