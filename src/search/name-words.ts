/**
 * The distinct words of a vault's names, indexed so that the words a query word can match (see wordTypos in
 * names.ts: a prefix, or within the query word's typo budget whole or as a start) are found without comparing
 * the query word with every word:
 *  - a sorted list: the words that start with it (a binary search);
 *  - bigram postings with counts: q-gram counting (an edit touches at most 3 of a word's bigrams, a swap of
 *    neighbours included, so a word within d edits shares at least length - 1 - 3d of them) narrows the words
 *    worth an edit distance;
 *  - for words of up to 5 letters, the word and its one-letter deletions: where that bound says nothing (a
 *    4-letter query word with its 1 typo), two words 1 edit apart share one of those.
 * Words are added and removed one at a time, as names come and go.
 */
const SHORT = 5;

function bigramCounts(word: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + 1 < word.length; i++) {
    const g = word.slice(i, i + 2);
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

function withDeletions(word: string): Set<string> {
  const out = new Set([word]);
  for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return out;
}

export class NameWords {
  private sorted: string[] = [];
  /** Added since the list was last sorted: merged on the next lookup (a whole vault's words are sorted once, not spliced in one by one). */
  private unsorted: string[] = [];
  private readonly known = new Set<string>();
  private readonly bigrams = new Map<string, Map<string, number>>();
  private readonly deletions = new Map<string, Set<string>>();

  get size(): number {
    return this.known.size;
  }

  add(word: string): void {
    if (this.known.has(word)) return;
    this.known.add(word);
    this.unsorted.push(word);
    for (const [g, n] of bigramCounts(word)) {
      let posting = this.bigrams.get(g);
      if (!posting) this.bigrams.set(g, (posting = new Map()));
      posting.set(word, n);
    }
    if (word.length <= SHORT) {
      for (const v of withDeletions(word)) {
        let words = this.deletions.get(v);
        if (!words) this.deletions.set(v, (words = new Set()));
        words.add(word);
      }
    }
  }

  remove(word: string): void {
    if (!this.known.delete(word)) return;
    const at = this.lowerBound(word);
    if (this.sorted[at] === word) this.sorted.splice(at, 1);
    else this.unsorted.splice(this.unsorted.indexOf(word), 1);
    for (const g of bigramCounts(word).keys()) {
      const posting = this.bigrams.get(g)!;
      posting.delete(word);
      if (!posting.size) this.bigrams.delete(g);
    }
    if (word.length <= SHORT) {
      for (const v of withDeletions(word)) {
        const words = this.deletions.get(v)!;
        words.delete(word);
        if (!words.size) this.deletions.delete(v);
      }
    }
  }

  /**
   * Every word `w` may match: those starting with it, and (budget > 0) those `typos` puts within the budget.
   * A superset is fine for the caller; missing one is not, hence the bounds above.
   */
  candidates(w: string, budget: number, typos: (word: string) => number): string[] {
    this.merge();
    const out = new Set<string>();
    for (let i = this.lowerBound(w); i < this.sorted.length && this.sorted[i]!.startsWith(w); i++)
      out.add(this.sorted[i]!);
    if (budget <= 0) return [...out];
    const threshold = w.length - 1 - 3 * budget;
    if (threshold >= 1) {
      const shared = new Map<string, number>();
      for (const [g, mine] of bigramCounts(w)) {
        for (const [word, theirs] of this.bigrams.get(g) ?? [])
          shared.set(word, (shared.get(word) ?? 0) + Math.min(mine, theirs));
      }
      for (const [word, n] of shared) if (n >= threshold && !out.has(word) && typos(word) <= budget) out.add(word);
    } else {
      // Only a 4-letter word (budget 1) gets here: a typo within its start needs budget 2, so what is left is
      // a whole word 1 edit away, which shares the word or one of its deletions.
      for (const v of withDeletions(w))
        for (const word of this.deletions.get(v) ?? []) if (!out.has(word) && typos(word) <= budget) out.add(word);
    }
    return [...out];
  }

  private merge(): void {
    if (!this.unsorted.length) return;
    if (this.unsorted.length > 64) this.sorted = [...this.sorted, ...this.unsorted].sort();
    else for (const word of this.unsorted) this.sorted.splice(this.lowerBound(word), 0, word);
    this.unsorted = [];
  }

  private lowerBound(word: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.sorted[mid]! < word) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
