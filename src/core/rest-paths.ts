/** The listener's paths, in one place: routes, the API index and the OpenAPI document all read them. */
export const API_VERSION = '2026-09-02';

export const PATHS = {
  index: '/v1',
  vaults: '/v1/vaults',
  tools: '/v1/tools',
  invokeTool: '/v1/tools/{tool_name}',
  openapi: '/v1/openapi.json',
  mcp: '/v1/mcp',
  file: '/v1/vaults/{vault}/files/{fileId}',
  artifact: '/v1/vaults/{vault}/artifacts/{artifactId}',
} as const;

/** The API reference page a person opens (Swagger UI, no key), and its copy of the OpenAPI document. */
export const DOCS_PATH = '/docs';
