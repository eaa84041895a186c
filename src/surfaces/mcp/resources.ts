/**
 * MCP resources: the service's resources of the key's vaults (briefs, artifacts, public files) as
 * resources/list, templates and resources/read. What a key may read is the service's rule (service/resources).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../core/principal.js';
import { ServiceError } from '../../core/errors.js';
import type { Service } from '../../service/invoke.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from '../../service/resources.js';

/** MCP's error code for a resource that is not there (the SDK names no constant for it). */
const RESOURCE_NOT_FOUND = -32002;

export function registerResources(server: Server, service: Service, principal: () => Principal, requestId: () => string): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listResources(service, principal()) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    let content;
    try {
      content = readResource(service, principal(), uri);
    } catch (err) {
      if (err instanceof ServiceError) throw new McpError(RESOURCE_NOT_FOUND, err.message, { code: err.code, requestId: requestId() });
      throw err;
    }
    if (!content) {
      const known = RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ');
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource URI ${uri}; resources are ${known}`);
    }
    const { mimeType } = content;
    return { contents: ['text' in content ? { uri, mimeType, text: content.text } : { uri, mimeType, blob: content.bytes.toString('base64') }] };
  });
}
