/**
 * The OAuth consent page (docs/oauth.md): a server-rendered form (no script, no CDN) that names the client and where
 * its redirect goes (the site's host, or the whole URI of an app's own scheme), in two steps. First it asks for a
 * key of this store (proof the person holds one; pasted, never kept by the page) and shows no vault: anyone can
 * register a client and open this page, and a credential that cannot reach a vault learns nothing about it. Then
 * it lists the vaults that key reaches, and manager actions for a manager key only, to pick from.
 * CSRF: the form carries an HMAC of the interaction id under a per-process secret, and the interaction
 * cookie oidc-provider set binds the POST to the browser that started the flow. The second step carries the key's
 * id and an HMAC binding it to this interaction (never the key): the key is re-read, so one revoked meanwhile fails.
 * Not frameable.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { quoted, ServiceError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { log } from '../../log.js';
import type { Store } from '../../service/open.js';
import { readBody } from './body.js';
import { authenticate, principalOfKeyId } from '../../auth/keys.js';
import { OAUTH_SCOPE } from '../../auth/oauth/server.js';
import { isLoopbackHost } from '../../auth/oauth/bounds.js';
import { escapeHtml, pageHtml, sendPage } from '../../auth/oauth/pages.js';
import { printable } from '../../core/printable.js';
import { answerOnce, recordGrant, vaultChoices } from '../../auth/oauth/grants.js';

const CONSENT_BODY_LIMIT = 16 * 1024;
/** the scopes a grant carries when asked for (the provider knows no others) */
const GRANTABLE_SCOPES = new Set(['openid', 'offline_access', OAUTH_SCOPE]);
const secret = randomBytes(32);
const macOf = (...parts: string[]) => createHmac('sha256', secret).update(parts.join('\n')).digest('base64url');
const csrfOf = (uid: string) => macOf('csrf', uid);
/** That the key `keyId` was proven on the first step of the consent form `uid`. */
const proofOf = (uid: string, keyId: string) => macOf('key-proven', uid, keyId);

function macMatches(want: string, given: string | null): boolean {
  const a = Buffer.from(want);
  const b = Buffer.from(given ?? '');
  return a.length === b.length && timingSafeEqual(a, b);
}

interface ConsentRequest {
  uid: string;
  clientId: string;
  clientName: string;
  /** where the browser goes after the answer, as the page names it: a site's host, or a whole URI (redirectShown) */
  destination: { shown: string; site: boolean };
  /** the resources the client asked for (RFC 8707 allows several; each was checked by the provider) */
  resources: string[];
  /** the scopes the client asked for (the provider has dropped those it does not know) */
  scope: string;
  /** when the authorization request expires (ms since the epoch) */
  expiresAt: number;
}

/**
 * Where the browser goes, as a person can judge it: the host of an https (or loopback http) redirect URI, which
 * is the site itself; any other redirect URI whole. `myapp://claude.ai/cb` opens whatever app claimed `myapp:`,
 * so "claude.ai" alone would name a site the browser never reaches, and `com.example.app:/cb` has no host at all.
 */
export function redirectShown(uri: string): { shown: string; site: boolean } {
  const url = URL.parse(uri);
  if (url && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) && url.host)
    return { shown: url.host, site: true };
  return { shown: uri, site: false };
}

const asList = (v: unknown): string[] =>
  ([] as unknown[]).concat(v ?? []).filter((x): x is string => typeof x === 'string' && x !== '');

