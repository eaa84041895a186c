/**
 * How a vector is written down: float32 blobs (the embedding cache), float16 (the re-scoring copy: half the
 * bytes, and it ranks as float32 did on the recall bench) and sign bits (the vec0 table, searched by Hamming
 * distance). Pure functions, no store.
 */
export const toBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** A stored float vector as a Float32Array (copied when the blob is not 4-byte aligned). */
export function floats(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(Uint8Array.from(blob).buffer);
}

export const bitDims = (dims: number) => Math.ceil(dims / 8) * 8;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The IEEE float16 bits of a number (round to nearest even; subnormals; overflow to infinity). */
export function toHalf(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | h;
}

let halves: Float32Array | undefined;
/** float16 bits → value, for all 65,536 of them (256 KB, built on first use). */
export function halfTable(): Float32Array {
  if (!halves) {
    halves = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const e = (h >>> 10) & 0x1f;
      const m = h & 0x3ff;
      halves[h] =
        e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
    }
  }
  return halves;
}

/** A vector as float16, little-endian. */
export function halfBlob(v: Float32Array): Buffer {
  const out = Buffer.alloc(v.length * 2);
  for (let i = 0; i < v.length; i++) out.writeUInt16LE(toHalf(v[i]!), i * 2);
  return out;
}

/** The sign bits of a vector, packed low bit first (as sqlite-vec's vec_quantize_binary), padded to whole bytes. */
export function signBits(v: Float32Array): Buffer {
  const out = Buffer.alloc(bitDims(v.length) / 8);
  for (let i = 0; i < v.length; i++) if (v[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
}
