import { embeddingWindows } from '../../src/search/embed-chunks.js';

/**
 * A chunk's text as units of about `chars` characters: whole "Speaker: words" lines packed while they fit, a
 * longer line cut at spaces (embeddingWindows without its cap of 8 windows).
 */
export function chunkUnits(text: string, chars: number): string[] {
  const out: string[] = [];
  let cur = '';
  for (const line of text.split('\n')) {
    for (const piece of line.length > chars ? embeddingWindows(line, chars).concat() : [line]) {
      if (cur && cur.length + piece.length + 1 > chars) {
        out.push(cur);
        cur = '';
      }
      cur = cur ? `${cur}\n${piece}` : piece;
    }
  }
  if (cur) out.push(cur);
  return out;
}
