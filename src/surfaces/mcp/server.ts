/**
 * The MCP surface's server factory: one server over the service, used alike by stdio (./stdio) and
 * Streamable HTTP (./http), in both protocol eras (2026-07-28 and the 2025 revisions; the SDK's serving entries
 * pick the era per connection or request). It publishes the catalog's own JSON Schemas (input and output), so
 * MCP, REST and OpenAPI never drift, and hands every call to `service.invoke`. Only src/surfaces/mcp/ imports
 * the MCP SDK.
 */
import { Server, type CacheHint, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/server';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import { ServiceError } from '../../core/errors.js';
import { log } from '../../log.js';
import { PACKAGE_VERSION } from '../../package-info.js';
import type { Service } from '../../service/invoke.js';
import { describeTool } from '../catalog-json.js';
import { appToolMeta } from './apps.js';
import { registerCompletions } from './completions.js';
import { askForVault, chosenVault } from './elicit-vault.js';
import { progressNotifier } from './progress.js';
import { registerOrientationPrompt } from './prompts.js';
import { registerResources } from './resources.js';
import { artifactBlocks, errorResult } from './results.js';

export const SERVER_INSTRUCTIONS = [
  'Vault tools give access to the knowledge of consulting discovery engagements, one vault per client.',
  'Orientation order: list_vaults; when the user has not said which vault, suggest_vault_scope with the recent conversation',
  '(ask its clarification question if it returns one); then stats and get_brief for that vault.',
  "Pass the exact vault id as `vault` to every call when the key reaches more than one vault; never guess it or reuse one client's vault for another.",
  "search_knowledge finds entities by name; search_transcripts finds what was said, and get_transcript with a result's meetingId, turnStart and turnEnd reads around it; get_entity with includeEvidence gives verbatim quotes with their sentences.",
  "With search_transcripts, pass as `alternatives` two or three rephrasings of the question in the speakers' own terms (the client's names for sites, systems and roles, spoken words), never new facts.",
  'find_person is the only source of e-mail addresses.',
  'Before a draft that quotes people goes into send_email, export_report, a deck or back to the user, pass it to check_quotes and use the words and speakers it gives for every quotation that is not verbatim or is misattributed.',
].join(' ');

/**
 * How long a client may keep a list (2026-07-28 `ttlMs` / `cacheScope`). The tools, resources and vaults a key
 * sees depend on the key, so those lists are private; the prompt and the templates are the same for everyone.
 * A minute: a new grant, a revoked key or a new artifact shows within that.
 */
const PRIVATE_MINUTE: CacheHint = { ttlMs: 60_000, cacheScope: 'private' };
const PUBLIC_HOUR: CacheHint = { ttlMs: 3_600_000, cacheScope: 'public' };
const CACHE_HINTS = {
  'tools/list': PRIVATE_MINUTE,
  'resources/list': PRIVATE_MINUTE,
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
  'prompts/list': PUBLIC_HOUR,
  'resources/templates/list': PUBLIC_HOUR,
  'server/discover': PUBLIC_HOUR,
} as const satisfies Record<string, CacheHint>;

/**
 * `principal()` is asked on every call, so a revoked or expired key stops working at once. `requestId()`
 * names each call in its error body and logs: over HTTP the request's X-Request-Id, over stdio a fresh id.
 * `charge` (over HTTP) makes a call pay its work beyond one call from the key's rate limit (Tool.cost).
 */
export function createMcpServer(
  service: Service,
  principal: () => Principal,
  requestId: () => string = randomUUID,
  charge?: (units: number) => void,
): Server {
  const server = new Server(
    { name: 'vault-tools', title: 'Vault Tools', version: PACKAGE_VERSION },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      },
      instructions: SERVER_INSTRUCTIONS,
      cacheHints: CACHE_HINTS,
    },
  );
  registerResources(server, service, principal, requestId);
  registerOrientationPrompt(server);
  registerCompletions(server, service, principal);

  // A key sees only the tools it may call: a member key is not offered the manager-only ones (the
  // surface's --read-only / --tools selection is already the service's list). The catalog's order, always.
  server.setRequestHandler('tools/list', async () => {
    const who = principal();
    const tools = service.listTools().filter((t) => t.access === 'member' || who.role === 'manager');
    return {
      tools: tools.map((t) => {
        const d = describeTool(t);
        // The catalog's JSON Schemas are objects by construction (z.strictObject), as MCP requires.
        const tool = {
          name: d.name,
          title: d.title,
          description: d.description,
          inputSchema: d.inputSchema,
          outputSchema: d.outputSchema,
          annotations: d.annotations,
        } as McpTool;
        // A tool with an interactive view names it (MCP Apps); hosts without the extension ignore `_meta`.
        const meta = appToolMeta(t);
        return meta ? { ...tool, _meta: meta } : tool;
      }),
    };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const id = requestId();
    const name = request.params.name;
    let who: Principal;
    try {
      who = principal();
    } catch (err) {
      // Only a ServiceError's sentence reaches the client; anything else (a store error with its own `code`, such
      // as SQLITE_BUSY) is logged and answered with a code of the catalog.
      if (err instanceof ServiceError) return errorResult(err.code, err.message, id);
      log.error('checking the caller of tools/call failed', err);
      return errorResult('internal_error', 'The server failed unexpectedly; the error was logged on the server.', id);
    }
    // A vault the user picked in an earlier round of this call (see askForVault) fills in a missing `vault`.
    const picked = chosenVault(ctx);
    const args = { ...(request.params.arguments ?? {}) } as Record<string, unknown>;
    if (picked.kind === 'chosen' && args.vault === undefined) args.vault = picked.vault;
    // ctx.mcpReq.signal fires on notifications/cancelled for this request, or when the connection closes.
    const result = await service.invoke(name, args, who, {
      charge,
      signal: ctx.mcpReq.signal,
      progress: progressNotifier(ctx.mcpReq._meta?.progressToken, (n) => ctx.mcpReq.notify(n)),
    });
    if (!result.ok && result.code === 'cancelled')
      log.info(`${name} cancelled by the client (request ${id}); nothing was stored`);
    if (!result.ok && result.code === 'vault_required' && picked.kind === 'unasked') {
      // Ask the person which vault, when the client can show a form; otherwise today's error, which names them.
      const question = askForVault(server, ctx, service, who, name);
      if (question) return question;
    }
    if (!result.ok)
      return errorResult(
        result.code,
        picked.kind === 'declined' ? `${result.message} (The user declined to choose one.)` : result.message,
        id,
      );
    // The JSON text first (clients that read only text), then what the answer's files look like and where they are.
    return {
      content: [
        { type: 'text', text: JSON.stringify(result.data) },
        ...(result.artifacts ?? []).flatMap(artifactBlocks),
      ],
      structuredContent: result.data,
    } satisfies CallToolResult;
  });

  return server;
}
