/**
 * `search_transcripts` with `alternatives` (issue 42), in-process through the service on a real store holding
 * the fixture vaults, searched by words and by the deterministic hash embedder (test/hash-embedder.ts).
 *
 * Without `alternatives` the answer must be byte for byte what it was before the field existed: the snapshot
 * (test/snapshots/search/no-alternatives.json) was computed by the code of main before issue 42, for every
 * query of the paraphrase set and a spread of filters and limits, in hybrid and words-only services; it holds
 * the SHA-256 of each answer's JSON and a readable fingerprint of its results.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, createKey } from '../../src/auth/keys.js';
import type { Principal } from '../../src/core/principal.js';
import { indexPending } from '../../src/search/vector-indexing.js';
import { Service } from '../../src/service/invoke.js';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture } from '../../src/vault-format/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { HashEmbedder } from '../hash-embedder.js';
import { FIXTURE_DIRS, ROOT, tempDir } from '../helpers.js';

const NW = 'northwind-logistics';
const MH = 'meridian-health';

let db: Db;
let cleanup: () => void;
let hybrid: Service;
let wordsOnly: Service;
let owner: Principal;

beforeAll(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDb(t.dir);
  // A fixed "now": the demo's dates move with the real date, and the answers carry them.
  const now = new Date('2026-11-28T00:00:00Z');
  loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture', now });
  loadFixture(db, readVaultDir(FIXTURE_DIRS.meridian), { origin: 'fixture', now });
  const embedder = new HashEmbedder();
  await indexPending(db, embedder);
  owner = authenticate(db, createKey(db, { name: 'owner', role: 'manager', vaults: '*' }).key);
  hybrid = new Service(db, { dataDir: t.dir, embedder });
  wordsOnly = new Service(db, { dataDir: t.dir });
});
afterAll(() => {
  db.close();
  cleanup();
});

type Data = Record<string, any>;
async function search(service: Service, args: Record<string, unknown>): Promise<Data> {
  const r = await service.invoke('search_transcripts', args, owner);
  if (!r.ok) throw new Error(`search_transcripts: ${r.code}: ${r.message}`);
  return r.data;
}

/** The calls of the snapshot: every paraphrase-set query as asked, and a spread of filters and limits. */
function cases(): { service: 'hybrid' | 'words'; args: Record<string, unknown> }[] {
  const set = JSON.parse(readFileSync(join(ROOT, 'bench', 'paraphrase-set.json'), 'utf8')) as { queries: { vault: string; query: string }[] };
  const out: { service: 'hybrid' | 'words'; args: Record<string, unknown> }[] = [];
  for (const q of set.queries) out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query } });
  for (const q of set.queries.slice(0, 30)) out.push({ service: 'words', args: { vault: q.vault, query: q.query } });
  const some = set.queries.filter((_, i) => i % 7 === 0);
  for (const q of some) {
    out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query, limit: 20 } });
    out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query, limit: 1 } });
    out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query, after: '2026-11-05', before: '2026-12-31T00:00:00Z' } });
    out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query, speaker: q.vault === NW ? 'a' : 'e', limit: 8 } });
  }
  out.push({ service: 'hybrid', args: { vault: NW, query: 'dock doors', meetingId: 'nwl-m01-kickoff' } });
  out.push({ service: 'hybrid', args: { vault: MH, query: 'discharge lounge', meetingId: 'mtg-2026-11-19-playback' } });
  out.push({ service: 'hybrid', args: { vault: NW, query: 'the and of' } });
  out.push({ service: 'hybrid', args: { vault: NW, query: 'zzqx nonexistentword' } });
  return out;
}

const digest = (data: Data) => createHash('sha256').update(JSON.stringify(data)).digest('hex');
const fingerprint = (data: Data) =>
  `${data.mode} ${data.results.map((r: Data) => `${r.meetingId}:${r.turnStart}-${r.turnEnd}@${r.score}[${r.matchedBy.join('+')}]`).join(' ')}`;

describe('search_transcripts without alternatives', () => {
  it('answers byte for byte as before issue 42 (snapshot computed by the code before the field existed)', async () => {
    const answers: Record<string, { sha256: string; results: string }> = {};
    for (const c of cases()) {
      const data = await search(c.service === 'hybrid' ? hybrid : wordsOnly, c.args);
      answers[`${c.service} ${JSON.stringify(c.args)}`] = { sha256: digest(data), results: fingerprint(data) };
    }
    expect(Object.keys(answers).length).toBeGreaterThan(150);
    await expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot('../snapshots/search/no-alternatives.json');
  });
});
