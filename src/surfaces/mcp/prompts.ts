/** The MCP prompts: the orientation order of the spec, for a user to pick in their client. */
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { quoted } from '../../core/errors.js';
import { checkedParams } from './params.js';

export const ORIENT_PROMPT = {
  name: 'orient',
  title: 'Orient in a vault',
  description:
    'Find the right vault and get the current picture: list_vaults → suggest_vault_scope → stats → get_brief.',
  arguments: [
    { name: 'conversation', description: 'what the user is working on (helps choose the vault)', required: false },
  ],
};

/** What prompts/get takes: checked here, so malformed params are -32602 with one short clause each (./params). */
const GET_PARAMS = checkedParams(
  z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.string()).optional() }),
);

export function registerOrientationPrompt(server: Server): void {
  const prompt = ORIENT_PROMPT;
  server.setRequestHandler('prompts/list', async () => ({ prompts: [prompt] }));
  server.setRequestHandler('prompts/get', { params: GET_PARAMS }, async (params) => {
    if (params.name !== prompt.name)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt ${quoted(params.name)}; the prompt is "orient".`,
      );
    const conversation = params.arguments?.conversation?.trim();
    const text = [
      'Orient yourself in the right vault before answering, in this order:',
      '1. Call list_vaults to see which vaults this key reaches.',
      `2. If the vault is not explicit, call suggest_vault_scope with the recent conversation${conversation ? ' (below)' : ''}; if it returns a clarificationQuestion, ask the user exactly that and stop.`,
      '3. Call stats for the chosen vault, then get_brief (daily) for the current picture.',
      '4. Summarise in a few lines: the engagement, what changed recently, open conflicts and what needs attention. Pass the vault id as `vault` on every later call.',
      ...(conversation ? ['', 'Conversation so far:', conversation] : []),
    ].join('\n');
    return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
  });
}
