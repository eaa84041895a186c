/**
 * The stdio input's line limit. The SDK's stdio transport closes itself when one line outgrows its read
 * buffer, and then nothing reads stdin again: the server falls silent and exits. This filter sits between
 * stdin and the transport: lines within the limit pass through whole, a longer line is dropped as it
 * streams (never held in memory past the limit) and reported, so the server can answer it and go on.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { nestingProblem } from './json-nesting.js';

/** The longest stdio message, in bytes without its newline: the SDK's own read limit (10 MiB). */
export const MAX_STDIO_LINE_BYTES = 10 * 1024 * 1024;

export interface OverLongLine {
  bytes: number;
  /** the JSON-RPC id, when it could be read off the line's start or end without parsing the rest */
  id?: string | number;
}

/** Bytes kept from each end of an over-long line to find its id. */
const EDGE_BYTES = 256;
const NEWLINE = 0x0a;

/** A line within the size limit whose JSON nests too deep (../json-nesting): refused before the SDK parses it. */
export interface TooDeepLine {
  problem: string;
  id?: string | number;
}

export class LineLimit extends Transform {
  /** the current line while it is within the limit */
  private parts: Buffer[] = [];
  private bytes = 0;
  private overLong = false;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(
    private readonly limit: number,
    private readonly onOverLong: (line: OverLongLine) => void,
    private readonly onTooDeep: (line: TooDeepLine) => void = () => {},
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.add(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) break;
      this.endLine(true);
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line without its newline is passed on as is: the transport waits for the newline, like before.
    if (this.bytes > 0) this.endLine(false);
    done();
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.head.length < EDGE_BYTES)
      this.head = Buffer.concat([this.head, piece.subarray(0, EDGE_BYTES - this.head.length)]);
    this.bytes += piece.length;
    if (!this.overLong && this.bytes > this.limit) {
      this.overLong = true;
      this.parts = [];
    }
    if (this.overLong) {
      const joined = Buffer.concat([this.tail, piece.subarray(-EDGE_BYTES)]);
      this.tail = joined.subarray(-EDGE_BYTES);
    } else {
      this.parts.push(piece);
    }
  }

  private endLine(withNewline: boolean): void {
    if (this.overLong)
      this.onOverLong({ bytes: this.bytes, id: idOf(this.head.toString('utf8'), this.tail.toString('utf8')) });
    else {
      const line = Buffer.concat(this.parts);
      const problem = nestingProblem(line);
      if (problem) this.onTooDeep({ problem, id: parsedId(line) });
      else this.push(withNewline ? Buffer.concat([line, Buffer.from('\n')]) : line);
    }
    this.parts = [];
    this.bytes = 0;
    this.overLong = false;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
  }
}

const ID_VALUE = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")`;
/** `{"id": …` or `{"jsonrpc": "2.0", "id": …` at the very start (Python and most hand-written clients). */
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}(?=\s*[,}])`);
/**
 * `, "id": … }` closing the line (the TypeScript SDK writes the id last). Inside a JSON string every quote
 * is escaped, so a `"id"` after a comma or brace is a key, and the one brace after it closes the message.
 */
const TRAILING_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

function idOf(head: string, tail: string): string | number | undefined {
  const m = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return undefined;
  }
}

/** The id of a line that parses as a JSON-RPC request (JSON.parse does not recurse on the stack), if any. */
function parsedId(line: Buffer): string | number | undefined {
  try {
    const id = (JSON.parse(line.toString('utf8')) as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
