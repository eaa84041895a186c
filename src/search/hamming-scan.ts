/**
 * Nearest neighbours by Hamming distance, computed in JS straight over sqlite-vec's stored blocks of sign bits
 * (vec0's own bit scan is the fallback, see vectors.ts): a popcount over 32-bit words, then a counting
 * selection of the nearest (distances are small integers). Pure functions over the blocks, no store.
 */

/** A vec0 block: validity bitmap, rowids (int64 LE), codes back to back. */
export type Block = [Buffer, Buffer, Buffer];

export function firstCode([validity, , vectors]: Block): Buffer | undefined {
  const slots = validity.length * 8;
  const bytes = vectors.length / slots;
  for (let i = 0; i < slots; i++)
    if ((validity[i >> 3]! >> (i & 7)) & 1) return vectors.subarray(i * bytes, (i + 1) * bytes);
  return undefined;
}

const POPCOUNT8 = Uint8Array.from({ length: 256 }, (_, i) => {
  let c = 0;
  for (let x = i; x; x >>= 1) c += x & 1;
  return c;
});

const aligned32 = (b: Buffer) => (b.byteOffset % 4 === 0 ? b : Buffer.from(b));

/** Hamming distances of one query code to the scanned codes, and the id of the i-th. */
export interface ScannedCodes {
  distances: Uint16Array;
  count: number;
  id: (i: number) => number;
}

/**
 * Hamming distance of `code` to every stored code of the vault (optionally among `allowed` ids only), with
 * a function that gives the id of the i-th distance; undefined when a block does not have the expected shape.
 * Ids are read only for the few that `id()` is asked for (unless `allowed` needs them all).
 */
export function scanBlocks(blocks: readonly Block[], code: Buffer, allowed?: Set<number>): ScannedCodes | undefined {
  const bytes = code.length;
  let slotsTotal = 0;
  for (const [validity] of blocks) slotsTotal += validity.length * 8;
  const distances = new Uint16Array(slotsTotal);
  /** position of each distance: block index × 2^16 + slot */
  const where = new Uint32Array(slotsTotal);
  const views: DataView[] = [];
  const words = bytes % 4 === 0 ? bytes / 4 : 0;
  const q = aligned32(code);
  const q32 = words ? new Uint32Array(q.buffer, q.byteOffset, words) : undefined;
  const idAt = (block: number, slot: number) =>
    views[block]!.getUint32(slot * 8, true) + views[block]!.getInt32(slot * 8 + 4, true) * 4294967296; // int64 LE
  let count = 0;
  for (let b = 0; b < blocks.length; b++) {
    const [validity, rowidBlob, vectorBlob] = blocks[b]!;
    const slots = validity.length * 8;
    if (slots > 65536 || rowidBlob.length !== slots * 8 || vectorBlob.length !== slots * bytes) return undefined;
    views.push(new DataView(rowidBlob.buffer, rowidBlob.byteOffset, rowidBlob.byteLength));
    const v = aligned32(vectorBlob);
    const v32 = q32 ? new Uint32Array(v.buffer, v.byteOffset, v.length / 4) : undefined;
    for (let i = 0; i < slots; i++) {
      if (!((validity[i >> 3]! >> (i & 7)) & 1)) continue;
      if (allowed && !allowed.has(idAt(b, i))) continue;
      let d = 0;
      if (v32 && q32) {
        for (let w = 0, o = i * words; w < words; w++) {
          let x = v32[o + w]! ^ q32[w]!;
          x -= (x >>> 1) & 0x55555555;
          x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
          d += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
        }
      } else {
        for (let k = 0, o = i * bytes; k < bytes; k++) d += POPCOUNT8[vectorBlob[o + k]! ^ code[k]!]!;
      }
      where[count] = b * 65536 + i;
      distances[count++] = d;
    }
  }
  return { distances, count, id: (i) => idAt(Math.floor(where[i]! / 65536), where[i]! % 65536) };
}

/** The `n` ids nearest by Hamming distance among scanned codes (ties in block order). */
export function nearestScanned(scanned: ScannedCodes, n: number, bits: number): number[] {
  const { distances, count } = scanned;
  // Counting selection: distances are small integers (0 … bits).
  const histogram = new Uint32Array(bits + 2);
  for (let i = 0; i < count; i++) histogram[distances[i]!]!++;
  let cut = 0;
  let below = 0;
  while (cut < histogram.length - 1 && below + histogram[cut]! < n) below += histogram[cut++]!;
  let atCut = n - below;
  const picked: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const d = distances[i]!;
    if (d < cut || (d === cut && atCut-- > 0)) picked.push([d, scanned.id(i)]);
  }
  return picked.sort((a, b) => a[0] - b[0]).map(([, id]) => id);
}
