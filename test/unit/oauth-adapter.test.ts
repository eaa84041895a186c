/**
 * The OAuth adapter on a real store (issue 36): a registered client expires unless a person approves it, and an
 * expired one is purged with the other expired records; a consent answer is claimed once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { sqliteAdapter } from '../../src/auth/oauth/adapter.js';
import { answerOnce, recordGrant } from '../../src/auth/oauth/grants.js';
import { UNUSED_CLIENT_TTL_S } from '../../src/auth/oauth/bounds.js';
import { createKey, hashKey } from '../../src/auth/keys.js';
import { tempDir } from '../helpers.js';

let db: Db;
let cleanup: () => void;
beforeAll(() => {
  const dir = tempDir();
  cleanup = dir.cleanup;
  db = openDb(dir.dir);
});
afterAll(() => {
  db?.close();
  cleanup?.();
});

const expiryOf = (clientId: string) =>
  (
    db.prepare("SELECT expires_at FROM oauth_records WHERE model = 'Client' AND id_hash = ?").get(hashKey(clientId)) as
      | { expires_at: number | null }
      | undefined
  )?.expires_at;

it('gives a registered client a day, keeps it once approved, and purges it when its day is over', async () => {
  const Adapter = sqliteAdapter(db);
  const clients = new Adapter('Client');
  await clients.upsert('unused', { client_id: 'unused' }, 0);
  await clients.upsert('approved', { client_id: 'approved' }, 0);
  expect(Math.abs(expiryOf('unused')! - (Date.now() + UNUSED_CLIENT_TTL_S * 1000))).toBeLessThan(5000);
  const approver = createKey(db, { name: 'approver', role: 'manager', vaults: '*' }).info.id;
  recordGrant(db, {
    id: 'g1',
    keyId: approver,
    clientId: 'approved',
    clientName: 'A',
    redirectHost: '127.0.0.1:9',
    role: 'member',
    vaults: ['v'],
  });
  expect(expiryOf('approved')).toBeNull();
  db.prepare("UPDATE oauth_records SET expires_at = ? WHERE model = 'Client' AND id_hash = ?").run(
    Date.now() - 1,
    hashKey('unused'),
  );
  expect(await clients.find('unused')).toBeUndefined();
  // The adapter purges expired records every so many writes.
  const sessions = new Adapter('Session');
  for (let i = 0; i < 200; i++) await sessions.upsert(`s${i}`, { uid: `u${i}` }, 600);
  expect(expiryOf('unused')).toBeUndefined();
  expect(await clients.find('approved')).toMatchObject({ client_id: 'approved' });
});

it('lets a consent form be answered once', () => {
  const until = Date.now() + 60_000;
  expect(answerOnce(db, 'uid-1', until)).toBe(true);
  expect(answerOnce(db, 'uid-1', until)).toBe(false);
  expect(answerOnce(db, 'uid-2', until)).toBe(true);
});
