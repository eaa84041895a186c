import { z } from 'zod';
import { defineTool } from '../define.js';
import { resolveScope } from '../../search/scope.js';
import { peopleNamesByVault } from '../../store/mail.js';

export const CONVERSATION_CHARS = 12_000;

export default defineTool({
  name: 'suggest_vault_scope',
  title: 'Suggest the vault scope',
  description:
    'Resolves the minimum safe vault scope from the recent conversation, using only the vaults this key may reach: their names, keywords, known people and cached summaries (it does not search vault content). Returns the selected vault ids with the reason, or one focused clarification question to ask the user when the conversation fits several vaults or none. It never guesses: when the conversation mentions names (people, organisations, sites: capitalised words inside a sentence) that none of the key\'s vaults knows, it asks, even if the key reaches one vault; a conversation with only generic words ("what are the open conflicts?") selects a key\'s only vault. Only the trailing 12,000 characters are read. Call after list_vaults when the vault is not explicit.',
  vaultScoped: false,
  input: {
    conversation: z
      .string()
      .min(1)
      .describe('the recent conversation, as text; only the last 12,000 characters are used'),
  },
  output: z.object({
    selectedVaultIds: z.array(z.string()),
    reason: z.string(),
    clarificationQuestion: z.string().nullable().describe('ask the user this when no vault was selected'),
    candidates: z.array(
      z.object({ id: z.string(), name: z.string(), score: z.number(), signals: z.array(z.string()) }),
    ),
    charactersUsed: z.number().int(),
  }),
  run: ({ conversation }, { db, reachableVaults }) => {
    const tail = conversation.slice(-CONVERSATION_CHARS);
    const people = peopleNamesByVault(db);
    const vaults = reachableVaults().map((v) => ({ ...v, people: people.get(v.id) ?? [] }));
    return { ...resolveScope(tail, vaults), charactersUsed: tail.length };
  },
});
