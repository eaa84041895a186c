/**
 * What the embedder reads of a chunk (issue 19, seventh round): editorial marks out, speech and speaker labels
 * kept, plain text untouched (so its vector key does not change), and a store keyed the old way re-keyed by
 * migration 8 so that only the chunks whose text had marks are embedded again.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { embedChunkTexts } from '../../src/search/embed-chunks.js';
import { writeMeetingChunks } from '../../src/search/chunk-index.js';
import { ensureVectorTable, vectorCoverage } from '../../src/search/vectors.js';
import { countPending, storeVectors } from '../../src/search/vector-indexing.js';
import { openDb, storePath, loadSqlite } from '../../src/store/db.js';
import { contentHash, embeddingText } from '../../src/store/embedding-text.js';
import { tempDir } from '../helpers.js';

/** The better-sqlite3 this Node loads (src/store/db.ts: 13 from Node 22 on, 12 on Node 20). */
const Database = loadSqlite();

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('embeddingText', () => {
  it('leaves plain speech exactly as it is, parentheses of speech, times and links included', () => {
    const plain = [
      'Lewis Harper: Pretty much. The slot (the new one, at door 4) opens at 9:30, see https://example.com/slots?d=4.',
      "Ana Ruiz: And that matters because you'd put a twenty-six pallet load on a different door?",
      "Marcus Obi: We'd plan the labour differently: three people and a counterbalance.",
    ].join('\n');
    expect(embeddingText(plain)).toBe(plain);
    expect(contentHash(plain)).toBe(sha256(plain)); // stores of clean text keep every vector through migration 8
  });

  it('takes out transcript annotations and mends tokeniser spacing, keeping the speaker labels', () => {
    const qmsum = [
      'PhD C: I mean , is there {disfmarker} Are there any other meetings here that we can record , especially {comment} ones ?',
      'Grad G: {vocalsound}',
      "Professor E: Yeah , people will get {disfmarker} we 're gonna do n't",
      'Postdoc B: [laughter] OK [inaudible] so the budget (laughs) is fine (crosstalk)',
    ].join('\n');
    expect(embeddingText(qmsum)).toBe(
      [
        'PhD C: I mean, is there Are there any other meetings here that we can record, especially ones?',
        "Professor E: Yeah, people will get we're gonna don't",
        'Postdoc B: OK so the budget is fine',
      ].join('\n'),
    );
    expect(contentHash(qmsum)).not.toBe(sha256(qmsum));
    expect(contentHash(qmsum)).toBe(contentHash(embeddingText(qmsum))); // the key is of what the model reads
  });

  it('mends spacing, fillers and repeats even where there is no mark (the quick check for clean text lets none of it through)', () => {
    const cases: [string, string][] = [
      ['A: two  spaces', 'A: two spaces'],
      ['A: a\ttab', 'A: a tab'],
      ['A: a\u00a0no-break space', 'A: a no-break space'],
      ['A: one\n\nB: two', 'A: one\nB: two'],
      ['  A: leading', 'A: leading'],
      ['A: trailing ', 'A: trailing'],
      ['A:  , after the label', 'A: after the label'],
      ['A: so it ! goes', 'A: so it! goes'],
      ["A: I DO N'T", "A: I DON'T"],
      ["A: they 've gone, 'so' they said", "A: they've gone, 'so' they said"],
      ['A: the the dock', 'A: the dock'],
      ['A: which one which one is mine, so so so many', 'A: which one is mine, so many'],
      ['A: The the dock. Dock doors', 'A: The dock. Dock doors'], // a word again after a full stop is a new sentence
      ['PhD C: so um , I think uh we should', 'PhD C: so I think we should'],
      ['A: Um, the dock. Uh-huh. Mm-hmm, yes', 'A: the dock. yes'],
      ['A: ummm the um the dock\nB: Hmm.\nC: Yeah.', 'A: the dock\nC: Yeah.'], // a line of a filler alone goes; a reply stays
      ['A: UM students and the UH-60', 'A: UM students and the UH-60'], // capitals: an acronym, not a filler
      // grammatical repeats go too: the model reads the same meaning from one
      ['Tom Becker: That that is what we had had in mind.', 'Tom Becker: That is what we had in mind.'],
    ];
    for (const [text, expected] of cases) expect(embeddingText(text), JSON.stringify(text)).toBe(expected);
  });

  it('returns a text of nothing but marks as it is, and keeps long or unclosed brackets', () => {
    expect(embeddingText('A: {vocalsound}\nB: [noise]')).toBe('A: {vocalsound}\nB: [noise]');
    const unclosed = `A: ${'{ ['.repeat(50_000)} words`;
    expect(embeddingText(unclosed).endsWith('words')).toBe(true);
    const long = `A: [${'x'.repeat(100)}] stays`;
    expect(embeddingText(long)).toBe(long);
  });

  it('handles hostile lines in linear time: a 200,000-character line of open parentheses and sound words', () => {
    const hostile = `A: ${'(laugh '.repeat(30_000)}end\u0000\uD800`;
    const out = embeddingText(hostile);
    expect(out.length).toBeLessThanOrEqual(hostile.length);
    expect(out.endsWith('end\u0000\uD800')).toBe(true);
    expect(embeddingText(`A: ${'the '.repeat(100_000)}dock`)).toBe('A: the dock');
    const long = `A: ${Array.from({ length: 40_000 }, (_, i) => `w${i}`).join(' ')}`;
    expect(embeddingText(`${long} x`)).toBe(`${long} x`);
  });

  it('is what embedChunkTexts hands the embedder', async () => {
    const seen: string[] = [];
    const embedder = {
      id: 'spy',
      dims: 2,
      async embed(texts: string[]) {
        seen.push(...texts);
        return texts.map(() => Float32Array.from([1, 0]));
      },
    };
    await embedChunkTexts(embedder, ['A: so {disfmarker} the dock', 'B: plain words']);
    expect(seen).toEqual(['A: so the dock', 'B: plain words']);
  });
});

