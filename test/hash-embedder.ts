/**
 * A small deterministic bag-of-words embedder for tests of transcript search on a real store with real
 * sqlite-vec: fast and exact on every machine. The real model is exercised by embedder.test.ts and by
 * `npm run bench:search`.
 */
import type { EmbedderLike } from '../src/search/embed-chunks.js';
import { normalize } from '../src/store/text.js';

/** Each word hashes to one of 64 dimensions; synonyms can be declared to land on the same one. */
export class HashEmbedder implements EmbedderLike {
  readonly id: string = 'test-hash-64';
  readonly dims = 64;
  calls = 0;
  texts = 0;
  constructor(private readonly synonyms: Record<string, string> = {}) {}
  async embed(texts: string[]) {
    this.calls++;
    this.texts += texts.length;
    return texts.map((t) => {
      const v = new Float32Array(this.dims);
      for (const raw of normalize(t).split(' ')) {
        const w = this.synonyms[raw] ?? raw;
        let h = 0;
        for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
        v[h % this.dims]! += 1;
      }
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }
}