async function consentRequest(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<ConsentRequest> {
  const details = await provider.interactionDetails(req, res);
  const params = details.params as Record<string, unknown>;
  const client = await provider.Client.find(typeof params.client_id === 'string' ? params.client_id : '');
  if (!client)
    throw new ServiceError(
      'invalid_request',
      'The client of this authorization request is no longer known; start again from the app.',
    );
  const redirect = typeof params.redirect_uri === 'string' ? params.redirect_uri : (client.redirectUris?.[0] ?? '');
  return {
    uid: details.uid,
    clientId: client.clientId,
    clientName: client.clientName ?? client.clientId,
    destination: redirectShown(redirect),
    resources: asList(params.resource),
    scope: typeof params.scope === 'string' ? params.scope : '',
    expiresAt: details.exp * 1000,
  };
}

const CONSENT_STYLE = `label{display:block;margin:.3rem 0}input[type=password]{width:100%;box-sizing:border-box;padding:.4rem;font:inherit}fieldset{border:1px solid #ccc;border-radius:8px;margin:1rem 0}
button{font:inherit;padding:.5rem 1.2rem;margin-right:.6rem;border-radius:6px;border:1px solid #888}button.ok{background:#1a5fd0;color:#fff;border-color:#1a5fd0}`;

/** The person's key, once proven on the first step: the second step shows what it reaches. */
interface Proven {
  principal: Principal;
  vaults: { id: string; name: string }[];
}

function page(
  res: ServerResponse,
  status: number,
  c: ConsentRequest,
  proven: Proven | undefined,
  error?: string,
): void {
  const goes = c.destination.site
    ? `your browser goes back to <strong>${escapeHtml(c.destination.shown)}</strong>`
    : `your browser opens <code>${escapeHtml(c.destination.shown)}</code> (not a web site: whatever app on this device claimed that address)`;
  const body = `<h1>Allow <strong>${escapeHtml(c.clientName)}</strong> to use your vaults?</h1>
<div class="who"><p>Client: <code>${escapeHtml(c.clientId)}</code> (the name above is what the client calls itself)</p><p>After you answer, ${goes}.</p></div>
${error ? `<p class="err" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" autocomplete="off">
<input type="hidden" name="csrf" value="${csrfOf(c.uid)}">
${proven ? chooseStep(c, proven) : keyStep()}
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form>`;
  sendPage(res, status, pageHtml(`Allow ${c.clientName}?`, body, CONSENT_STYLE));
}

/** Step one: a key, and nothing of the store. */
const keyStep = () => `<fieldset><legend>Prove you hold a key of this store</legend>
<label for="key">Key (<code>vt_…</code>; <code>vault-tools keys create</code> makes one). It is checked once and not kept. The vaults it reaches are shown next.</label>
<input type="password" id="key" name="key" required></fieldset>
<button class="ok" type="submit" name="decision" value="continue">Continue</button>`;

/** Step two: the vaults the proven key reaches, and manager actions for a manager key. */
function chooseStep(c: ConsentRequest, { principal, vaults }: Proven): string {
  const boxes = vaults
    .map(
      (v) =>
        `<label><input type="checkbox" name="vault" value="${escapeHtml(v.id)}"> ${escapeHtml(v.name)} <small>(${escapeHtml(v.id)})</small></label>`,
    )
    .join('\n');
  const manager =
    principal.role === 'manager'
      ? '<fieldset><legend>Manager actions</legend><label><input type="checkbox" name="manager" value="1"> Also allow manager-only actions</label></fieldset>'
      : '';
  return `<input type="hidden" name="key_id" value="${escapeHtml(principal.keyId)}"><input type="hidden" name="proof" value="${proofOf(c.uid, principal.keyId)}">
<p>Key <strong>${escapeHtml(principal.name)}</strong> (${principal.role}) is proven.</p>
<fieldset><legend>Vaults the client may reach</legend>
${boxes || '<p>Your key reaches no vault of this store yet.</p>'}</fieldset>
${manager}
<button class="ok" type="submit" name="decision" value="approve"${vaults.length ? '' : ' disabled'}>Allow</button>`;
}

/** A page that is not the form: an expired request, a form answered already. */
function notice(res: ServerResponse, status: number, title: string, text: string): void {
  sendPage(res, status, pageHtml(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>`));
}

/** Checks the person's choice against their key; a message naming what is wrong, or the grant's vaults and role. */
function checkChoice(
  principal: Principal,
  vaults: string[],
  manager: boolean,
): { error: string } | { vaults: string[]; role: 'member' | 'manager' } {
  if (!vaults.length) return { error: 'Pick at least one vault.' };
  const outside = vaults.filter((v) => !principal.allVaults && !principal.vaultIds.has(v));
  if (outside.length)
    return {
      error: `Your key does not reach ${outside.map(quoted).join(', ')}; a client can get only vaults your key reaches.`,
    };
  if (manager && principal.role !== 'manager')
    return { error: 'Manager actions need a manager key; yours is a member key.' };
  return { vaults, role: manager ? 'manager' : 'member' };
}

