/**
 * The OpenAPI 3.1 document, generated from the catalog: every tool's request and response schema (the
 * same JSON Schemas MCP publishes), the error body, bearer security and the error responses. OpenAPI 3.1
 * speaks JSON Schema 2020-12, which is what zod emits, so the schemas go in unchanged.
 */
import { ERROR_CODES } from '../core/errors.js';
import { takesIdempotencyKey, type Tool } from '../catalog/define.js';
import { toolsByName } from '../catalog/index.js';
import { describeTool } from './catalog-json.js';
import { API_VERSION, PATHS } from '../core/rest-paths.js';
import { PACKAGE_VERSION } from '../package-info.js';

/** The codes that answer with `status`, from ERROR_CODES: a response's description names them all, so a new code shows up by itself. */
const codesWith = (status: number) =>
  Object.keys(ERROR_CODES).filter((code) => ERROR_CODES[code as keyof typeof ERROR_CODES] === status);

const errorResponse = (status: number, description: string) => ({
  description: `${description} (${codesWith(status).join(', ')})`,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const ERROR_RESPONSES = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '404': { $ref: '#/components/responses/NotFound' },
  '413': { $ref: '#/components/responses/PayloadTooLarge' },
  '429': { $ref: '#/components/responses/TooManyRequests' },
};

/** What only a tool call meets: the store's write lock held by another process past the busy timeout. */
const TOOL_CALL_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  [String(ERROR_CODES.store_busy)]: { $ref: '#/components/responses/ServiceUnavailable' },
};

/** Writes take an idempotency key: a repeat with the same key answers as the first call did, without running again. */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A client-chosen id (1–200 visible ASCII characters, a UUID is typical), scoped to the API key that sends it and bound to the call it first came with. The same call repeated with the same key is not run again; the first answer comes back with `Idempotent-Replayed: true` (a repeat sent while the first runs waits for it). The same key with another tool, vault or arguments is refused with 409 `idempotency_key_reused`.',
  schema: { type: 'string', minLength: 1, maxLength: 200 },
};

const ok = (schema: unknown, description = 'Success') => ({
  description,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
  content: { 'application/json': { schema } },
});

const vaultParam = {
  name: 'vault',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'vault id or exact name',
};

const wrapData = (schema: unknown) => ({
  type: 'object',
  properties: { data: schema },
  required: ['data'],
  additionalProperties: false,
});

