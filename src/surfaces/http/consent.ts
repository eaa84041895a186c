/**
 * The OAuth consent page (docs/oauth.md): a server-rendered form (no script, no CDN) that names the client and the host its
 * redirect goes to, asks for a key of this store (proof the person holds one; pasted, never kept by the
 * page), and lets them pick the vaults (a subset of the key's) and, for a manager key only, manager actions.
 * CSRF: the form carries an HMAC of the interaction id under a per-process secret, and the interaction
 * cookie oidc-provider set binds the POST to the browser that started the flow. Not frameable.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { quoted, ServiceError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { log } from '../../log.js';
import type { Store } from '../../service/open.js';
import { readBody } from './body.js';
import { authenticate } from '../../auth/keys.js';
import { OAUTH_SCOPE } from '../../auth/oauth/server.js';
import { recordGrant, vaultChoices } from '../../auth/oauth/grants.js';

const CONSENT_BODY_LIMIT = 16 * 1024;
const secret = randomBytes(32);
const csrfOf = (uid: string) => createHmac('sha256', secret).update(uid).digest('base64url');

function csrfMatches(uid: string, given: string | undefined): boolean {
  const want = Buffer.from(csrfOf(uid));
  const got = Buffer.from(given ?? '');
  return got.length === want.length && timingSafeEqual(got, want);
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  // Not no-referrer: under it a browser sends `Origin: null` with the form's POST, which the listener refuses.
  // same-origin still tells the client's site nothing (no Referer on the redirect there).
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

interface ConsentRequest {
  uid: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  resource: string;
  /** the scopes the client asked for (the provider has dropped those it does not know) */
  scope: string;
}