/**
 * The key behind a POST: the one pasted (step one, or a form that sends key and choice at once), or the one step
 * one proved, by id and the proof bound to this form. Throws `unauthorized` with a sentence for the page.
 */
function provenKey(db: Store, c: ConsentRequest, form: URLSearchParams): Principal {
  const keyId = form.get('key_id');
  if (form.get('key') === null && keyId !== null) {
    if (!macMatches(proofOf(c.uid, keyId), form.get('proof')))
      throw new ServiceError('unauthorized', 'The key proof of this form is not valid; enter your key again.');
    return principalOfKeyId(db, keyId);
  }
  return authenticate(db, form.get('key') ?? undefined);
}

/** GET and POST /oauth/consent/{uid}. */
export async function handleConsent(
  db: Store,
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let c: ConsentRequest;
  try {
    c = await consentRequest(provider, req, res);
  } catch (err) {
    log.debug(`consent: ${printable((err as Error).message)}`);
    return notice(
      res,
      400,
      'Expired',
      'This authorization request is unknown or has expired (10 minutes). Start again from the app.',
    );
  }
  if (req.method === 'GET') return page(res, 200, c, undefined);
  if (req.method !== 'POST')
    throw new ServiceError('method_not_allowed', `${req.method} is not allowed on the consent page; use GET or POST.`);
  const form = new URLSearchParams((await readBody(req, CONSENT_BODY_LIMIT)).toString('utf8'));
  if (!macMatches(csrfOf(c.uid), form.get('csrf')))
    return page(
      res,
      403,
      c,
      undefined,
      'The form was not sent from this page (CSRF check failed). Nothing was granted. Reload and try again.',
    );
  const answered = () =>
    notice(
      res,
      409,
      'Already answered',
      'This authorization request was answered already; a form is good for one answer. Nothing more was granted. Start again from the app.',
    );
  const decision = form.get('decision');
  if (decision === 'deny') {
    if (!answerOnce(db, c.uid, c.expiresAt)) return answered();
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The person declined.' },
      { mergeWithLastSubmission: false },
    );
  }
  let principal: Principal;
  try {
    principal = provenKey(db, c, form);
  } catch (err) {
    return page(res, 401, c, undefined, `${(err as Error).message} Nothing was granted.`);
  }
  const proven = { principal, vaults: vaultChoices(db, principal) };
  if (decision !== 'approve') return page(res, 200, c, proven);
  const choice = checkChoice(principal, form.getAll('vault'), form.get('manager') === '1');
  if ('error' in choice) return page(res, 403, c, proven, `${choice.error} Nothing was granted.`);
  // One answer per form: a second POST of the same form (a double click, a replay) grants nothing more.
  if (!answerOnce(db, c.uid, c.expiresAt)) return answered();
  const grant = new provider.Grant({ accountId: principal.keyId, clientId: c.clientId });
  // The grant covers what the client asked for (openid included: the token response then carries an ID token),
  // so the provider asks no second time; what it reaches is the grant row's.
  grant.addOIDCScope(
    c.scope
      .split(' ')
      .filter((s) => GRANTABLE_SCOPES.has(s))
      .join(' '),
  );
  for (const resource of c.resources.length ? c.resources : [`${provider.issuer}/`])
    grant.addResourceScope(resource, OAUTH_SCOPE);
  const grantId = await grant.save();
  recordGrant(db, {
    id: grantId,
    keyId: principal.keyId,
    clientId: c.clientId,
    clientName: c.clientName,
    redirectHost: c.destination.shown,
    role: choice.role,
    vaults: choice.vaults,
  });
  log.info(
    `OAuth: ${principal.keyId} approved ${printable(c.clientName, 200)} (${printable(c.clientId, 200)}) for ${choice.vaults.join(', ')} as ${choice.role}`,
  );
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: principal.keyId }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}
