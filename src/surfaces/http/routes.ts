/** The listener's routes: a small table of method, path template, whether a key is needed, and handler. */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/principal.js';
import { ServiceError } from '../../core/errors.js';
import type { InvokeResult, Service } from '../../service/invoke.js';
import type { Store } from '../../service/open.js';
import { artifactFile, publicFileText } from '../../service/resources.js';
import { describeTool } from '../catalog-json.js';
import { toolsByName } from '../../catalog/index.js';
import { handleMcpHttp } from '../mcp/http.js';
import { buildOpenApi } from '../openapi.js';
import { DOCS_PATH, sendDocs } from './docs.js';
import { readBody, readJsonObject } from './body.js';
import { nestingProblem } from '../json-nesting.js';
import { API_VERSION, PATHS } from '../../core/rest-paths.js';
import { dispositionFileName } from '../../core/content-disposition.js';
import { sendError, sendJson, sendJsonText } from './respond.js';
import { log } from '../../log.js';

export interface RouteContext {
  db: Store;
  service: Service;
  dataDir: string;
  maxBodyBytes: number;
  baseUrl: string;
  principal: Principal;
  /** the caller's principal read again now (a key or grant revoked meanwhile is refused) */
  currentPrincipal(): Principal;
  params: Record<string, string>;
  requestId: string;
  /** charges the key's rate limit for an MCP batch of this many messages (the request paid for one) */
  chargeBatch(messages: number): void;
  /** charges the key's rate limit for a call's work beyond the one call its request paid (Tool.cost) */
  chargeWork(units: number): void;
}

interface Route {
  method: string;
  template: string;
  auth: boolean;
  /** writes its own response (a file, MCP): the listener sets X-Request-Id before the handler runs */
  streams?: boolean;
  handle(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> | void;
}

function sendResult(res: ServerResponse, requestId: string, result: InvokeResult): void {
  if (result.ok)
    sendJson(
      res,
      200,
      { data: result.data },
      requestId,
      result.replayed ? { 'Idempotent-Replayed': 'true' } : undefined,
    );
  else
    sendError(
      res,
      requestId,
      result.code,
      result.message,
      result.retryAfter ? { 'Retry-After': String(result.retryAfter) } : undefined,
    );
}

/**
 * A read tool's answer with an ETag (a hash of the body). A client that sends the ETag of the answer it
 * already holds (If-None-Match) gets 304 and no body when nothing changed: sync re-reads its lists every
 * time, and most times they are the same. A superset of the wire: clients that send no If-None-Match see
 * only the extra header.
 */
function sendRead(req: IncomingMessage, res: ServerResponse, requestId: string, result: InvokeResult): void {
  if (!result.ok) {
    sendResult(res, requestId, result);
    return;
  }
  const payload = JSON.stringify({ data: result.data });
  const etag = `"${createHash('sha1').update(payload).digest('base64url')}"`;
  const wanted = req.headers['if-none-match'];
  if (wanted?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
    res.writeHead(304, ['ETag', etag, 'X-Request-Id', requestId]);
    return void res.end();
  }
  sendJsonText(res, 200, payload, requestId, { ETag: etag });
}

/** `Idempotency-Key` (optional): a client-chosen id that makes a repeated write answer without running again. */
function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(key)) {
    throw new ServiceError(
      'invalid_request',
      'The Idempotency-Key header must be 1 to 200 visible ASCII characters (a UUID is typical).',
    );
  }
  return key;
}

const openApiCache = new WeakMap<Service, Record<string, unknown>>();

/** The listener's OpenAPI document, built once per service (its tool selection) from the catalog. */
function openApiOf(ctx: RouteContext): Record<string, unknown> {
  let doc = openApiCache.get(ctx.service);
  if (!doc) openApiCache.set(ctx.service, (doc = buildOpenApi(ctx.service.listTools(), ctx.baseUrl)));
  return doc;
}

