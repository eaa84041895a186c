import type { Db } from '../../src/store/db.js';
import { tokens } from '../../src/store/text.js';
import { queryWords } from '../../src/search/transcripts.js';
import { ensureWordIndex } from '../../src/search/word-index.js';

/** One term of a vault's vocabulary: its commonest surface form, its stem (as the vault's word index stems it), and how many chunks hold it. */
export interface VaultTerm {
  word: string;
  stem: string;
  df: number;
}

/**
 * Stems as the word index makes them (FTS5's porter tokenizer, read back through fts5vocab's instance table), one
 * per word ('' for a word that is all stop characters).
 */
export function stemmer(db: Db): (words: string[]) => string[] {
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_stems USING fts5(w, tokenize='porter unicode61 remove_diacritics 2')`,
  );
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_stems_v USING fts5vocab(temp, bench_stems, instance)`);
  return (words) => {
    db.exec('DELETE FROM temp.bench_stems');
    const ins = db.prepare('INSERT INTO temp.bench_stems(rowid, w) VALUES (?, ?)');
    db.transaction(() => words.forEach((w, i) => ins.run(i + 1, w)))();
    const out: string[] = new Array(words.length).fill('');
    for (const r of db.prepare('SELECT doc, term FROM temp.bench_stems_v').all() as { doc: number; term: string }[])
      out[r.doc - 1] = r.term;
    return out;
  };
}

/**
 * The vault's own vocabulary: the distinct words of its chunks (no stop or question-frame words, no numbers,
 * at least 3 letters), grouped by stem, each stem held by at least `minDf` chunks, with its commonest surface
 * form (the one a person reads, and the one an embedder knows).
 */
export function vaultVocabulary(db: Db, vaultId: string, minDf: number): VaultTerm[] {
  const texts = db.prepare('SELECT text FROM transcript_chunks WHERE vault_id = ?').pluck().all(vaultId) as string[];
  const df = new Map<string, number>();
  for (const t of texts) for (const w of new Set(tokens(t))) df.set(w, (df.get(w) ?? 0) + 1);
  const words = [...df.keys()].filter(
    (w) => w.length >= 3 && !/\d/.test(w) && queryWords(w, { keepFrame: true }).length > 0,
  );
  const stems = stemmer(db)(words);
  const t = ensureWordIndex(db, vaultId);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${t}_rows USING fts5vocab(main, ${t}, row)`);
  const stemDf = db.prepare(`SELECT doc FROM temp.${t}_rows WHERE term = ?`).pluck();
  const best = new Map<string, VaultTerm>();
  words.forEach((word, i) => {
    const stem = stems[i]!;
    if (!stem) return;
    const seen = best.get(stem);
    if (!seen) {
      const d = (stemDf.get(stem) as number | undefined) ?? 0;
      if (d >= minDf) best.set(stem, { word, stem, df: d });
    } else if (df.get(word)! > df.get(seen.word)!) seen.word = word;
  });
  return [...best.values()].sort((a, b) => a.stem.localeCompare(b.stem));
}
