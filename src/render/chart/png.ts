/** The PNG chunks the chart engine reads and writes: the size in IHDR, and the density in pHYs. */
import { crc32 } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk; throws if the bytes are not a PNG. */
export function readPngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG image');
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const METRES_PER_INCH = 0.0254;
/** End of the IHDR chunk: signature (8) + length, type, 13 bytes of data, CRC (25). */
const IHDR_END = 33;

/**
 * The PNG with a pHYs chunk saying it has `dpi` pixels per inch, placed right after IHDR (where the format
 * wants it, before the image data). Office and image viewers use it to size the picture: a chart drawn at 2×
 * is marked 144 dpi, so it pastes at its size in points rather than twice that. Replaces a pHYs already there.
 */
export function withDensity(png: Buffer, dpi: number): Buffer {
  readPngSize(png);
  const perMetre = Math.round(dpi / METRES_PER_INCH);
  const data = Buffer.alloc(9);
  data.writeUInt32BE(perMetre, 0);
  data.writeUInt32BE(perMetre, 4);
  data.writeUInt8(1, 8); // unit: metre
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('pHYs', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return Buffer.concat([png.subarray(0, IHDR_END), chunk, withoutChunk(png.subarray(IHDR_END), 'pHYs')]);
}

/** The pixels-per-inch a PNG's pHYs chunk declares, or undefined when it has none (or no unit). */
export function readPngDensity(png: Buffer): number | undefined {
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'pHYs' && png[at + 16] === 1) return png.readUInt32BE(at + 8) * METRES_PER_INCH;
    if (type === 'IDAT') return undefined;
    at += 12 + length;
  }
  return undefined;
}

/** The chunks after IHDR, minus those of `type`. */
function withoutChunk(chunks: Buffer, type: string): Buffer {
  const kept: Buffer[] = [];
  for (let at = 0; at + 12 <= chunks.length; ) {
    const end = at + 12 + chunks.readUInt32BE(at);
    if (chunks.toString('latin1', at + 4, at + 8) !== type) kept.push(chunks.subarray(at, end));
    at = end;
  }
  return Buffer.concat(kept);
}
