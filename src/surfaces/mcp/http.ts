/** MCP over Streamable HTTP, stateless: the listener hands each POST /v1/mcp here. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/principal.js';
import type { Service } from '../../service/invoke.js';
import { createMcpServer } from './server.js';

/**
 * One MCP request over Streamable HTTP, stateless: a fresh server and transport per request (the SDK's
 * stateless pattern), so nothing is kept between requests and every call re-checks the bearer key.
 * The caller has already checked Host/Origin, the key and the rate limit.
 */
export async function handleMcpHttp(
  service: Service,
  principal: () => Principal,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  requestId: string,
): Promise<void> {
  const server = createMcpServer(service, principal, () => requestId);
  // Loaded on the first HTTP request, so stdio start-up does not pay for it.
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
