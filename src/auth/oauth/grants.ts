/**
 * What a person approved on the consent page, as a credential: the principal a grant's tokens act as. A grant
 * never reaches further than the key that approved it, now: a vault the key lost, a role it lost, the key
 * revoked or expired, and the grant's tokens lose them too.
 */
import { ServiceError } from '../../core/errors.js';
import type { Principal, Role } from '../../core/principal.js';
import type { Db } from '../../store/db.js';
import {
  claimOAuthOnce,
  insertOAuthGrant,
  keepOAuthClient,
  listOAuthGrantRows,
  oauthGrantRow,
  revokeOAuthGrantRow,
  touchOAuthGrant,
  type OAuthGrantRow,
} from '../../store/oauth.js';
import { reachableVaults } from '../../store/vaults.js';
import { getKey, hashKey } from '../keys.js';
import { isoUtc } from '../../time.js';

export interface GrantInfo {
  id: string;
  keyId: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  role: Role;
  vaults: string[];
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export const GRANT_ID_PREFIX = 'grant_';

function toInfo(row: OAuthGrantRow): GrantInfo {
  return {
    id: `${GRANT_ID_PREFIX}${row.id}`,
    keyId: row.key_id,
    clientId: row.client_id,
    clientName: row.client_name,
    redirectHost: row.redirect_host,
    role: row.role,
    vaults: JSON.parse(row.vaults_json) as string[],
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * What the consent page offers once a key is proven: the vaults that key reaches, and no other. Before that it
 * offers none: the page is open to anyone who registers a client, and a credential that cannot reach a vault
 * learns nothing about it, not even that it exists (docs/oauth.md).
 */
export function vaultChoices(db: Db, principal: Principal): { id: string; name: string }[] {
  return reachableVaults(db, principal).map((v) => ({ id: v.id, name: v.name }));
}

/** What a person approved on the consent page, under the library's grant id; its client, if registered here, stops expiring. */
export function recordGrant(db: Db, g: Omit<GrantInfo, 'createdAt' | 'revokedAt' | 'lastUsedAt'>): void {
  keepOAuthClient(db, hashKey(g.clientId));
  insertOAuthGrant(db, {
    id: g.id,
    key_id: g.keyId,
    client_id: g.clientId,
    client_name: g.clientName,
    redirect_host: g.redirectHost,
    role: g.role,
    vaults_json: JSON.stringify(g.vaults),
    created_at: isoUtc(Date.now()),
  });
}

/**
 * A consent form is good for one answer: true the first time the authorization request `uid` is answered, false
 * for every later POST of the same form (a double click, a replay), in this listener or another on the store.
 */
export function answerOnce(db: Db, uid: string, expiresAt: number): boolean {
  return claimOAuthOnce(db, 'ConsentAnswered', hashKey(uid), expiresAt);
}

export function listGrants(db: Db): GrantInfo[] {
  return listOAuthGrantRows(db).map(toInfo);
}

/** `keys revoke grant_…`: the grant and every code and token it issued end at once. */
export function revokeGrant(db: Db, shownId: string): GrantInfo {
  const id = shownId.slice(GRANT_ID_PREFIX.length);
  const revoked = revokeOAuthGrantRow(db, id, isoUtc(Date.now()));
  const row = oauthGrantRow(db, id);
  if (!row)
    throw new ServiceError('not_found', `No OAuth grant "${shownId}". \`vault-tools keys list\` shows the grants.`);
  if (!revoked)
    throw new ServiceError('invalid_arguments', `OAuth grant "${shownId}" was already revoked at ${row.revoked_at}.`);
  return toInfo(row);
}

/** Last-used times are written at most once a minute per grant: a write per request would cost more than the request. */
const TOUCH_EVERY_MS = 60_000;
const lastTouched = new Map<string, number>();

/** The principal of a grant's token, or 401 when the grant or its key no longer stands. */
export function grantPrincipal(db: Db, grantId: string, now = new Date()): Principal {
  const row = oauthGrantRow(db, grantId);
  if (!row || row.revoked_at)
    throw new ServiceError('unauthorized', "The access token's grant was revoked; authorize the client again.");
  const key = getKey(db, row.key_id);
  if (!key || key.revokedAt || (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime())) {
    throw new ServiceError(
      'unauthorized',
      `The key that approved this client (${row.key_id}) was revoked or expired, and its grants with it; authorize the client again with a valid key.`,
    );
  }
  const approved = JSON.parse(row.vaults_json) as string[];
  const vaultIds = key.vaults === '*' ? approved : approved.filter((v) => (key.vaults as string[]).includes(v));
  if (now.getTime() - (lastTouched.get(row.id) ?? 0) > TOUCH_EVERY_MS) {
    lastTouched.set(row.id, now.getTime());
    touchOAuthGrant(db, row.id, isoUtc(now));
  }
  return Object.freeze({
    keyId: `${GRANT_ID_PREFIX}${row.id}`,
    name: `${row.client_name} (OAuth, approved with ${key.prefix}…)`,
    role: row.role === 'manager' && key.role === 'manager' ? 'manager' : 'member',
    allVaults: false,
    vaultIds: new Set(vaultIds),
  });
}
