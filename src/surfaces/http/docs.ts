/**
 * The API reference a person opens in a browser: `GET /docs`, Swagger UI (the `swagger-ui-dist` package's bundle
 * and stylesheet, copied into dist/docs-vendor/ by the build and served from this install: no CDN, works offline)
 * over the OpenAPI document this listener publishes. No key is asked:
 * the page and its copy of the document hold the tool catalog only, never vault data, and a browser cannot send
 * a bearer header on navigation. "Try it out" is off: calls need a key, which a page should not be handed.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DOCS_PATH } from '../../core/rest-paths.js';
import { PACKAGE_ROOT } from '../../package-info.js';

export { DOCS_PATH };

// Everything from 'self', nothing inline but Swagger UI's own style attributes.
// Not frameable, like the OAuth pages (src/auth/oauth/pages.ts): a page of this listener is never shown inside another site's.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vault-tools API reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="api-reference"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '${DOCS_PATH}/openapi.json',
  dom_id: '#api-reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  supportedSubmitMethods: [],
  validatorUrl: null,
});
`;

/**
 * The files Swagger UI itself ships, read once when first asked for. The build copies them from swagger-ui-dist
 * (a dev dependency: an installed vault-tools neither depends on it nor runs its install-analytics script).
 */
const VENDOR: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};
const vendorCache = new Map<string, Buffer>();

function vendorFile(name: string): Buffer {
  let bytes = vendorCache.get(name);
  if (!bytes) vendorCache.set(name, (bytes = readFileSync(join(PACKAGE_ROOT, 'dist', 'docs-vendor', name))));
  return bytes;
}

function send(res: ServerResponse, requestId: string, type: string, body: string | Buffer): void {
  res.writeHead(200, [
    'Content-Type',
    type,
    'Content-Length',
    String(Buffer.byteLength(body)),
    'Content-Security-Policy',
    CSP,
    'X-Content-Type-Options',
    'nosniff',
    'X-Frame-Options',
    'DENY',
    'Referrer-Policy',
    'same-origin',
    'Cache-Control',
    'no-cache',
    'X-Request-Id',
    requestId,
  ]);
  res.end(body);
}

/**
 * Answers `GET /docs` (asset undefined) or `GET /docs/<asset>`; false for an asset it does not have. The
 * OpenAPI document is the listener's own (`openApi()`), the same one `GET ${PATHS.openapi}` gives with a key.
 */
export function sendDocs(
  res: ServerResponse,
  requestId: string,
  asset: string | undefined,
  openApi: () => unknown,
): boolean {
  if (asset === undefined) send(res, requestId, 'text/html; charset=utf-8', PAGE);
  else if (asset === 'init.js') send(res, requestId, 'text/javascript; charset=utf-8', INIT);
  else if (asset === 'openapi.json') send(res, requestId, 'application/json; charset=utf-8', JSON.stringify(openApi()));
  else if (Object.hasOwn(VENDOR, asset)) send(res, requestId, VENDOR[asset]!, vendorFile(asset));
  else return false;
  return true;
}