async function consentRequest(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<ConsentRequest> {
  const details = await provider.interactionDetails(req, res);
  const params = details.params as Record<string, string | undefined>;
  const client = await provider.Client.find(params.client_id ?? '');
  if (!client) throw new ServiceError('invalid_request', 'The client of this authorization request is no longer known; start again from the app.');
  const redirect = params.redirect_uri ?? client.redirectUris?.[0] ?? '';
  return {
    uid: details.uid,
    clientId: client.clientId,
    clientName: client.clientName ?? client.clientId,
    redirectHost: URL.parse(redirect)?.host ?? redirect,
    resource: params.resource ?? '',
    scope: params.scope ?? '',
  };
}

function page(res: ServerResponse, status: number, c: ConsentRequest, vaults: { id: string; name: string }[], error?: string): void {
  const vaultBoxes = vaults
    .map((v) => `<label><input type="checkbox" name="vault" value="${escape(v.id)}"> ${escape(v.name)} <small>(${escape(v.id)})</small></label>`)
    .join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Allow ${escape(c.clientName)}? · vault-tools</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}.who{background:#f4f4f6;border-radius:8px;padding:.8rem 1rem}.err{background:#fde8e8;color:#8a1010;border-radius:8px;padding:.6rem 1rem}
label{display:block;margin:.3rem 0}input[type=password]{width:100%;box-sizing:border-box;padding:.4rem;font:inherit}fieldset{border:1px solid #ccc;border-radius:8px;margin:1rem 0}
button{font:inherit;padding:.5rem 1.2rem;margin-right:.6rem;border-radius:6px;border:1px solid #888}button.ok{background:#1a5fd0;color:#fff;border-color:#1a5fd0}</style></head>
<body><h1>Allow <strong>${escape(c.clientName)}</strong> to use your vaults?</h1>
<div class="who"><p>Client: <code>${escape(c.clientId)}</code> (the name above is what the client calls itself)</p><p>After you answer, your browser goes back to <strong>${escape(c.redirectHost)}</strong>.</p></div>
${error ? `<p class="err" role="alert">${escape(error)}</p>` : ''}
<form method="post" autocomplete="off">
<input type="hidden" name="csrf" value="${csrfOf(c.uid)}">
<fieldset><legend>Prove you hold a key of this store</legend>
<label for="key">Key (<code>vt_…</code>; <code>vault-tools keys create</code> makes one). It is checked once and not kept.</label>
<input type="password" id="key" name="key" required></fieldset>
<fieldset><legend>Vaults the client may reach (only those your key reaches count)</legend>
${vaultBoxes || '<p>This store has no vaults yet.</p>'}</fieldset>
<fieldset><legend>Manager actions</legend><label><input type="checkbox" name="manager" value="1"> Also allow manager-only actions (needs a manager key)</label></fieldset>
<button class="ok" type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
}

/** Checks the person's choice against their key; a message naming what is wrong, or the grant's vaults and role. */
function checkChoice(principal: Principal, vaults: string[], manager: boolean): { error: string } | { vaults: string[]; role: 'member' | 'manager' } {
  if (!vaults.length) return { error: 'Pick at least one vault.' };
  const outside = vaults.filter((v) => !principal.allVaults && !principal.vaultIds.has(v));
  if (outside.length) return { error: `Your key does not reach ${outside.map(quoted).join(', ')}; a client can get only vaults your key reaches.` };
  if (manager && principal.role !== 'manager') return { error: 'Manager actions need a manager key; yours is a member key.' };
  return { vaults, role: manager ? 'manager' : 'member' };
}

/** GET and POST /oauth/consent/{uid}. */
export async function handleConsent(db: Store, provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let c: ConsentRequest;
  try {
    c = await consentRequest(provider, req, res);
  } catch (err) {
    log.debug(`consent: ${(err as Error).message}`);
    const html = '<!doctype html><meta charset="utf-8"><title>Expired · vault-tools</title><p>This authorization request is unknown or has expired (10 minutes). Start again from the app.</p>';
    res.writeHead(400, { ...PAGE_HEADERS, 'Content-Length': Buffer.byteLength(html) });
    return void res.end(html);
  }
  const vaults = vaultChoices(db);
  if (req.method === 'GET') return page(res, 200, c, vaults);
  if (req.method !== 'POST') throw new ServiceError('method_not_allowed', `${req.method} is not allowed on the consent page; use GET or POST.`);
  const form = new URLSearchParams((await readBody(req, CONSENT_BODY_LIMIT)).toString('utf8'));
  if (!csrfMatches(c.uid, form.get('csrf') ?? undefined)) return page(res, 403, c, vaults, 'The form was not sent from this page (CSRF check failed). Nothing was granted. Reload and try again.');
  if (form.get('decision') === 'deny') {
    return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined.' }, { mergeWithLastSubmission: false });
  }
  let principal: Principal;
  try {
    principal = authenticate(db, form.get('key') ?? undefined);
  } catch (err) {
    return page(res, 401, c, vaults, `${(err as Error).message} Nothing was granted.`);
  }
  const choice = checkChoice(principal, form.getAll('vault'), form.get('manager') === '1');
  if ('error' in choice) return page(res, 403, c, vaults, `${choice.error} Nothing was granted.`);
  const grant = new provider.Grant({ accountId: principal.keyId, clientId: c.clientId });
  // The grant covers what the client asked for, so the provider asks no second time; what it reaches is the grant row's.
  grant.addOIDCScope(c.scope.split(' ').filter((s) => s === 'offline_access' || s === OAUTH_SCOPE).join(' '));
  grant.addResourceScope(c.resource || `${provider.issuer}/`, OAUTH_SCOPE);
  const grantId = await grant.save();
  recordGrant(db, { id: grantId, keyId: principal.keyId, clientId: c.clientId, clientName: c.clientName, redirectHost: c.redirectHost, role: choice.role, vaults: choice.vaults });
  log.info(`OAuth: ${principal.keyId} approved ${c.clientName} (${c.clientId}) for ${choice.vaults.join(', ')} as ${choice.role}`);
  await provider.interactionFinished(req, res, { login: { accountId: principal.keyId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}
