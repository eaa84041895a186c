/**
 * Asking instead of failing: a call without `vault` on a key that reaches several vaults asks the person which
 * one, when the client can show a form. The handler returns an `input_required` result with a form elicitation
 * whose choices are the key's vaults (names shown, ids returned); the client answers and retries the same call,
 * and the answer fills in `vault` for that call only. In the 2026-07-28 era this is a multi-round-trip request
 * (stateless, so it works over HTTP too); in the 2025 era the SDK's shim sends a real elicitation/create where
 * the connection can carry one (stdio). A client that declared no elicitation gets the service's error, which
 * names the vaults. Nothing is ever picked for the person.
 */
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type InputRequiredResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Principal } from '../../core/principal.js';
import { vaultChoices } from '../../service/completions.js';
import type { Service } from '../../service/invoke.js';

/** The key of the vault question among a call's input requests. */
const QUESTION = 'vault';
const ANSWER = z.object({ vault: z.string().min(1) });

export type VaultPick = { kind: 'unasked' } | { kind: 'chosen'; vault: string } | { kind: 'declined' };

/** What the person answered to the vault question in this round of the call, if it was asked. */
export function chosenVault(ctx: ServerContext): VaultPick {
  const view = inputResponse(ctx.mcpReq.inputResponses, QUESTION);
  if (view.kind === 'missing') return { kind: 'unasked' };
  if (view.kind === 'elicit' && view.action !== 'accept') return { kind: 'declined' };
  const answer = acceptedContent(ctx.mcpReq.inputResponses, QUESTION, ANSWER);
  // An answer of the wrong shape is asked again (the SDK bounds the rounds).
  return answer ? { kind: 'chosen', vault: answer.vault } : { kind: 'unasked' };
}

/** The vault question for this call, or undefined when the client cannot show a form. */
export function askForVault(
  server: Server,
  ctx: ServerContext,
  service: Service,
  who: Principal,
  tool: string,
): InputRequiredResult | undefined {
  if (!canShowForm(server, ctx)) return undefined;
  const vaults = vaultChoices(service, who);
  return inputRequired({
    inputRequests: {
      [QUESTION]: inputRequired.elicit({
        message: `Which vault should \`${tool}\` use? This key reaches ${vaults.length}.`,
        requestedSchema: {
          type: 'object',
          properties: {
            vault: { type: 'string', title: 'Vault', oneOf: vaults.map((v) => ({ const: v.id, title: v.name })) },
          },
          required: ['vault'],
        },
      }),
    },
  });
}

/**
 * Whether the client declared form elicitation: per request in the 2026-07-28 era (the `_meta` envelope), at the
 * `initialize` handshake in the 2025 era. A bare `elicitation: {}` means form, as the spec reads it.
 */
function canShowForm(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
  const elicitation = caps?.elicitation as Record<string, unknown> | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}