const ROUTES: Route[] = [
  {
    method: 'GET',
    template: PATHS.index,
    auth: false,
    handle: (_req, res, ctx) =>
      sendJson(
        res,
        200,
        {
          name: 'Vault Knowledge and Actions Service (vault-tools local)',
          version: API_VERSION,
          authentication:
            'Bearer token: send "Authorization: Bearer <key>" on every request except GET /v1. Keys are personal (vault-tools keys create); an OAuth access token of an approved client works too (see /.well-known/oauth-protected-resource, unless the listener runs with --no-oauth).',
          endpoints: {
            vaults: PATHS.vaults,
            tools: PATHS.tools,
            invokeTool: PATHS.invokeTool,
            openapi: PATHS.openapi,
            mcp: PATHS.mcp,
          },
        },
        ctx.requestId,
      ),
  },
  {
    method: 'GET',
    template: PATHS.vaults,
    auth: true,
    handle: async (_req, res, ctx) =>
      sendResult(res, ctx.requestId, await ctx.service.call(toolsByName.get('list_vaults')!, {}, ctx.principal)),
  },
  {
    method: 'GET',
    template: PATHS.tools,
    auth: true,
    handle: (_req, res, ctx) =>
      sendJson(res, 200, { data: { tools: ctx.service.listTools().map(describeTool) } }, ctx.requestId),
  },
  {
    method: 'POST',
    template: PATHS.invokeTool,
    auth: true,
    handle: async (req, res, ctx) => {
      const name = ctx.params.tool_name!;
      const tool = ctx.service.tool(name);
      if (!tool) {
        req.resume(); // the body of an unknown tool is not worth reading
        return sendError(
          res,
          ctx.requestId,
          'tool_not_found',
          ctx.service.noSuchTool(name, ctx.principal, `GET ${PATHS.tools}`),
        );
      }
      const idempotencyKey = idempotencyKeyOf(req);
      const args = await readJsonObject(req, ctx.maxBodyBytes);
      // Reads answer in milliseconds and change nothing: only writes (exports, charts…) are worth cancelling.
      if (tool.annotations.readOnlyHint)
        return sendRead(
          req,
          res,
          ctx.requestId,
          await ctx.service.call(tool, args, ctx.principal, { charge: ctx.chargeWork }),
        );
      // A client that hangs up before the answer cancels the call (a long export stops and stores nothing).
      // The response's 'close' is the signal: the request's own 'close' also fires once its body has been read.
      const abort = new AbortController();
      const onClose = () => {
        if (!res.writableFinished) abort.abort();
      };
      res.on('close', onClose);
      try {
        const result = await ctx.service.call(tool, args, ctx.principal, {
          idempotencyKey,
          signal: abort.signal,
          charge: ctx.chargeWork,
        });
        if (!result.ok && result.code === 'cancelled')
          log.info(
            `${name} cancelled: the client closed request ${ctx.requestId} before the answer; nothing was stored`,
          );
        sendResult(res, ctx.requestId, result);
      } finally {
        res.off('close', onClose);
      }
    },
  },
  {
    method: 'GET',
    template: PATHS.openapi,
    auth: true,
    handle: (_req, res, ctx) => sendJson(res, 200, openApiOf(ctx), ctx.requestId),
  },
  {
    method: 'GET',
    template: DOCS_PATH,
    auth: false,
    streams: true,
    handle: (_req, res, ctx) => void sendDocs(res, ctx.requestId, undefined, () => openApiOf(ctx)),
  },
  {
    method: 'GET',
    template: `${DOCS_PATH}/{asset}`,
    auth: false,
    streams: true,
    handle: (_req, res, ctx) => {
      if (!sendDocs(res, ctx.requestId, ctx.params.asset, () => openApiOf(ctx)))
        throw new ServiceError(
          'not_found',
          `No ${DOCS_PATH}/${ctx.params.asset}; the API reference is at ${DOCS_PATH}.`,
        );
    },
  },
  // MCP over Streamable HTTP, stateless: POST only. A server that offers no stream answers GET with 405
  // (the transport spec's choice for servers without server-initiated messages), and with no sessions
  // there is nothing for DELETE to end; the route table's 405 answers both, with `Allow: POST`.
  {
    method: 'POST',
    template: PATHS.mcp,
    auth: true,
    streams: true,
    handle: async (req, res, ctx) => {
      const raw = await readBody(req, ctx.maxBodyBytes);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return sendJson(
          res,
          400,
          { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid JSON' }, id: null },
          ctx.requestId,
        );
      }
      // Refused here, as REST refuses it, before the SDK walks it (its JSON.stringify overflowed the stack).
      const tooDeep = nestingProblem(raw);
      if (tooDeep)
        return sendJson(
          res,
          400,
          { jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${tooDeep}` }, id: jsonRpcId(body) },
          ctx.requestId,
        );
      // JSON-RPC batches are counted, not refused: each message pays one call of the rate limit, so a
      // batch of 100 tools/call costs what 100 requests cost. Protocol 2025-06-18 dropped batching, but the
      // SDK still accepts batches for every version it speaks (2025-03-26 clients may send them), and
      // counting keeps those clients working while closing the bypass.
      if (Array.isArray(body)) ctx.chargeBatch(body.length);
      await handleMcpHttp(ctx.service, ctx.currentPrincipal, req, res, body, ctx.requestId, ctx.chargeWork);
    },
  },
  {
    method: 'GET',
    template: PATHS.file,
    auth: true,
    streams: true,
    handle: (_req, res, ctx) => {
      // The local store keeps a file's parsed text, not its original bytes.
      const file = publicFileText(ctx.service, ctx.principal, ctx.params.vault!, ctx.params.fileId!);
      const text = file.text;
      res.writeHead(200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
        'Content-Disposition': `inline; ${dispositionFileName(`${file.name}.txt`)}`,
      });
      res.end(text);
    },
  },
  {
    method: 'GET',
    template: PATHS.artifact,
    auth: true,
    streams: true,
    handle: async (_req, res, ctx) => {
      // Access rule: any key that reaches the artifact's vault may download it; others get the vault's 404.
      const artifact = artifactFile(ctx.service, ctx.principal, ctx.params.vault!, ctx.params.artifactId!);
      res.writeHead(200, {
        'Content-Type': artifact.mimeType,
        'Content-Length': statSync(artifact.path).size,
        'Content-Disposition': `attachment; ${dispositionFileName(artifact.fileName)}`,
      });
      await new Promise<void>((resolve, reject) =>
        createReadStream(artifact.path).on('error', reject).on('end', resolve).pipe(res),
      );
    },
  },
];

/** Each template as segments: a literal to compare, or the name of a parameter (`{name}`). */
type Segment = { literal: string } | { param: string };
const compiled = ROUTES.map((route) => ({
  route,
  segments: route.template
    .split('/')
    .slice(1)
    .map((part): Segment => (/^\{\w+\}$/.test(part) ? { param: part.slice(1, -1) } : { literal: part })),
}));

export type RouteMatch =
  | { kind: 'ok'; route: Route; params: Record<string, string> }
  | { kind: 'no-method'; allow: string[] }
  | { kind: 'no-route' };

/** The route of a path (one trailing slash allowed), compared segment by segment: this runs on every request. */
export function matchRoute(method: string, path: string): RouteMatch {
  const parts = path.split('/').slice(1);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  let hit: (typeof compiled)[number] | undefined;
  const allow: string[] = [];
  for (const c of compiled) {
    if (
      c.segments.length !== parts.length ||
      !c.segments.every((s, i) => ('literal' in s ? s.literal === parts[i] : parts[i] !== ''))
    )
      continue;
    if (c.route.method === method) {
      hit = c;
      break;
    }
    if (!allow.includes(c.route.method)) allow.push(c.route.method);
  }
  if (!hit) return allow.length ? { kind: 'no-method', allow } : { kind: 'no-route' };
  const params: Record<string, string> = {};
  hit.segments.forEach((s, i) => {
    if ('param' in s) params[s.param] = decodeSegment(parts[i]!);
  });
  return { kind: 'ok', route: hit.route, params };
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ServiceError('invalid_request', `The path segment "${segment}" is not valid percent-encoding.`);
  }
}

/** The id of a JSON-RPC request refused before the SDK sees it, so the client can match the answer; else null. */
function jsonRpcId(body: unknown): string | number | null {
  const id = body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