export function buildOpenApi(tools: readonly Tool[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    [PATHS.index]: {
      get: {
        operationId: 'getApiIndex',
        summary: 'API index',
        security: [],
        responses: { '200': ok({ $ref: '#/components/schemas/ApiIndex' }) },
      },
    },
    [PATHS.vaults]: {
      get: {
        operationId: 'listVaults',
        summary: 'The vaults this key may reach',
        responses: {
          '200': ok(wrapData(describeTool(toolsByName.get('list_vaults')!).outputSchema)),
          ...ERROR_RESPONSES,
        },
      },
    },
    [PATHS.tools]: {
      get: {
        operationId: 'listTools',
        summary: 'The live tool catalog with JSON input schemas (the same schemas MCP tools/list returns)',
        responses: {
          '200': ok(
            wrapData({
              type: 'object',
              properties: { tools: { type: 'array', items: { $ref: '#/components/schemas/ToolDescriptor' } } },
              required: ['tools'],
            }),
          ),
          ...ERROR_RESPONSES,
        },
      },
    },
    [PATHS.openapi]: {
      get: {
        operationId: 'getOpenApi',
        summary: 'This document',
        responses: { '200': ok({ type: 'object' }), ...ERROR_RESPONSES },
      },
    },
    [PATHS.mcp]: {
      post: {
        operationId: 'mcp',
        summary: 'MCP over Streamable HTTP (stateless): JSON-RPC requests in, JSON or an SSE stream out',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          '200': {
            description: 'JSON-RPC response',
            content: {
              'application/json': { schema: { type: 'object' } },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          '202': { description: 'Notification accepted' },
          ...ERROR_RESPONSES,
        },
      },
    },
    [PATHS.file]: {
      get: {
        operationId: 'downloadFile',
        summary: "A public file's parsed text",
        parameters: [vaultParam, { name: 'fileId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The text of the file', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...ERROR_RESPONSES,
        },
      },
    },
    [PATHS.artifact]: {
      get: {
        operationId: 'downloadArtifact',
        summary: 'A file a tool produced (chart, workbook, csv, report); any key that reaches the vault may fetch it',
        parameters: [vaultParam, { name: 'artifactId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The file',
            content: {
              'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
            },
          },
          ...ERROR_RESPONSES,
        },
      },
    },
  };
  for (const tool of tools) {
    const d = describeTool(tool);
    const required = ((d.inputSchema.required as string[] | undefined) ?? []).length > 0;
    paths[PATHS.invokeTool.replace('{tool_name}', tool.name)] = {
      post: {
        operationId: tool.name,
        summary: tool.title,
        description: d.description,
        tags: [tool.access === 'manager' ? 'actions' : 'knowledge'],
        'x-access': tool.access,
        'x-mcp-annotations': tool.annotations,
        ...(takesIdempotencyKey(tool) ? { parameters: [IDEMPOTENCY_KEY] } : {}),
        requestBody: { required, content: { 'application/json': { schema: d.inputSchema } } },
        responses: {
          '200': ok(wrapData(d.outputSchema)),
          ...TOOL_CALL_ERROR_RESPONSES,
          ...(takesIdempotencyKey(tool) ? { '409': { $ref: '#/components/responses/Conflict' } } : {}),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vault Knowledge and Actions Service (vault-tools local)',
      version: API_VERSION,
      description: `Served by vault-tools ${PACKAGE_VERSION}. Every tool is \`POST /v1/tools/<name>\` with a JSON body; success is \`{data}\`. Errors are \`{error:{code, message, requestId}}\`. Send \`Authorization: Bearer <key>\` (\`vault-tools keys create\`) on every request but \`GET /v1\`.`,
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'knowledge', description: 'Any valid key' },
      { name: 'actions', description: 'Manager keys only' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A personal key (vault-tools keys create)' },
      },
      headers: {
        RequestId: {
          description: 'Echoes a sane incoming X-Request-Id, else a fresh id; equals the error body requestId',
          schema: { type: 'string' },
        },
      },
      schemas: {
        Error: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_CODES) },
                message: { type: 'string' },
                requestId: { type: 'string' },
              },
              required: ['code', 'message', 'requestId'],
            },
          },
          required: ['error'],
        },
        ApiIndex: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            version: { type: 'string', const: API_VERSION },
            authentication: { type: 'string' },
            endpoints: {
              type: 'object',
              properties: Object.fromEntries(
                ['vaults', 'tools', 'invokeTool', 'openapi', 'mcp'].map((k) => [k, { type: 'string' }]),
              ),
              required: ['vaults', 'tools', 'invokeTool', 'openapi', 'mcp'],
            },
          },
          required: ['name', 'version', 'authentication', 'endpoints'],
        },
        ToolDescriptor: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            title: { type: 'string' },
            description: { type: 'string' },
            access: { type: 'string', enum: ['member', 'manager'] },
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object' },
            annotations: { type: 'object' },
          },
          required: ['name', 'description', 'inputSchema'],
        },
      },
      responses: {
        BadRequest: errorResponse(400, 'Invalid request or arguments'),
        Unauthorized: errorResponse(401, 'Missing, unknown, revoked or expired key'),
        Forbidden: errorResponse(
          403,
          'No permission (a manager-only tool with a member key), or the Host or Origin is refused',
        ),
        NotFound: errorResponse(404, 'Unknown tool, route, vault (or one the key may not reach), or record'),
        PayloadTooLarge: errorResponse(413, 'Body over the size limit'),
        Conflict: errorResponse(
          409,
          'This API key already used the Idempotency-Key for another call (tool, vault or arguments): idempotency_key_reused',
        ),
        TooManyRequests: {
          ...errorResponse(429, 'Rate limit reached; retry after Retry-After seconds'),
          headers: {
            'X-Request-Id': { $ref: '#/components/headers/RequestId' },
            'Retry-After': { schema: { type: 'integer' } },
          },
        },
        ServiceUnavailable: errorResponse(
          503,
          "The store's write lock stayed held by another process (a second serve, a sync, an import) past the busy timeout; nothing was written, retry in a moment",
        ),
      },
    },
  };
}
