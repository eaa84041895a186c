/**
 * Transcript search on a real store with real sqlite-vec. The embedder here is a small deterministic
 * bag-of-words hash (test/hash-embedder.ts: fast and exact); the real model is exercised by embedder.test.ts and
 * by `npm run bench:search`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { loadFixture } from '../../src/load/load.js';
import { readVaultDir } from '../../src/vault-format/read.js';
import { indexPending, countPending } from '../../src/search/vector-indexing.js';
import {
  ADAPT,
  FEEDBACK,
  FUSION,
  feedbackVector,
  fuse,
  meaningWeight,
  searchChunks,
  wordEvidence,
  wordTerms,
} from '../../src/search/transcripts.js';
import { chunkRows } from '../../src/search/chunk-index.js';
import { wordTable } from '../../src/search/word-index.js';
import { FIXTURE_DIRS, tempDir } from '../helpers.js';
import { HashEmbedder } from '../hash-embedder.js';
import { normalize } from '../../src/store/text.js';

let db: Db;
let cleanup: () => void;
const NW = 'northwind-logistics';
const MH = 'meridian-health';

beforeEach(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDb(t.dir);
  loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'fixture' });
  loadFixture(db, readVaultDir(FIXTURE_DIRS.meridian), { origin: 'fixture' });
});
afterEach(() => {
  db.close();
  cleanup();
});

const meetingsOf = (vault: string) =>
  new Set(db.prepare('SELECT id FROM meetings WHERE vault_id = ?').pluck().all(vault) as string[]);

describe('chunks and the word index', () => {
  it('builds chunks at import that cover every turn of every meeting, in order', () => {
    const rows = db
      .prepare(
        'SELECT meeting_id, turn_start, turn_end FROM transcript_chunks WHERE vault_id = ? ORDER BY meeting_id, chunk_index',
      )
      .all(NW) as {
      meeting_id: string;
      turn_start: number;
      turn_end: number;
    }[];
    const turns = db
      .prepare('SELECT meeting_id, count(*) AS n FROM transcript_turns WHERE vault_id = ? GROUP BY meeting_id')
      .all(NW) as { meeting_id: string; n: number }[];
    for (const { meeting_id, n } of turns) {
      const mine = rows.filter((r) => r.meeting_id === meeting_id);
      expect(mine[0]!.turn_start).toBe(0);
      expect(mine.at(-1)!.turn_end).toBe(n - 1);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.turn_start).toBeGreaterThanOrEqual(mine[i - 1]!.turn_end);
    }
  });

  it('scopes the word query to one vault', () => {
    // Each vault has its own word table; the query is the question's words without stop words.
    expect(wordTable(NW)).toMatch(/^transcript_words_v[0-9a-f]{16}$/);
    expect(wordTerms('the dock and the yard')).toBe('"dock" OR "yard"');
    expect(wordTerms('the and of')).toBeUndefined();
  });
});

describe('vault isolation', () => {
  it('never returns another vault’s text, by words or by meaning', async () => {
    const embedder = new HashEmbedder();
    await indexPending(db, embedder);
    // Words that only the other vault uses.
    for (const [vault, other, query] of [
      [NW, MH, 'discharge lounge ward beds patients emergency department'],
      [MH, NW, 'forklift dock carriers pallets warehouse picking'],
    ] as const) {
      for (const mode of ['words', 'meaning', 'hybrid'] as const) {
        const { hits } = await searchChunks(db, vault, query, { limit: 20, mode, embedder });
        const rows = chunkRows(
          db,
          hits.map((h) => h.chunkId),
        );
        for (const r of rows.values()) expect(meetingsOf(other).has(r.meeting_id), `${mode} in ${vault}`).toBe(false);
        for (const r of rows.values()) expect(meetingsOf(vault).has(r.meeting_id)).toBe(true);
      }
    }
  });
});

describe('indexing', () => {
  it('embeds each text once: a re-import reuses vectors; a changed turn re-embeds only its chunk', async () => {
    const embedder = new HashEmbedder();
    const first = await indexPending(db, embedder);
    const chunks = db.prepare('SELECT count(*) FROM transcript_chunks').pluck().get() as number;
    expect(first.embedded).toBe(chunks);
    expect(countPending(db, embedder.id)).toBe(0);

    loadFixture(db, readVaultDir(FIXTURE_DIRS.northwind), { origin: 'import', force: true });
    const again = await indexPending(db, embedder);
    expect(again.embedded).toBe(0);
    expect(again.reused).toBeGreaterThan(50);

    const f = readVaultDir(FIXTURE_DIRS.northwind);
    f.meetings[0]!.transcript[3]!.text += ' An extra sentence that changes this chunk only.';
    loadFixture(db, f, { origin: 'import', force: true });
    const changed = await indexPending(db, embedder);
    expect(changed.embedded).toBe(1);
    // Stale vectors of the replaced chunks are gone from the vector table.
    const vectors = db.prepare('SELECT count(*) FROM chunk_vectors').pluck().get();
    expect(vectors).toBe(db.prepare('SELECT count(*) FROM transcript_chunks').pluck().get());
  });

  it('another embedder rebuilds the vector index', async () => {
    await indexPending(db, new HashEmbedder());
    const other = new (class extends HashEmbedder {
      override readonly id = 'test-hash-64-b';
    })();
    expect(countPending(db, other.id)).toBe(db.prepare('SELECT count(*) FROM transcript_chunks').pluck().get());
    const r = await indexPending(db, other);
    expect(r.embedded).toBeGreaterThan(0);
    expect(countPending(db, other.id)).toBe(0);
  });
});

describe('ranking', () => {
  it('fuses both halves by standardised scores: a standout BM25 head stays on top, a flat tail is ordered by meaning', () => {
    const candidates = {
      words: [
        [1, 10],
        [2, 3],
        [3, 2.9],
        [4, 2.8],
      ] as [number, number][],
      meaning: [
        [5, 0.6],
        [3, 0.55],
        [2, 0.5],
      ] as [number, number][],
      cosines: [
        [1, 0.3],
        [4, 0.2],
      ] as [number, number][],
    };
    const fused = fuse(candidates, { words: 1, meaning: 1, candidates: 50 });
    // Reciprocal ranks would put 2 and 3 (found by both halves) above 1; their BM25 is a third of 1's.
    expect(fused.map((h) => h.chunkId)).toEqual([1, 3, 2, 5, 4]);
    expect(fused[0]).toMatchObject({ wordRank: 1, meaningRank: null }); // a cosine read for fusion is not a meaning match
    expect(fused[1]).toMatchObject({ wordRank: 3, meaningRank: 2 });
    expect(fused.find((h) => h.chunkId === 5)).toMatchObject({ wordRank: null, meaningRank: 1 });
    const meaningHeavy = fuse(candidates, { words: 1, meaning: 3, candidates: 50 });
    expect(meaningHeavy.map((h) => h.chunkId).slice(0, 2)).toEqual([5, 3]);
    // one half alone keeps its own order
    expect(fuse({ words: candidates.words, meaning: [] }).map((h) => h.chunkId)).toEqual([1, 2, 3, 4]);
    expect(fuse({ words: [], meaning: candidates.meaning }).map((h) => h.chunkId)).toEqual([5, 3, 2]);
    expect(fuse({ words: [[7, 4]], meaning: [] }).map((h) => h.chunkId)).toEqual([7]);
  });

  it("moves the query vector towards the words half's best chunks before scoring by meaning (Rocchio)", () => {
    const moved = feedbackVector(
      Float32Array.from([2, 0, 0]),
      [Float32Array.from([0, 3, 0]), Float32Array.from([0, 0, 1])],
      0.5,
    );
    expect([...moved]).toEqual([1, 0.25, 0.25]); // the unit query + 0.5 × the mean of the unit chunk vectors
    expect([...feedbackVector(Float32Array.from([0, 4]), [])]).toEqual([0, 1]);
    expect(FEEDBACK.weight).toBeGreaterThan(0);
  });

  it('leaves the frame of a question out of the word query, unless nothing else is left', async () => {
    expect(wordTerms('Summarize the discussion about the detention charges')).toBe('"detention" OR "charges"');
    expect(wordTerms('What did the team think and decide about dock scheduling?')).toBe('"dock" OR "scheduling"');
    expect(wordTerms('What was discussed in the meeting?')).toBe('"discussed" OR "meeting"');
    expect(wordTerms('Summarize the discussion', { keepFrame: true })).toBe('"summarize" OR "discussion"');
    // so a framed question ranks as its topic does (the fixture text says "discuss" and "decision" here and there)
    const topic = await searchChunks(db, NW, 'detention charges', { limit: 10, mode: 'words' });
    const framed = await searchChunks(db, NW, 'What did the group discuss and decide about detention charges?', {
      limit: 10,
      mode: 'words',
    });
    expect(framed.hits.map((h) => h.chunkId)).toEqual(topic.hits.map((h) => h.chunkId));
  });

  it('weighs meaning by what the words can say: more for words the vault lacks, less for a standout BM25 head', () => {
    const base = 0.5;
    expect(meaningWeight(base, { absentShare: 0, headRatio: 1 })).toBe(base);
    expect(meaningWeight(base, { absentShare: 0, headRatio: ADAPT.head })).toBe(base); // an ordinary head changes nothing
    expect(meaningWeight(base, { absentShare: 0.5, headRatio: 1 })).toBeCloseTo(base * (1 + ADAPT.absent / 2));
    expect(meaningWeight(base, { absentShare: 1, headRatio: 1 })).toBeGreaterThan(
      meaningWeight(base, { absentShare: 0.5, headRatio: 1 }),
    );
    const standout = meaningWeight(base, { absentShare: 0, headRatio: ADAPT.head + 2 });
    expect(standout).toBeLessThan(base);
    expect(meaningWeight(base, { absentShare: 0, headRatio: ADAPT.head + 4 })).toBeLessThan(standout);
    // a keyword string asks for its words; a question (or no reading at all) keeps the weight
    expect(meaningWeight(base, { absentShare: 0, headRatio: 1, functionShare: 0 })).toBeCloseTo(base * ADAPT.keywords);
    expect(meaningWeight(base, { absentShare: 0, headRatio: 1, functionShare: 0.4 })).toBe(base);
  });

  it("reads from the vault which query words it never uses, and how far BM25's best stands out", () => {
    const t = 'detention charges';
    const scored = (q: string) =>
      db
        .prepare(
          `SELECT rowid, -bm25(${wordTable(NW)}) FROM ${wordTable(NW)} WHERE ${wordTable(NW)} MATCH ? ORDER BY bm25(${wordTable(NW)}) LIMIT 50`,
        )
        .raw()
        .all(wordTerms(q)) as [number, number][];
    const known = wordEvidence(db, NW, t, scored(t));
    expect(known.absentShare).toBe(0);
    expect(known.functionShare).toBe(0); // two keywords
    expect(wordEvidence(db, NW, 'What did they pay in detention charges?', scored(t)).functionShare).toBeCloseTo(4 / 7);
    expect(known.headRatio).toBeGreaterThanOrEqual(1);
    // "lorries" and "wagons" are never said in Northwind; "detention" is
    const mixed = wordEvidence(db, NW, 'lorries wagons detention', scored('lorries wagons detention'));
    expect(mixed.absentShare).toBeCloseTo(2 / 3);
    expect(wordEvidence(db, NW, 'lorries wagons', []).absentShare).toBe(1);
    expect(wordEvidence(db, NW, 'lorries wagons', []).headRatio).toBe(1);
    // the same words are in the other vault's index or not, on their own
    expect(wordEvidence(db, MH, 'detention', scored('detention')).absentShare).toBe(1);
  });

  it('lets meaning lead when most of the question is in words the vault never uses', async () => {
    // "lorries", "wagons" and "juggernauts" are never said in Northwind; the embedder reads them as "carriers".
    const embedder = new HashEmbedder({ lorries: 'carriers', wagons: 'carriers', juggernauts: 'carriers' });
    await indexPending(db, embedder);
    const query = 'Which of the lorries, wagons and juggernauts had detention?';
    const byWords = await searchChunks(db, NW, query, { limit: 5, mode: 'words', embedder });
    const byMeaning = await searchChunks(db, NW, query, { limit: 5, mode: 'meaning', embedder });
    expect(byWords.hits[0]!.chunkId).not.toBe(byMeaning.hits[0]!.chunkId);
    const fixed = await searchChunks(db, NW, query, {
      limit: 5,
      embedder,
      weights: { ...FUSION, meaning: 0.5, adaptive: false },
    });
    expect(fixed.hits[0]!.chunkId).not.toBe(byMeaning.hits[0]!.chunkId); // the one word of four the vault knows decides
    const adaptive = await searchChunks(db, NW, query, { limit: 5, embedder });
    expect(adaptive.hits[0]!.chunkId).toBe(byMeaning.hits[0]!.chunkId);
  });

  it('finds a paraphrase by meaning that words miss, and keeps exact words on top', async () => {
    // The "embedder" knows that lorries, wagons and carriers mean the same; BM25 does not.
    const embedder = new HashEmbedder({ lorry: 'carrier', lorries: 'carriers', wagon: 'carrier', wagons: 'carriers' });
    await indexPending(db, embedder);
    const target = db
      .prepare("SELECT id FROM transcript_chunks WHERE vault_id = ? AND text LIKE '%carriers%' ORDER BY id LIMIT 1")
      .pluck()
      .get(NW) as number;
    const text = db.prepare('SELECT text FROM transcript_chunks WHERE id = ?').pluck().get(target) as string;
    const query = normalize(text)
      .split(' ')
      .filter((w) => w.length > 6)
      .slice(0, 6)
      .join(' ')
      .replace(/carriers/g, 'lorries');
    const words = await searchChunks(db, NW, 'lorries lorry wagons', { limit: 10, mode: 'words', embedder });
    expect(words.hits.length).toBe(0); // nobody says lorry
    const hybrid = await searchChunks(db, NW, query, { limit: 5, mode: 'hybrid', embedder });
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.hits.map((h) => h.chunkId)).toContain(target);
  });

  it('searches by words when no vectors are built, and when the vault has none yet', async () => {
    const before = await searchChunks(db, NW, 'dock scheduling', { limit: 5, embedder: new HashEmbedder() });
    expect(before.mode).toBe('words');
    expect(before.hits.length).toBeGreaterThan(0);
    await indexPending(db, new HashEmbedder(), { vaultId: MH });
    const other = await searchChunks(db, NW, 'dock scheduling', { limit: 5, embedder: new HashEmbedder() });
    expect(other.mode).toBe('words'); // Northwind not embedded yet: still found by words
    expect(other.hits.length).toBeGreaterThan(0);
    expect((await searchChunks(db, MH, 'discharge', { limit: 5, embedder: new HashEmbedder() })).mode).toBe('hybrid');
  });

  it('applies meeting, speaker and date filters in both halves', async () => {
    const embedder = new HashEmbedder();
    await indexPending(db, embedder);
    const meeting = db
      .prepare('SELECT id FROM meetings WHERE vault_id = ? ORDER BY started_at LIMIT 1')
      .pluck()
      .get(NW) as string;
    const { hits } = await searchChunks(db, NW, 'dock yard carriers inventory', {
      limit: 20,
      embedder,
      filters: { meetingId: meeting },
    });
    expect(hits.length).toBeGreaterThan(0);
    for (const r of chunkRows(
      db,
      hits.map((h) => h.chunkId),
    ).values())
      expect(r.meeting_id).toBe(meeting);
    const bySpeaker = await searchChunks(db, NW, 'dock yard carriers inventory', {
      limit: 20,
      embedder,
      filters: { speaker: 'ana ruiz' },
    });
    expect(bySpeaker.hits.length).toBeGreaterThan(0);
    for (const r of chunkRows(
      db,
      bySpeaker.hits.map((h) => h.chunkId),
    ).values())
      expect(r.speakers).toContain('Ana Ruiz');
    const future = await searchChunks(db, NW, 'dock', {
      limit: 5,
      embedder,
      filters: { after: '2999-01-01T00:00:00Z' },
    });
    expect(future.hits).toEqual([]);
  });
});

describe('embedding windows', () => {
  it('cuts a chunk into whole lines that fit the model, and a long line at a space', async () => {
    const { embeddingWindows } = await import('../../src/search/embed-chunks.js');
    const text = ['Ana: short line one.', `Ben: ${'word '.repeat(40).trim()}`, 'Ana: closing line.'].join('\n');
    const windows = embeddingWindows(text, 100);
    expect(windows.every((w) => w.length <= 100)).toBe(true);
    expect(windows[0]!.startsWith('Ana: short line one.')).toBe(true);
    expect(windows.at(-1)!.endsWith('Ana: closing line.')).toBe(true);
    expect(windows.join(' ').replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' ')); // nothing lost, nothing repeated
    expect(embeddingWindows('a '.repeat(5000), 100).length).toBe(8); // capped
  });

  it('a chunk vector is the normalised mean of its windows, so its end counts too', async () => {
    const { embedChunkTexts } = await import('../../src/search/embed-chunks.js');
    const windowed = new (class extends HashEmbedder {
      readonly windowChars = 40;
    })();
    const head = 'Ana: the forklift battery room is cramped.';
    const tail = 'Ben: carriers arrive before their dock slot.';
    const [whole] = await embedChunkTexts(windowed, [`${head}\n${tail}`]);
    const [a, b] = await windowed.embed([head, tail]);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(dot(whole!, b!)).toBeGreaterThan(0.5); // the second window is represented
    expect(dot(whole!, a!)).toBeGreaterThan(0.5);
    expect(Math.hypot(...whole!)).toBeCloseTo(1, 5);
  });
});
