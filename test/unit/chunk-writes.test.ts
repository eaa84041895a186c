/**
 * A meeting's chunks go into the store in one statement: the word index (FTS5) writes what it holds in memory
 * as a new segment at every statement that opens a savepoint, so a statement per chunk left a segment per
 * chunk to merge (issue 18: a sync of 10,000 chunks spent ~1 s there). The chunks and what search finds are
 * the same as before.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDb, writeTransaction, type Db } from '../../src/store/db.js';
import {
  meetingChunks,
  writeChunksOfMeetings,
  writeMeetingChunks,
  type StoredChunk,
} from '../../src/search/chunk-index.js';
import { bm25Ranking, wordTable } from '../../src/search/word-index.js';
import { tempDir } from '../helpers.js';

let dir: { dir: string; cleanup(): void };
let db: Db;

beforeEach(() => {
  dir = tempDir();
  db = openDb(dir.dir);
  db.prepare(
    "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('v', 'Vault v', 'import', '2026-01-01T00:00:00Z')",
  ).run();
  for (const id of ['m1', 'm2', 'm3']) {
    db.prepare(
      "INSERT INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES ('v', ?, ?, '2026-01-01T00:00:00Z', '[]', 'extracted', '2026-01-01T00:00:00Z')",
    ).run(id, id);
  }
});
afterEach(() => {
  db.close();
  dir.cleanup();
});

const chunksOf = (meeting: string, n: number): StoredChunk[] =>
  Array.from({ length: n }, (_, i) => ({
    index: i,
    turnStart: 2 * i,
    turnEnd: 2 * i + 1,
    speakers: ['Ann', 'Bo'],
    startSeconds: i ? null : 0,
    text: `Ann: ${meeting} part${i} budget\nBo: reply ${i}`,
  }));

/** Rows of the word index's data table other than its two bookkeeping rows: one or more per segment. */
const segmentRows = () =>
  db
    .prepare(`SELECT count(*) FROM ${wordTable('v')}_data WHERE id > 10`)
    .pluck()
    .get() as number;

it("writes a meeting's chunks to the word index as one segment, not one per chunk", () => {
  writeTransaction(db, () => writeMeetingChunks(db, 'v', 'm1', chunksOf('m1', 40)));
  expect(segmentRows()).toBe(1);
});

it("writes a sync batch's chunks, several meetings, as one segment too; ids in order, every chunk found by its words", () => {
  writeTransaction(db, () =>
    writeChunksOfMeetings(db, 'v', [
      { meetingId: 'm1', chunks: chunksOf('m1', 30) },
      { meetingId: 'm2', chunks: chunksOf('m2', 30) },
    ]),
  );
  expect(segmentRows()).toBe(1);
  const ids = db
    .prepare("SELECT meeting_id || '/' || chunk_index FROM transcript_chunks WHERE vault_id = 'v' ORDER BY id")
    .pluck()
    .all();
  expect(ids).toEqual([
    ...Array.from({ length: 30 }, (_, i) => `m1/${i}`),
    ...Array.from({ length: 30 }, (_, i) => `m2/${i}`),
  ]);
  expect(meetingChunks(db, 'v', 'm2', 5, 1).chunks).toEqual([
    {
      index: 5,
      speakers: ['Ann', 'Bo'],
      text: 'Ann: m2 part5 budget\nBo: reply 5',
      turnStart: 10,
      turnEnd: 11,
      startSeconds: null,
    },
  ]);
  expect(bm25Ranking(db, 'v', 'budget', 100)).toHaveLength(60);
  expect(bm25Ranking(db, 'v', 'part7', 100)).toHaveLength(2);
  // Written again, a meeting's chunks replace its old ones, in the store and in the word index.
  writeTransaction(db, () =>
    writeChunksOfMeetings(db, 'v', [
      { meetingId: 'm2', chunks: chunksOf('m2', 3) },
      { meetingId: 'm3', chunks: [] },
    ]),
  );
  expect(
    db.prepare('SELECT meeting_id, count(*) AS n FROM transcript_chunks GROUP BY meeting_id ORDER BY 1').all(),
  ).toEqual([
    { meeting_id: 'm1', n: 30 },
    { meeting_id: 'm2', n: 3 },
  ]);
  expect(bm25Ranking(db, 'v', 'budget', 100)).toHaveLength(33);
});

it('stores hostile text whole: NUL, a lone surrogate (as one U+FFFD), quotes, SQL, very long lines, extreme numbers', () => {
  const texts = [
    'nul \u0000 inside',
    'lone \ud800 surrogate',
    'quote " and \\ backslash',
    'emoji 😀 and ünïcode',
    "sql '); DROP TABLE meetings; --",
    'x'.repeat(200_000),
  ];
  writeTransaction(db, () =>
    writeMeetingChunks(
      db,
      'v',
      'm1',
      texts.map((text, i) => ({
        index: i,
        turnStart: i,
        turnEnd: i,
        speakers: ['A"\u0000'],
        startSeconds: i === 1 ? 1e308 : null,
        text,
      })),
    ),
  );
  const stored = meetingChunks(db, 'v', 'm1', 0, 10).chunks;
  // Every text as given, but the lone surrogate made one U+FFFD (as better-sqlite3 13 binds it; through the JSON
  // it became three, and 12 bound it so: the writer makes the text well-formed, whichever binding runs).
  const wellFormed = (t: string) => (t as string & { toWellFormed(): string }).toWellFormed();
  expect(stored.map((c) => c.text)).toEqual(texts.map(wellFormed));
  expect(stored[1]!.text).toBe('lone \ufffd surrogate');
  expect(stored.map((c) => c.speakers)).toEqual(texts.map(() => ['A"\u0000']));
  expect(stored[1]!.startSeconds).toBe(1e308);
  expect(db.prepare('SELECT count(*) FROM meetings').pluck().get()).toBe(3);
});
