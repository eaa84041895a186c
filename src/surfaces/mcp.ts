/**
 * The MCP surface. One server factory over the service, used by stdio here and by Streamable HTTP later.
 * It publishes the catalog's own JSON Schemas (input and output), so MCP, REST and OpenAPI never drift,
 * and hands every call to `service.invoke`. This is the only module that imports the MCP SDK.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ContentBlock,
  type JSONRPCMessage,
  type ServerNotification,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { existsSync, readFileSync } from 'node:fs';
import { artifactAbsolutePath } from '../render/artifacts.js';
import { artifactResourceUri } from '../service/links.js';
import { resolveVault } from '../service/invoke.js';
import { ServiceError } from '../service/errors.js';
import { getArtifact, getPublicFile, recentArtifacts } from '../store/files.js';
import { latestBrief, latestBriefsByKind } from '../store/briefs.js';
import { reachableVaults } from '../store/vaults.js';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/keys.js';
import type { ArtifactRef } from '../catalog/define.js';
import type { Service } from '../service/invoke.js';
import { describeTool } from './catalog-json.js';
import { PACKAGE_VERSION } from '../package-info.js';
import { LineLimit, MAX_STDIO_LINE_BYTES } from './stdio-lines.js';
import { log } from '../log.js';

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

/** At most one progress notification per this many ms (about 10 a second), plus the final one. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * A tool's progress reports as MCP notifications/progress, only when the client asked for them (a
 * progressToken in the call's _meta). Throttled: an export reports every page of rows, which for a fast
 * writer is far more often than a client can show. The first report and the one that reaches the total
 * always go out; `progress` only ever increases, as the protocol requires.
 */
function progressNotifier(
  token: string | number | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): ((done: number, total?: number, message?: string) => void) | undefined {
  if (token === undefined) return undefined;
  let lastAt = -Infinity;
  let lastDone = -Infinity;
  return (done, total, message) => {
    if (done <= lastDone) return;
    const now = performance.now();
    const final = total !== undefined && done >= total;
    if (!final && now - lastAt < PROGRESS_INTERVAL_MS) return;
    lastAt = now;
    lastDone = done;
    const params = { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) };
    // A notification that cannot be sent (the client went away) must not fail the tool.
    send({ method: 'notifications/progress', params }).catch(() => {});
  };
}

/**
 * A stored file as content blocks: its picture (when it has one, so the model sees what it drew) and a
 * resource_link to its `vault-tools://` URI, which resources/read serves to any key that reaches the vault.
 */
function artifactBlocks(artifact: ArtifactRef): ContentBlock[] {
  const link: ContentBlock = {
    type: 'resource_link',
    uri: artifactResourceUri(artifact.vaultId, artifact.artifactId),
    name: artifact.fileName,
    title: artifact.title,
    mimeType: artifact.mimeType,
    size: artifact.sizeBytes,
  };
  return artifact.image ? [{ type: 'image', data: artifact.image.data.toString('base64'), mimeType: artifact.image.mimeType }, link] : [link];
}

/** A tool error as MCP wants it: an `isError` result whose text is the service's error body. */
function errorResult(code: string, message: string, requestId: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message, requestId } }) }] };
}

