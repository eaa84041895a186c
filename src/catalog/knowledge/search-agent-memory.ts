import { z } from 'zod';
import { defineTool } from '../define.js';
import { isoDatetime, limitArg } from '../shapes.js';
import { searchAgentMessages } from '../../store/mail.js';
import { tokens } from '../../store/text.js';
import { invalidArgument, quoted } from '../../core/errors.js';

const EXCERPT_CHARS = 600;

/** The words of a question as an FTS5 query: any word may match (BM25 ranks messages with more of them first); longer words also match as prefixes. */
export function ftsQuery(query: string): string {
  const words = [...new Set(tokens(query))];
  return words.map((w) => `"${w.replace(/"/g, '""')}"${w.length >= 4 ? '*' : ''}`).join(' OR ');
}

export default defineTool({
  name: 'search_agent_memory',
  title: "Search the agent's past conversations",
  description:
    "Searches the vault agent's own past conversations (e-mail, MCP, chat) for what was asked and answered before; best matches first. `person_email` narrows to conversations with one person. This is the agent's memory, not the knowledge base: use search_knowledge and search_transcripts for what the client said.",
  input: {
    query: z.string().min(1).max(500),
    person_email: z
      .email()
      .optional()
      .describe('narrow to conversations with this person (snake_case on the wire, as the SDKs send it)'),
    personEmail: z.email().optional().describe('the same as `person_email`, also accepted; give one of the two'),
    limit: limitArg(1, 25, 12),
  },
  output: z.object({
    results: z.array(
      z.object({
        conversationId: z.string(),
        channel: z.enum(['email', 'mcp', 'chat']),
        title: z.string(),
        personName: z.string().nullable(),
        personEmail: z.string().nullable(),
        role: z.enum(['person', 'agent']),
        at: isoDatetime,
        excerpt: z.string(),
        score: z.number().describe('BM25 relevance, higher is better'),
      }),
    ),
  }),
  run: ({ query, person_email, personEmail: camel, limit }, { db, vault }) => {
    const match = ftsQuery(query);
    if (!match) throw invalidArgument('query', 'needs at least one word');
    if (person_email && camel && person_email.toLowerCase() !== camel.toLowerCase()) {
      throw invalidArgument(
        'person_email',
        `and \`personEmail\` are the same field and name different people (${quoted(person_email)}, ${quoted(camel)}); give one of them`,
      );
    }
    const personEmail = person_email ?? camel;
    return {
      results: searchAgentMessages(db, vault.id, match, personEmail, limit).map((h) => ({
        conversationId: h.conversationId,
        channel: h.channel as 'email',
        title: h.title,
        personName: h.personName,
        personEmail: h.personEmail,
        role: h.role as 'agent',
        at: h.at,
        excerpt: h.text.length > EXCERPT_CHARS ? `${h.text.slice(0, EXCERPT_CHARS)}…` : h.text,
        score: Math.round(-h.rank * 1000) / 1000,
      })),
    };
  },
});
