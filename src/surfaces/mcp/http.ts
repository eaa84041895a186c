/**
 * MCP over Streamable HTTP (POST /v1/mcp) through the SDK's `createMcpHandler`: one endpoint serves protocol
 * 2026-07-28 and, statelessly, the 2025 revisions, from the same factory. A fresh server per request, so nothing
 * is kept between requests and every call re-checks the bearer key.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/principal.js';
import { log } from '../../log.js';
import type { Service } from '../../service/invoke.js';
import { createMcpServer } from './server.js';

/** What the listener hands the factory for one request, through the SDK's pass-through `authInfo.extra`. */
interface Caller {
  principal: () => Principal;
  requestId: string;
  /** pays a call's work beyond one call from the key's rate limit */
  charge: (units: number) => void;
}

type NodeHandler = (req: IncomingMessage & { auth?: unknown }, res: ServerResponse, body?: unknown) => Promise<void>;

/** One handler per service (per listener), made on the first MCP request so stdio start-up does not load it. */
const handlers = new WeakMap<Service, Promise<NodeHandler>>();

async function handlerFor(service: Service): Promise<NodeHandler> {
  const [{ createMcpHandler }, { toNodeHandler }] = await Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
  ]);
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const caller = authInfo?.extra as unknown as Caller;
      return createMcpServer(service, caller.principal, () => caller.requestId, caller.charge);
    },
    { onerror: (err) => log.debug(`MCP over HTTP: ${err.message.slice(0, 500)}`) },
  );
  return toNodeHandler(handler, { onerror: (err) => log.error('MCP over HTTP failed', err) }) as NodeHandler;
}

/**
 * One MCP request. The caller has already checked Host/Origin, the key and the rate limit, and read the body
 * within the listener's limit. The key itself never reaches the SDK: only a function that re-reads its principal.
 */
export async function handleMcpHttp(
  service: Service,
  principal: () => Principal,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  requestId: string,
  charge: (units: number) => void,
): Promise<void> {
  let handler = handlers.get(service);
  if (!handler) handlers.set(service, (handler = handlerFor(service)));
  const caller: Caller = { principal, requestId, charge };
  const withAuth = Object.assign(req, {
    auth: { token: 'vault-tools-key', clientId: 'vault-tools', scopes: [], extra: caller },
  });
  await (await handler)(withAuth, res, body);
}
