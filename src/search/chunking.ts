/**
 * Transcript chunking: consecutive speaker turns packed up to a size target. A turn is never split unless
 * it alone exceeds the maximum, and then only at sentence ends (or hard at the limit). Each chunk keeps
 * its turn range, speakers and start time, so an excerpt can always be traced back to the transcript.
 * They are stored per meeting at import (search/chunk-index.ts): search ranks them, get_transcript pages through them.
 */
export interface Turn {
  index: number;
  speaker: string;
  text: string;
  atSeconds: number | null;
}

export interface Chunk {
  index: number;
  turnStart: number;
  turnEnd: number;
  speakers: string[];
  startSeconds: number | null;
  text: string;
}

export const CHUNK_TARGET_CHARS = 1200;
export const CHUNK_MAX_CHARS = 2000;

const line = (speaker: string, text: string) => `${speaker}: ${text}`;

/**
 * The least room a piece of a turn gets beside its speaker's name: a name longer than the chunk maximum (the
 * fixture format bounds it, a synced one may not be) must not leave a piece of zero or negative length, which
 * would never shorten what is left to cut.
 */
const MIN_PIECE_CHARS = 200;

/** A turn too long for one chunk, cut at sentence ends into pieces of at most `max` characters (max ≥ 1). */
function splitLongTurn(text: string, max: number): string[] {
  const sentences = text.match(/[^.!?]+[.!?]+["')\]]*\s*|[^.!?]+$/g) ?? [text];
  const pieces: string[] = [];
  let cur = '';
  for (const s of sentences) {
    if (cur && cur.length + s.length > max) {
      pieces.push(cur.trim());
      cur = '';
    }
    cur += s;
    while (cur.length > max) {
      pieces.push(cur.slice(0, max).trim());
      cur = cur.slice(max);
    }
  }
  if (cur.trim()) pieces.push(cur.trim());
  return pieces;
}

export function chunkTurns(turns: Turn[], target = CHUNK_TARGET_CHARS, max = CHUNK_MAX_CHARS): Chunk[] {
  const chunks: Chunk[] = [];
  let lines: string[] = [];
  let members: Turn[] = [];
  let size = 0;
  const flush = () => {
    if (!members.length) return;
    chunks.push({
      index: chunks.length,
      turnStart: members[0]!.index,
      turnEnd: members[members.length - 1]!.index,
      speakers: [...new Set(members.map((t) => t.speaker))],
      startSeconds: members[0]!.atSeconds,
      text: lines.join('\n'),
    });
    lines = [];
    members = [];
    size = 0;
  };
  for (const turn of turns) {
    const l = line(turn.speaker, turn.text);
    if (l.length > max) {
      flush();
      for (const piece of splitLongTurn(turn.text, Math.max(MIN_PIECE_CHARS, max - turn.speaker.length - 2))) {
        lines = [line(turn.speaker, piece)];
        members = [turn];
        flush();
      }
      continue;
    }
    if (size && size + l.length + 1 > target) flush();
    lines.push(l);
    members.push(turn);
    size += l.length + 1;
  }
  flush();
  return chunks;
}
