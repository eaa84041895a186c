/**
 * The listener as its own OAuth authorization server, on oidc-provider (panva's OpenID-certified
 * implementation): authorization code with PKCE (S256 only), refresh tokens rotated with reuse detection
 * (a reused refresh token revokes its whole grant), revocation (RFC 7009), `iss` in the authorization
 * response (RFC 9207), resource indicators (RFC 8707), dynamic registration (RFC 7591) and client ID
 * metadata documents (fetched with the library's SSRF guard: https, public addresses, 5 KB, cached).
 * Nothing here formats a token or signs anything by hand. Its endpoints live under /oauth/.
 */
import { log } from '../../log.js';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';
import { quoted, ServiceError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { Db } from '../../store/db.js';
import { deleteExpiredOAuthRecords } from '../../store/oauth.js';
import { getKey } from '../keys.js';
import { sqliteAdapter } from './adapter.js';
import { clientMetadataProblem, OAuthBounds, type Refusal, type TrustedProxies } from './bounds.js';
import { escapeHtml, PAGE_HEADERS, pageHtml, sendPage } from './pages.js';
import { printable } from '../../core/printable.js';
import { DOCS_PATH } from '../../core/rest-paths.js';
import { grantPrincipal } from './grants.js';

export const OAUTH_PREFIX = '/oauth/';
export const CONSENT_PATH = '/oauth/consent/';
export const PRM_PATH = '/.well-known/oauth-protected-resource';
const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';
const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration';
/** The one scope a grant carries; what it reaches (vaults, role) is what the person picked on the consent page. */
export const OAUTH_SCOPE = 'vaults';

export const ACCESS_TOKEN_TTL_S = 60 * 60;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 60 * 60;

export interface OAuthOptions {
  /** the URL clients reach this listener at: issuer and resource (https, or http on loopback) */
  publicUrl: string;
  /** the listener sits behind a tunnel or proxy (--public-url): every URL it publishes comes from publicUrl */
  behindProxy?: boolean;
  /** the proxies whose X-Forwarded-For names the caller (--trust-proxy); none by default */
  trustedProxies?: TrustedProxies;
  /** test-only: fetch client ID metadata documents from loopback too (never on by default) */
  allowLoopbackClientMetadata?: boolean;
}

export interface OAuthServer {
  provider: Provider;
  issuer: string;
  /** this listener's resource identifiers (RFC 8707): the whole API, and the MCP endpoint */
  resources: string[];
  /** the PRM URL that every 401 names */
  resourceMetadataUrl: string;
  /** answers the request when it is an OAuth one (metadata, authorize, token…); false when it is not */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /** the principal of an access token issued here, or 401 */
  principalOf(token: string): Promise<Principal>;
}

/**
 * oidc-provider (and koa under it), loaded on the first listener that wants it: stdio start-up never pays for it.
 * Its notices are written with console.info, to stdout, which in stdio mode carries only MCP messages: they go to
 * our log (stderr) while it loads and builds its provider. Its one start-up warning ("Unsupported runtime": on
 * Node 20, and on any release not tagged LTS, such as 26.10.0) is logged at debug level: the OAuth tests pass on
 * every line package.json supports, and a warning on every `serve --http` would only alarm.
 */
async function loadOidcProvider(): Promise<typeof import('oidc-provider')> {
  return onStderr(() => import('oidc-provider'));
}

async function onStderr<T>(work: () => Promise<T> | T): Promise<T> {
  const { info, warn } = console;
  const say =
    (level: 'info' | 'warn') =>
    (...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (/Unsupported runtime/.test(text)) log.debug(text);
      else log[level](text);
    };
  console.info = say('info');
  console.warn = say('warn');
  try {
    return await work();
  } finally {
    Object.assign(console, { info, warn });
  }
}

export async function createOAuthServer(db: Db, options: OAuthOptions, mcpPath: string): Promise<OAuthServer> {
  const { default: Provider, errors } = await loadOidcProvider();
  const issuer = options.publicUrl.replace(/\/+$/, '');
  const resources = [`${issuer}/`, `${issuer}${mcpPath}`];
  // A signing key for the library's own use (ID tokens, which nothing here asks for): new each start, never written down.
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const configuration: Configuration = {
    adapter: sqliteAdapter(db),
    clients: [],
    findAccount: async (_ctx, id) =>
      getKey(db, id)?.revokedAt === null ? { accountId: id, claims: async () => ({ sub: id }) } : undefined,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' }] as never },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] } as never,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    scopes: ['offline_access', OAUTH_SCOPE],
    // A client's name and redirect URIs, beyond the library's checks (bounds.ts): the library calls this for each
    // property listed, and client_name is one every client has (or lacks), so it runs once per client's metadata.
    extraClientMetadata: {
      properties: ['client_name'],
      validator: (_ctx, _key, _value, metadata) => {
        const problem = clientMetadataProblem(metadata as never);
        if (problem) throw new errors.InvalidClientMetadata(problem);
      },
    },
    // The library's error page, without its web font from a public host, under the consent page's headers.
    renderError: async (ctx, out) => {
      ctx.set(PAGE_HEADERS);
      ctx.type = 'html';
      ctx.body = errorPage(out as unknown as Record<string, unknown>);
    },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      revocation: '/oauth/revoke',
      registration: '/oauth/register',
      jwks: '/oauth/jwks',
    },
    pkce: { required: () => true },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Interaction: 10 * 60,
      Session: 10 * 60,
      Grant: REFRESH_TOKEN_TTL_S,
    },
    // Every authorization asks the person: a browser session never approves a client on its own.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    interactions: { url: (_ctx, interaction) => `${CONSENT_PATH}${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      // Nothing here uses them: no end-session (logout) page, no userinfo, no pushed requests, no DPoP (a token
      // is checked as a bearer token only, so a DPoP binding would be promised and not kept).
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resources[0]!,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
          if (!resources.includes(indicator)) {
            throw new errors.InvalidTarget(
              `this server issues tokens only for ${resources.join(' and ')}, not for ${quoted(indicator)}`,
            );
          }
          return {
            scope: OAUTH_SCOPE,
            audience: indicator,
            accessTokenFormat: 'opaque',
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
          };
        },
      },
    } as never,
  };
  if (options.allowLoopbackClientMetadata) configuration.fetch = loopbackAllowingFetch;
  const provider = await onStderr(() => new Provider(issuer, configuration));
  // Behind a tunnel or proxy every URL the provider makes (metadata endpoints, redirects) comes from the public
  // URL alone: the forwarded headers it reads are set to the public URL's on every request, whatever the caller sent.
  if (options.behindProxy) provider.proxy = true;
  const publicOrigin = new URL(issuer);
  const callback = provider.callback();
  const bounds = new OAuthBounds(db, options.trustedProxies ?? []);
  deleteExpiredOAuthRecords(db);

  const prm = (resource: string) => ({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [OAUTH_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'vault-tools',
    resource_documentation: `${issuer}${DOCS_PATH}`,
  });

  return {
    provider,
    issuer,
    resources,
    resourceMetadataUrl: `${issuer}${PRM_PATH}`,
    async handle(req, res, path) {
      if (path === PRM_PATH || path === `${PRM_PATH}/`) return sendMetadata(res, prm(resources[0]!));
      if (path === `${PRM_PATH}${mcpPath}`) return sendMetadata(res, prm(resources[1]!));
      if (path === AS_METADATA_PATH)
        req.url = OIDC_DISCOVERY_PATH; // the same document (RFC 8414 and OIDC discovery)
      else if (path !== OIDC_DISCOVERY_PATH && !path.startsWith(OAUTH_PREFIX)) return false;
      const refusal = bounds.check(req, path);
      if (refusal) return sendRefusal(res, refusal, OAuthBounds.isPage(path));
      if (options.behindProxy) {
        req.headers['x-forwarded-host'] = publicOrigin.host;
        req.headers['x-forwarded-proto'] = publicOrigin.protocol.slice(0, -1);
      }
      for (const [name, value] of Object.entries(PAGE_HEADERS)) if (name !== 'Content-Type') res.setHeader(name, value);
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        res.once('finish', resolve);
        callback(req, res);
      });
      return true;
    },
    async principalOf(token) {
      const accessToken = await provider.AccessToken.find(token);
      if (!accessToken || accessToken.isExpired)
        throw new ServiceError(
          'unauthorized',
          'The access token is not valid here: unknown, expired or revoked. Refresh it or authorize again.',
        );
      const audience = ([] as unknown[]).concat(accessToken.aud);
      if (!audience.some((a) => typeof a === 'string' && resources.includes(a))) {
        throw new ServiceError(
          'unauthorized',
          `The access token was issued for another resource; this server is ${resources[0]}.`,
        );
      }
      return grantPrincipal(db, accessToken.grantId!);
    },
  };
}

