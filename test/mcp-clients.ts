/**
 * MCP clients of a real `vault-tools serve`, as the tests drive it: the v2 SDK client pinned to protocol
 * 2026-07-28 or in legacy (2025) mode, and the v1 SDK client (`@modelcontextprotocol/sdk`, what clients deployed
 * today run), over a real stdio pipe or real HTTP. One interface, so a test runs the same steps in every era.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BIN } from './helpers.js';

export type Era = 'modern' | 'legacy' | 'v1';
export type Wire = 'stdio' | 'http';
export const ERAS: readonly Era[] = ['modern', 'legacy', 'v1'];

/** The calls the tests make, whichever SDK line is under them. */
export interface McpTestClient {
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown; outputSchema?: unknown; _meta?: unknown }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<any>;
  complete(params: unknown): Promise<any>;
  readResource(params: { uri: string }): Promise<any>;
  listResources(): Promise<any>;
  listPrompts(): Promise<any>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<any>;
  close(): Promise<void>;
  /** The protocol revision the connection speaks. */
  protocolVersion(): string | undefined;
}

export interface ConnectOptions {
  era: Era;
  wire: Wire;
  /** stdio: the data dir and key; http: the server's URL and key. */
  dataDir?: string;
  url?: string;
  key: string;
  /** stdio: the command that starts vault-tools (default: this checkout's bin on this Node) and its environment. */
  server?: { command: string; args: string[]; env: Record<string, string> };
  /** stdio: the server's stderr, as it comes. */
  onStderr?: (text: string) => void;
  /** Answers elicitation/create (the client then declares form elicitation); absent: no elicitation capability. */
  onElicit?: (params: any) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
}

export async function connectMcp(o: ConnectOptions): Promise<McpTestClient> {
  return o.era === 'v1' ? connectV1(o) : connectV2(o);
}

async function connectV2(o: ConnectOptions): Promise<McpTestClient> {
  const client = new Client(
    { name: 'vault-tools-test', version: '1.0.0' },
    {
      versionNegotiation: o.era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
      capabilities: o.onElicit ? { elicitation: { form: {} } } : {},
    },
  );
  if (o.onElicit) {
    const answer = o.onElicit;
    client.setRequestHandler('elicitation/create', async (request) => answer(request.params) as any);
  }
  await client.connect(
    o.wire === 'stdio'
      ? stdioTransport(StdioClientTransport, o)
      : new StreamableHTTPClientTransport(new URL('/v1/mcp', o.url), {
          requestInit: { headers: { authorization: `Bearer ${o.key}` } },
        }),
  );
  return wrap(client, () => client.getNegotiatedProtocolVersion?.());
}

async function connectV1(o: ConnectOptions): Promise<McpTestClient> {
  const { Client: V1Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport: V1Stdio } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport: V1Http } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const client = new V1Client(
    { name: 'vault-tools-test-v1', version: '1.0.0' },
    { capabilities: o.onElicit ? { elicitation: {} } : {} },
  );
  if (o.onElicit) {
    const answer = o.onElicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params) as any);
  }
  const transport =
    o.wire === 'stdio'
      ? stdioTransport(V1Stdio, o)
      : new V1Http(new URL('/v1/mcp', o.url), { requestInit: { headers: { authorization: `Bearer ${o.key}` } } });
  await client.connect(transport as any);
  return wrap(client, () => (transport as { protocolVersion?: string }).protocolVersion ?? 'legacy');
}

/** The calls the tests make, on a client of either SDK line (the same method names on both). */
function wrap(client: any, protocolVersion: () => string | undefined): McpTestClient {
  return {
    listTools: () => client.listTools(),
    callTool: (p) => client.callTool(p),
    complete: (p) => client.complete(p),
    readResource: (p) => client.readResource(p),
    listResources: () => client.listResources(),
    listPrompts: () => client.listPrompts(),
    getPrompt: (p) => client.getPrompt(p),
    close: () => client.close(),
    protocolVersion,
  };
}

/** `vault-tools serve` on a data dir with a key, over a real stdio pipe (either SDK line's transport class). */
function stdioTransport<T>(Transport: new (params: any) => T, o: ConnectOptions): T {
  const server = o.server ?? { command: process.execPath, args: [BIN], env: { PATH: process.env.PATH ?? '' } };
  const transport = new Transport({
    command: server.command,
    args: [...server.args, 'serve', '--data-dir', o.dataDir, '--key', o.key],
    env: { VAULT_TOOLS_LOG: 'warn', VAULT_TOOLS_INDEX: 'off', ...server.env },
    stderr: 'pipe',
  });
  const stderr = (transport as { stderr?: NodeJS.ReadableStream | null }).stderr;
  if (o.onStderr) stderr?.on('data', (d) => o.onStderr!(String(d)));
  return transport;
}
