/**
 * What the vector index asks of an embedder, and how a chunk becomes one vector: its text as the embedder reads
 * it (embeddingText: editorial marks out), cut into windows of whole lines when longer than the model reads, each
 * embedded, and the windows' vectors averaged.
 */
import { embeddingText } from '../store/embedding-text.js';

export interface EmbedderLike {
  readonly id: string;
  readonly dims: number;
  readonly windowChars?: number;
  readonly kernel?: 'native' | 'wasm';
  /** How many query embeds it runs at once (USE lite: 1, its one query worker); see fair-share.ts. */
  readonly queryLanes?: number;
  embed(
    texts: string[],
    options?: { signal?: AbortSignal; background?: boolean; caller?: string },
  ): Promise<Float32Array[]>;
}

/** A chunk cut into windows the model reads whole: whole "Speaker: words" lines where they fit, at most 8. */
export function embeddingWindows(text: string, windowChars: number): string[] {
  const windows: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    for (let rest = line; rest.length; ) {
      let piece = rest;
      if (piece.length > windowChars) {
        const cut = rest.lastIndexOf(' ', windowChars);
        piece = rest.slice(0, cut > windowChars / 2 ? cut : windowChars);
      }
      rest = rest.slice(piece.length).trimStart();
      if (current && current.length + piece.length + 1 > windowChars) {
        windows.push(current);
        current = '';
      }
      current = current ? `${current}\n${piece}` : piece;
    }
  }
  if (current) windows.push(current);
  return windows.slice(0, 8);
}

/**
 * Vectors for chunk texts, as the embedder reads them (embeddingText). A text longer than the model reads is
 * embedded window by window and the windows' vectors averaged (then normalised), so the whole chunk counts, not
 * just its start.
 */
export async function embedChunkTexts(
  embedder: EmbedderLike,
  chunkTexts: string[],
  signal?: AbortSignal,
  background = false,
): Promise<Float32Array[]> {
  const texts = chunkTexts.map(embeddingText);
  const windowChars = embedder.windowChars;
  if (!windowChars) return embedder.embed(texts, { signal, background });
  const parts = texts.map((t) => embeddingWindows(t, windowChars));
  const flat = await embedder.embed(parts.flat(), { signal, background });
  let next = 0;
  return parts.map((p) => {
    const mean = new Float32Array(embedder.dims);
    for (let i = 0; i < p.length; i++) {
      const v = flat[next++]!;
      for (let d = 0; d < mean.length; d++) mean[d]! += v[d]!;
    }
    const norm = Math.hypot(...mean) || 1;
    for (let d = 0; d < mean.length; d++) mean[d]! /= norm;
    return mean;
  });
}
