/**
 * `search_transcripts` with `alternatives` (issue 42), in-process through the service on a real store holding
 * the fixture vaults, searched by words and by the deterministic hash embedder (test/hash-embedder.ts); and
 * the fusion of phrasings (src/search/phrasings.ts) on rankings given here.
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
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { distinctPhrasings, fuseRankings, mergeOverlapping } from '../../src/search/phrasings.js';
import type { SearchHit } from '../../src/search/transcripts.js';
import { HashEmbedder } from '../hash-embedder.js';
import { tinyVault, writeTinyVault } from '../tiny-vault.js';
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
  const set = JSON.parse(readFileSync(join(ROOT, 'bench', 'paraphrase-set.json'), 'utf8')) as {
    queries: { vault: string; query: string }[];
  };
  const out: { service: 'hybrid' | 'words'; args: Record<string, unknown> }[] = [];
  for (const q of set.queries) out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query } });
  for (const q of set.queries.slice(0, 30)) out.push({ service: 'words', args: { vault: q.vault, query: q.query } });
  const some = set.queries.filter((_, i) => i % 7 === 0);
  for (const q of some) {
    out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query, limit: 20 } });
    out.push({ service: 'hybrid', args: { vault: q.vault, query: q.query, limit: 1 } });
    out.push({
      service: 'hybrid',
      args: { vault: q.vault, query: q.query, after: '2026-11-05', before: '2026-12-31T00:00:00Z' },
    });
    out.push({
      service: 'hybrid',
      args: { vault: q.vault, query: q.query, speaker: q.vault === NW ? 'a' : 'e', limit: 8 },
    });
  }
  out.push({ service: 'hybrid', args: { vault: NW, query: 'dock doors', meetingId: 'nwl-m01-kickoff' } });
  out.push({ service: 'hybrid', args: { vault: MH, query: 'discharge lounge', meetingId: 'mhg-m07-playback' } });
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
    await expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot(
      '../snapshots/search/no-alternatives.json',
    );
  });
});

describe('phrasings fused by reciprocal rank', () => {
  const hit = (chunkId: number, words = true): SearchHit => ({
    chunkId,
    score: 0,
    wordRank: words ? 1 : null,
    meaningRank: words ? null : 1,
  });

  it('runs each distinct phrasing once and credits every position that said it', () => {
    expect(distinctPhrasings('Dock waits?', ['dock  WAITS?', ' lorries queue ', 'Lorries queue', 'yard'])).toEqual({
      texts: ['Dock waits?', 'lorries queue', 'yard'],
      sources: [[0, 1], [2, 3], [4]],
    });
  });

  it('sums weight / (k + rank) over the phrasings, the query weighing more, and names who found each', () => {
    const fusion = { k: 10, queryWeight: 1.25, depth: 3 };
    // chunk 7 is 2nd for the query and 1st for both alternatives; chunk 1 is the query's 1st only; chunk 9 is 4th (past depth) for the query.
    const fused = fuseRankings(
      [
        [hit(1), hit(7), hit(3), hit(9)],
        [hit(7, false), hit(3)],
        [hit(7), hit(5)],
      ],
      [[0], [1], [2]],
      fusion,
      1,
    );
    expect(fused.map((h) => h.chunkId)).toEqual([7, 3, 1, 5]);
    expect(fused[0]!.score).toBeCloseTo(1.25 / 12 + 1 / 11 + 1 / 11, 10);
    expect(fused[0]!.foundBy).toEqual([1, 2]); // top 1 of each alternative, the query's 2nd
    expect(fused[0]!.wordRank).toBe(1);
    expect(fused[0]!.meaningRank).toBe(1);
    expect(fused.find((h) => h.chunkId === 1)!.foundBy).toEqual([0]);
    expect(fused.find((h) => h.chunkId === 9)).toBeUndefined();
  });

  it('merges the pieces of one long turn found by different phrasings into one excerpt', async () => {
    const long = Array.from(
      { length: 40 },
      (_, i) => `Sentence ${i} of the long turn about the spiral mixer and the breaker.`,
    ).join(' ');
    const v = tinyVault({ id: 'longturn', name: 'Long Turn' });
    v.meetings.push({
      ...v.meetings[0]!,
      id: 'm2',
      name: 'Long turn',
      transcript: [
        { speaker: 'Ana Ruiz', text: 'Short opening turn.', at: 0 },
        { speaker: 'Bo Lind', text: long, at: 10 },
        { speaker: 'Ana Ruiz', text: 'Short closing turn.', at: 20 },
      ],
      evidence: [],
    });
    const dir = tempDir();
    try {
      loadFixture(db, readVaultDir(writeTinyVault(dir.dir, v)), { origin: 'import' });
      const pieces = db
        .prepare(
          "SELECT id FROM transcript_chunks WHERE vault_id = 'longturn' AND meeting_id = 'm2' AND turn_start = 1 AND turn_end = 1 ORDER BY id",
        )
        .pluck()
        .all() as number[];
      expect(pieces.length).toBeGreaterThan(1);
      const other = db
        .prepare(
          "SELECT id FROM transcript_chunks WHERE vault_id = 'longturn' AND meeting_id = 'm2' AND turn_start = 0",
        )
        .pluck()
        .get() as number;
      const fused = fuseRankings([[hit(pieces[1]!), hit(other)], [hit(pieces[0]!, false)]], [[0], [1]], {
        k: 10,
        queryWeight: 1,
        depth: 20,
      });
      const merged = mergeOverlapping(db, fused, 5);
      expect(merged).toHaveLength(2);
      expect(merged[0]!.chunkIds.sort()).toEqual([...pieces.slice(0, 2)].sort());
      expect(merged[0]!.foundBy).toEqual([0, 1]);
      expect(merged[0]!.meaningRank).toBe(1);
      expect(merged[1]!.chunkIds).toEqual([other]);

      // Through the tool: the pieces every phrasing finds come back as one excerpt of the turn, in its order.
      const data = await search(hybrid, {
        vault: 'longturn',
        query: 'spiral mixer breaker',
        alternatives: ['the mixer trips the breaker'],
        meetingId: 'm2',
      });
      const turn = data.results.filter((r: Data) => r.turnStart === 1);
      expect(turn).toHaveLength(1);
      expect(turn[0].turnEnd).toBe(1);
      expect(turn[0].text.indexOf('Sentence 0 ')).toBeLessThan(turn[0].text.indexOf('Sentence 39 '));
      expect(turn[0].text.split('\n').every((line: string) => line.startsWith('Bo Lind: '))).toBe(true);
    } finally {
      dir.cleanup();
    }
  });
});