/** Serves MCP on stdin/stdout until stdin closes; resolves when the server has shut down. */
export async function serveStdio(service: Service, principal: () => Principal): Promise<void> {
  const server = createMcpServer(service, principal);
  const limit = `${MAX_STDIO_LINE_BYTES / 1024 / 1024} MiB (${MAX_STDIO_LINE_BYTES} bytes)`;
  // An over-long line is answered, not fatal: the client learns why its request failed, and the next one is served.
  const input = new LineLimit(MAX_STDIO_LINE_BYTES, ({ bytes, id }) => {
    log.warn(`refused a stdin message of ${bytes} bytes${id === undefined ? '' : ` (request id ${JSON.stringify(id)})`}: one message may be at most ${limit}`);
    const message = `Invalid Request: the message is ${bytes} bytes, over the limit of ${limit} per line; it was not read.`;
    // JSON-RPC answers with id null when the request's id could not be read.
    void transport.send({ jsonrpc: '2.0', id: id ?? null, error: { code: ErrorCode.InvalidRequest, message } } as unknown as JSONRPCMessage);
  });
  // The transport's own buffer only ever holds one line within our limit; its size check never fires.
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * MAX_STDIO_LINE_BYTES });
  process.stdin.pipe(input);
  // Lines that are not JSON-RPC (and other protocol slips) were dropped in silence; say what was dropped.
  server.onerror = (err) => log.warn(`MCP stdio: ${err.message.slice(0, 500)}`);
  await server.connect(transport);
  log.info('MCP server ready on stdio');
  await new Promise<void>((resolve) => {
    let stopping = false;
    const release = () => {
      // Stop reading stdin, or its open pipe keeps the process alive after the server is gone.
      process.stdin.unpipe(input);
      process.stdin.pause();
      resolve();
    };
    const stop = () => {
      if (stopping) return;
      stopping = true;
      process.stdin.off('end', stop);
      process.stdin.off('close', stop);
      void server.close().finally(release);
    };
    // The transport closing when nobody asked for it means it gave up on its input: end with a word and an
    // error status, never fall silent (which left nothing to wait for: exit status 13).
    server.onclose = () => {
      if (stopping) return;
      stopping = true;
      log.error('the MCP stdio transport closed unexpectedly (see the messages above); shutting down');
      process.exitCode = 1;
      release();
    };
    // The client quitting closes our stdin: exit then, never linger as an orphan.
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/**
 * One MCP request over Streamable HTTP, stateless: a fresh server and transport per request (the SDK's
 * stateless pattern), so nothing is kept between requests and every call re-checks the bearer key.
 * The caller has already checked Host/Origin, the key and the rate limit.
 */
export async function handleMcpHttp(
  service: Service,
  principal: () => Principal,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  requestId: string,
): Promise<void> {
  const server = createMcpServer(service, principal, () => requestId);
  // Loaded on the first HTTP request, so stdio start-up does not pay for it.
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const ARTIFACT_URI = /^vault-tools:\/\/vaults\/([^/]+)\/artifacts\/([^/]+)$/;
const FILE_URI = /^vault-tools:\/\/vaults\/([^/]+)\/files\/([^/]+)$/;
const BRIEF_URI = /^vault-tools:\/\/vaults\/([^/]+)\/briefs\/(daily|weekly-plan|weekly-digest)$/;
const RESOURCE_LIST_LIMIT = 200;
const briefUri = (vaultId: string, kind: string) => `vault-tools://vaults/${encodeURIComponent(vaultId)}/briefs/${kind}`;

/**
 * Resources of the key's vaults: the latest brief of each kind (markdown) and the artifacts tools produced
 * (newest first; read as text or a base64 blob).
 */
function registerResources(server: Server, service: Service, principal: () => Principal, requestId: () => string): void {
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const who = principal();
    const vaults = reachableVaults(service.db, who);
    const names = new Map(vaults.map((v) => [v.id, v.name]));
    const briefs = vaults.flatMap((v) =>
      latestBriefsByKind(service.db, v.id).map((b) => ({
        uri: briefUri(v.id, b.kind),
        name: `${v.id}-${b.kind}.md`,
        title: `Latest ${b.kind} brief (${v.name})`,
        mimeType: 'text/markdown',
      })),
    );
    return {
      resources: [...briefs, ...recentArtifacts(service.db, vaults.map((v) => v.id), RESOURCE_LIST_LIMIT).map((a) => ({
        uri: artifactResourceUri(a.vault_id, a.id),
        name: a.file_name,
        title: `${a.title} (${names.get(a.vault_id)})`,
        mimeType: a.mime_type,
        size: a.size_bytes,
      }))],
    };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: 'vault-tools://vaults/{vault}/briefs/{kind}', name: 'brief', title: 'The latest brief of a kind: daily, weekly-plan or weekly-digest', mimeType: 'text/markdown' },
      { uriTemplate: 'vault-tools://vaults/{vault}/artifacts/{artifactId}', name: 'artifact', title: 'A chart, workbook, csv or report a tool produced', mimeType: 'application/octet-stream' },
      { uriTemplate: 'vault-tools://vaults/{vault}/files/{fileId}', name: 'file', title: "A public file's text (list_files and get_file give its URI)", mimeType: 'text/plain' },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const brief = BRIEF_URI.exec(uri);
    const m = ARTIFACT_URI.exec(uri);
    const file = FILE_URI.exec(uri);
    try {
      if (brief) {
        const vault = resolveVault(service.db, principal(), decodeURIComponent(brief[1]!));
        const b = latestBrief(service.db, vault.id, brief[2]!);
        if (!b) throw new ServiceError('not_found', `Vault "${vault.name}" has no ${brief[2]} brief yet.`);
        return { contents: [{ uri, mimeType: 'text/markdown', text: `# ${b.title}\n\n_${b.createdAt}_\n\n${b.markdown}` }] };
      }
      if (m) {
        const vault = resolveVault(service.db, principal(), decodeURIComponent(m[1]!));
        const row = getArtifact(service.db, vault.id, decodeURIComponent(m[2]!));
        const path = row?.path ? artifactAbsolutePath(service.dataDir, row.path) : undefined;
        if (!row || !path || !existsSync(path)) throw new ServiceError('not_found', `No artifact "${decodeURIComponent(m[2]!)}" in vault "${vault.name}".`);
        const bytes = readFileSync(path);
        const isText = /^text\/|\/(json|csv)$/.test(row.mime_type);
        return { contents: [isText ? { uri, mimeType: row.mime_type, text: bytes.toString('utf8') } : { uri, mimeType: row.mime_type, blob: bytes.toString('base64') }] };
      }
      if (file) {
        // The REST download's access rule and content: any key that reaches the vault; the file's parsed text.
        const vault = resolveVault(service.db, principal(), decodeURIComponent(file[1]!));
        const row = getPublicFile(service.db, vault.id, decodeURIComponent(file[2]!));
        if (!row) throw new ServiceError('not_found', `No public file "${decodeURIComponent(file[2]!)}" in vault "${vault.name}".`);
        return { contents: [{ uri, mimeType: 'text/plain', text: row.content_text ?? '' }] };
      }
    } catch (err) {
      if (err instanceof ServiceError) throw new McpError(-32002, err.message, { code: err.code, requestId: requestId() });
      throw err;
    }
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource URI ${uri}; resources are vault-tools://vaults/{vault}/briefs/{kind}, vault-tools://vaults/{vault}/artifacts/{artifactId} and vault-tools://vaults/{vault}/files/{fileId}`);
  });
}

/** The orientation order of the spec as a prompt a user can pick in their client. */
function registerOrientationPrompt(server: Server): void {
  const prompt = {
    name: 'orient',
    title: 'Orient in a vault',
    description: 'Find the right vault and get the current picture: list_vaults → suggest_vault_scope → stats → get_brief.',
    arguments: [{ name: 'conversation', description: 'what the user is working on (helps choose the vault)', required: false }],
  };
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [prompt] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== prompt.name) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}"; the prompt is "orient".`);
    const conversation = request.params.arguments?.conversation?.trim();
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
