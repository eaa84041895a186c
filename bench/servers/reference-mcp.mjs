// Cold-start reference: a minimal MCP SDK stdio server with one tool, in plain JavaScript (no build step),
// spawned exactly like `vault-tools serve`. `node bench/servers/reference-mcp.mjs`
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'reference', version: '0.0.0' });
server.registerTool('ping', { description: 'Answers pong.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
