/**
 * completion/complete: values for the resource templates' arguments ({vault}, {kind}, {artifactId}, {fileId}) from
 * what the key reaches (service/completions), and none for the `orient` prompt's free-text argument. An unknown
 * prompt or template is an error, as the spec wants.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Principal } from '../../core/principal.js';
import { quoted } from '../../core/errors.js';
import { completeArgument } from '../../service/completions.js';
import type { Service } from '../../service/invoke.js';
import { RESOURCE_TEMPLATES } from '../../service/resources.js';
import { checkedParams } from './params.js';
import { ORIENT_PROMPT } from './prompts.js';

/** What completion/complete takes (both eras); other keys (`_meta`) pass. */
const COMPLETE_PARAMS = checkedParams(
  z.looseObject({
    ref: z.discriminatedUnion('type', [
      z.looseObject({ type: z.literal('ref/prompt'), name: z.string() }),
      z.looseObject({ type: z.literal('ref/resource'), uri: z.string() }),
    ]),
    argument: z.looseObject({ name: z.string(), value: z.string() }),
    context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
  }),
);

export function registerCompletions(server: Server, service: Service, principal: () => Principal): void {
  server.setRequestHandler('completion/complete', { params: COMPLETE_PARAMS }, async ({ ref, argument, context }) => {
    if (ref.type === 'ref/prompt' && ref.name !== ORIENT_PROMPT.name) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt ${quoted(ref.name)}; the prompt is "${ORIENT_PROMPT.name}".`,
      );
    }
    if (ref.type === 'ref/resource' && !RESOURCE_TEMPLATES.some((t) => t.uriTemplate === ref.uri)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown resource template ${quoted(ref.uri)}; the templates are ${RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ')}.`,
      );
    }
    // The prompt's one argument is free text: nothing to offer.
    if (ref.type === 'ref/prompt') return { completion: { values: [], total: 0, hasMore: false } };
    return {
      completion: {
        ...completeArgument(service, principal(), argument.name, argument.value, context?.arguments ?? {}),
      },
    };
  });
}
