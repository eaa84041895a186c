/**
 * oidc-provider's storage on the store's SQLite: one table for every model (codes, tokens, sessions,
 * interactions, registered clients). Records are found by the SHA-256 of their id: an opaque token's id is
 * the token itself, so the table holds no token a reader of the file could use. For those models the
 * payload's `jti` (the same id) is left out on write and put back on read, for the same reason.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../store/db.js';
import {
  consumeOAuthRecord,
  deleteOAuthRecord,
  deleteExpiredOAuthRecords,
  oauthRecord,
  oauthRecordByColumn,
  revokeOAuthGrantRow,
  upsertOAuthRecord,
  type OAuthRecordRow,
} from '../../store/oauth.js';
import { hashKey } from '../keys.js';
import { UNUSED_CLIENT_TTL_S } from './bounds.js';
import { isoUtc } from '../../time.js';

/** The models whose id is a credential a client presents: their id is never stored. Sessions and interactions are found by uid too, so they keep theirs. */
const SECRET_IDS = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'RegistrationAccessToken',
]);

const PURGE_EVERY_WRITES = 200;

/**
 * The library stores a registered client with no expiry; here it gets one (bounds.ts), cleared when a person
 * approves it (grants.ts), so a client that never got a grant is forgotten and purged.
 */
function expiryOf(model: string, expiresIn: number | undefined, now = Date.now()): number | null {
  if (expiresIn) return now + expiresIn * 1000;
  return model === 'Client' ? now + UNUSED_CLIENT_TTL_S * 1000 : null;
}

function payloadOf(row: OAuthRecordRow | undefined, id?: string): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  if (id !== undefined) payload.jti = id;
  if (row.consumed_at !== null) payload.consumed = Math.floor(row.consumed_at / 1000);
  return payload;
}

/** The adapter class oidc-provider instantiates once per model name. */
export function sqliteAdapter(db: Db): new (model: string) => Adapter {
  // Expired records are never found; every so many writes they are also deleted, so a long-running listener's table stays small.
  let writes = 0;
  return class SqliteAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const stored = SECRET_IDS.has(this.model) ? { ...payload, jti: undefined } : payload;
      upsertOAuthRecord(db, {
        model: this.model,
        idHash: hashKey(id),
        payload: JSON.stringify(stored),
        grantId: payload.grantId,
        uid: payload.uid,
        userCode: payload.userCode,
        expiresAt: expiryOf(this.model, expiresIn),
      });
      if (++writes % PURGE_EVERY_WRITES === 0) deleteExpiredOAuthRecords(db);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return payloadOf(oauthRecord(db, this.model, hashKey(id)), SECRET_IDS.has(this.model) ? id : undefined);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(oauthRecordByColumn(db, this.model, 'uid', uid));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return payloadOf(oauthRecordByColumn(db, this.model, 'user_code', userCode));
    }

    async consume(id: string): Promise<void> {
      consumeOAuthRecord(db, this.model, hashKey(id));
    }

    async destroy(id: string): Promise<void> {
      deleteOAuthRecord(db, this.model, hashKey(id));
    }

    /** The library ends a whole grant on a reused refresh token or code, or a revoked refresh token: so does `keys list`. */
    async revokeByGrantId(grantId: string): Promise<void> {
      revokeOAuthGrantRow(db, grantId, isoUtc(Date.now()));
    }
  };
}
