/**
 * completion/complete: values for the resource templates' arguments ({vault}, {kind}, {artifactId}, {fileId}) from
 * what the key reaches (service/completions), and none for the `orient` prompt's free-text argument. An unknown
 * prompt or template is an error, as the spec wants.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { Principal } from '../../core/principal.js';
import { quoted } from '../../core/errors.js';
import { completeArgument } from '../../service/completions.js';
import type { Service } from '../../service/invoke.js';
import { RESOURCE_TEMPLATES } from '../../service/resources.js';
import { ORIENT_PROMPT } from './prompts.js';

export function registerCompletions(server: Server, service: Service, principal: () => Principal): void {
  server.setRequestHandler('completion/complete', async (request) => {
    const { ref, argument, context } = request.params;
    if (ref.type === 'ref/prompt' && ref.name !== ORIENT_PROMPT.name) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt ${quoted(ref.name)}; the prompt is "${ORIENT_PROMPT.name}".`);
    }
    if (ref.type === 'ref/resource' && !RESOURCE_TEMPLATES.some((t) => t.uriTemplate === ref.uri)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template ${quoted(ref.uri)}; the templates are ${RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ')}.`);
    }
    // The prompt's one argument is free text: nothing to offer.
    if (ref.type === 'ref/prompt') return { completion: { values: [], total: 0, hasMore: false } };
    return { completion: { ...completeArgument(service, principal(), argument.name, argument.value, context?.arguments ?? {}) } };
  });
}
