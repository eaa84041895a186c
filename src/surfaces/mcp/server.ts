/**
 * The MCP surface's server factory: one server over the service, used alike by stdio (./stdio) and
 * Streamable HTTP (./http). It publishes the catalog's own JSON Schemas (input and output), so MCP, REST and
 * OpenAPI never drift, and hands every call to `service.invoke`. Only src/surfaces/mcp/ imports the MCP SDK.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import { log } from '../../log.js';
import { PACKAGE_VERSION } from '../../package-info.js';
import type { Service } from '../../service/invoke.js';
import { describeTool } from '../catalog-json.js';
import { progressNotifier } from './progress.js';
import { registerOrientationPrompt } from './prompts.js';
import { registerResources } from './resources.js';
import { artifactBlocks, errorResult } from './results.js';

export const SERVER_INSTRUCTIONS = [
  'Vault tools give access to the knowledge of consulting discovery engagements, one vault per client.',
  'Orientation order: list_vaults; when the user has not said which vault, suggest_vault_scope with the recent conversation',
  '(ask its clarification question if it returns one); then stats and get_brief for that vault.',
  'Pass the exact vault id as `vault` to every call when the key reaches more than one vault; never guess it or reuse one client\'s vault for another.',
  'search_knowledge finds entities by name; search_transcripts finds what was said; get_entity with includeEvidence gives verbatim quotes.',
  'find_person is the only source of e-mail addresses.',
].join(' ');

/**
 * `principal()` is asked on every call, so a revoked or expired key stops working at once. `requestId()`
 * names each call in its error body and logs: over HTTP the request's X-Request-Id, over stdio a fresh id.
 */
export function createMcpServer(service: Service, principal: () => Principal, requestId: () => string = randomUUID): Server {
  const server = new Server(
    { name: 'vault-tools', title: 'Vault Tools', version: PACKAGE_VERSION },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
  );
  registerResources(server, service, principal, requestId);
  registerOrientationPrompt(server);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: service.listTools().map((t) => {
      const d = describeTool(t);
      // The catalog's JSON Schemas are objects by construction (z.strictObject), as MCP requires.
      return { name: d.name, title: d.title, description: d.description, inputSchema: d.inputSchema, outputSchema: d.outputSchema, annotations: d.annotations } as McpTool;
    }),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const id = requestId();
    let who: Principal;
    try {
      who = principal();
    } catch (err) {
      const e = err as { code?: string; message: string };
      return errorResult(e.code ?? 'unauthorized', e.message, id);
    }
    // extra.signal fires on notifications/cancelled for this request, or when the connection closes.
    const result = await service.invoke(request.params.name, request.params.arguments ?? {}, who, {
      signal: extra.signal,
      progress: progressNotifier(request.params._meta?.progressToken, extra.sendNotification),
    });
    if (!result.ok && result.code === 'cancelled') log.info(`${request.params.name} cancelled by the client (request ${id}); nothing was stored`);
    if (!result.ok) return errorResult(result.code, result.message, id);
    // The JSON text first (clients that read only text), then what the answer's files look like and where they are.
    return { content: [{ type: 'text', text: JSON.stringify(result.data) }, ...(result.artifacts ?? []).flatMap(artifactBlocks)], structuredContent: result.data };
  });

  return server;
}
