// Cold-start reference on the SDK line vault-tools runs on (v2): a minimal MCP server with one tool, served over
// stdio through serveStdio (both protocol eras), in plain JavaScript (no build step), spawned exactly like
// `vault-tools serve`. `node bench/servers/reference-mcp-v2.mjs`
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

serveStdio(() => {
  const server = new McpServer({ name: 'reference', version: '0.0.0' });
  server.registerTool('ping', { description: 'Answers pong.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return server;
});
process.stdin.on('end', () => process.exit(0));
