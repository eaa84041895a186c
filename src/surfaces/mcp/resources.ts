/**
 * MCP resources: the service's resources of the key's vaults (briefs, artifacts, public files) as
 * resources/list, templates and resources/read. What a key may read is the service's rule (service/resources).
 * A resource that is not there is -32602 with the URI (the 2026-07-28 rule, which the SDK applies to every era).
 */
import { ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import type { Principal } from '../../core/principal.js';
import { quoted, ServiceError, type ErrorCode } from '../../core/errors.js';
import type { Service } from '../../service/invoke.js';
import { z } from 'zod';
import { readAppView } from './apps.js';
import { checkedParams } from './params.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from '../../service/resources.js';

/** A URI up to this long comes back whole in a not-found error (longer than any URI this server makes). */
const MAX_URI_ECHOED = 1024;

/** What resources/read takes: checked here, so a malformed `uri` is -32602 with one short clause (./params). */
const READ_PARAMS = checkedParams(z.looseObject({ uri: z.string() }));

export function registerResources(
  server: Server,
  service: Service,
  principal: () => Principal,
  requestId: () => string,
): void {
  server.setRequestHandler('resources/list', async () => ({ resources: listResources(service, principal()) }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }));
  server.setRequestHandler('resources/read', { params: READ_PARAMS }, async ({ uri }) => {
    // The interactive views are the same page for every key: they hold no data until the host hands them a result.
    const view = readAppView(uri);
    if (view) return { contents: [view] };
    // The error data names the URI; a hostile 5 MB one is named by its start and length (quoted) instead.
    const named = uri.length <= MAX_URI_ECHOED ? uri : quoted(uri);
    let content;
    try {
      content = readResource(service, principal(), uri);
    } catch (err) {
      if (err instanceof ServiceError)
        throw withRequestId(new ResourceNotFoundError(named, err.message), err.code, requestId());
      throw err;
    }
    if (!content) {
      const known = RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ');
      throw withRequestId(
        new ResourceNotFoundError(named, `Unknown resource URI ${quoted(uri)}; resources are ${known}`),
        'not_found',
        requestId(),
      );
    }
    const { mimeType } = content;
    return {
      contents: [
        'text' in content
          ? { uri, mimeType, text: content.text }
          : { uri, mimeType, blob: content.bytes.toString('base64') },
      ],
    };
  });
}

/** The service's code and the request id beside the URI in the error's data, as tool errors carry them. */
function withRequestId(error: ResourceNotFoundError, code: ErrorCode, requestId: string): ResourceNotFoundError {
  Object.assign(error.data as object, { code, requestId });
  return error;
}
