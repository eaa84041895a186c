/**
 * Chart snapshots compare pixels, not file bytes (issue 53): the same picture written another way (another
 * compression level, a colour type without alpha) is the same picture; a bar moved by a few pixels is not.
 */
import { encode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { pixelDiff } from '../png-diff.js';

/** A 40x30 white picture with a blue block whose left edge is at `x`. */
function picture(x: number, channels: 3 | 4): Uint8Array {
  const [width, height] = [40, 30];
  const data = new Uint8Array(width * height * channels).fill(255);
  for (let row = 5; row < 25; row++) {
    for (let col = x; col < x + 10; col++) data.set([30, 60, 200], (row * width + col) * channels);
  }
  return encode({ width, height, data, channels, depth: 8 });
}

describe('pixelDiff', () => {
  it('finds no difference between one picture written as RGB and as RGBA (other bytes)', () => {
    const [rgb, rgba] = [picture(10, 3), picture(10, 4)];
    expect(Buffer.from(rgb).equals(Buffer.from(rgba))).toBe(false);
    expect(pixelDiff(rgb, rgba)).toEqual({ sizes: ['40x30', '40x30'], differing: 0, total: 1200 });
  });

  it('counts the pixels a moved block changes: 3 columns of 20 rows on each side', () => {
    expect(pixelDiff(picture(10, 4), picture(13, 4)).differing).toBe(2 * 3 * 20);
  });

  it('treats pictures of other sizes as wholly different', () => {
    const small = encode({ width: 2, height: 2, data: new Uint8Array(16).fill(255), channels: 4, depth: 8 });
    expect(pixelDiff(picture(10, 4), small)).toMatchObject({ sizes: ['40x30', '2x2'], differing: 1200 });
  });
});