describe('migration 8: vector keys of a store written before', () => {
  it('re-keys only the chunks whose text had marks: they wait for a vector, the others keep theirs', () => {
    const t = tempDir();
    try {
      const db = openDb(t.dir);
      db.prepare(
        "INSERT INTO vaults (id, name, origin, loaded_at) VALUES ('v', 'V', 'import', '2026-01-01T00:00:00Z')",
      ).run();
      db.prepare(
        "INSERT INTO meetings (vault_id, id, name, started_at, attendees_json, extraction_status, created_at) VALUES ('v', 'm', 'm', '2026-01-01T00:00:00Z', '[]', 'extracted', '2026-01-01T00:00:00Z')",
      ).run();
      const texts = ['Ann: the dock doors open at six', 'Bob: so {disfmarker} the trailers wait', 'Cy: plain again'];
      writeMeetingChunks(
        db,
        'v',
        'm',
        texts.map((text, i) => ({ index: i, turnStart: i, turnEnd: i, speakers: ['Ann'], startSeconds: null, text })),
      );
      const fake = { id: 'fake', dims: 4 };
      ensureVectorTable(db, fake);
      // As the store was before: keys of the stored text, every chunk with a vector of it.
      const rows = db.prepare('SELECT id, text FROM transcript_chunks ORDER BY id').all() as {
        id: number;
        text: string;
      }[];
      for (const r of rows)
        db.prepare('UPDATE transcript_chunks SET content_hash = ? WHERE id = ?').run(sha256(r.text), r.id);
      storeVectors(
        db,
        fake.id,
        rows.map((r, i) => ({
          chunkId: r.id,
          vaultId: 'v',
          contentHash: sha256(r.text),
          vector: Float32Array.from([1, i, 0, 0]),
        })),
      );
      expect(countPending(db, fake.id)).toBe(0);
      expect(vectorCoverage(db, 'v', fake.id)).toEqual({ chunks: 3, withVectors: 3 });
      db.close();
      const raw = new Database(storePath(t.dir));
      raw.pragma('user_version = 7');
      raw.close();

      const upgraded = openDb(t.dir);
      const keys = upgraded.prepare('SELECT text, content_hash FROM transcript_chunks ORDER BY id').all() as {
        text: string;
        content_hash: string;
      }[];
      expect(keys.map((k) => k.content_hash === sha256(k.text))).toEqual([true, false, true]);
      expect(keys[1]!.content_hash).toBe(sha256('Bob: so the trailers wait'));
      expect(countPending(upgraded, fake.id)).toBe(1);
      expect(vectorCoverage(upgraded, 'v', fake.id)).toEqual({ chunks: 3, withVectors: 2 });
      upgraded.close();
    } finally {
      t.cleanup();
    }
  });
});