/**
 * Test-only (VAULT_TOOLS_TEST_LOOPBACK_CLIENT_METADATA=1, never on by default): a metadata document on a
 * loopback address is fetched without the library's guard, which refuses every special-use address at connect
 * time. Every other address keeps the guard; https, the size and time caps stay for all.
 */
const loopbackAllowingFetch = ((url: string | URL, init: RequestInit & { dispatcher?: unknown }) => {
  const host = new URL(url).hostname;
  if (host === '127.0.0.1' || host === '[::1]' || host === 'localhost') delete init.dispatcher;
  return fetch(url, init);
}) as unknown as NonNullable<Configuration['fetch']>;

/** The library's error page: what went wrong, in its words (escaped), and where to go from here. */
function errorPage(out: Record<string, unknown>): string {
  const rows = Object.entries(out)
    .filter(([, v]) => typeof v === 'string')
    .map(([k, v]) => `<p><strong>${escapeHtml(k)}</strong>: ${escapeHtml(printable(v as string))}</p>`)
    .join('\n');
  return pageHtml(
    'Authorization failed',
    `<h1>Authorization failed</h1>\n<div class="err" role="alert">${rows}</div>\n<p>Nothing was granted. Start again from the app.</p>`,
  );
}

/** A request refused before the library saw it: a page for a browser (authorize), else the OAuth JSON error. */
function sendRefusal(res: ServerResponse, r: Refusal, asPage: boolean): true {
  const headers: Record<string, string> = {
    Connection: 'close',
    ...(r.retryAfter ? { 'Retry-After': String(r.retryAfter) } : {}),
  };
  if (asPage) {
    sendPage(
      res,
      r.status,
      pageHtml(
        'Authorization refused',
        `<h1>Authorization refused</h1>\n<p class="err" role="alert">${escapeHtml(r.description)}</p>\n<p>Nothing was stored.</p>`,
      ),
      headers,
    );
    return true;
  }
  const payload = JSON.stringify({ error: r.error, error_description: r.description });
  res.writeHead(r.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(payload);
  return true;
}

function sendMetadata(res: ServerResponse, body: unknown): true {
  const payload = JSON.stringify(body);
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'max-age=300',
    'Access-Control-Allow-Origin': '*',
  });
  res.end(payload);
  return true;
}
