/**
 * Pictures compared as a person would: decoded (fast-png) and compared pixel by pixel with a tolerance, not by the
 * bytes of the file (an encoder's setting or a last-bit antialiasing change is not a different picture).
 */
import { decode } from 'fast-png';

export interface PixelDiff {
  /** Both pictures' sizes, "WxH"; the pixels are compared only when they agree. */
  sizes: [string, string];
  /** Pixels where some channel (RGBA, 8-bit) differs by more than `channel`. */
  differing: number;
  total: number;
}

/** How two PNGs differ: `channel` is the difference of a channel value (0-255) below which a pixel counts as the same. */
export function pixelDiff(a: Uint8Array, b: Uint8Array, channel = 24): PixelDiff {
  const [x, y] = [rgba(a), rgba(b)];
  const sizes: [string, string] = [`${x.width}x${x.height}`, `${y.width}x${y.height}`];
  const total = x.width * x.height;
  if (sizes[0] !== sizes[1]) return { sizes, differing: total, total };
  let differing = 0;
  for (let p = 0; p < total * 4; p += 4) {
    for (let c = 0; c < 4; c++) {
      if (Math.abs(x.data[p + c]! - y.data[p + c]!) > channel) {
        differing++;
        break;
      }
    }
  }
  return { sizes, differing, total };
}

/** A PNG as 8-bit RGBA pixels, whatever its colour type and depth. */
function rgba(png: Uint8Array): { width: number; height: number; data: Uint8Array } {
  const image = decode(png);
  const { width, height, channels, depth } = image;
  if (depth !== 8) throw new Error(`a PNG of depth ${depth}: only 8-bit pictures are compared`);
  const source = image.data as Uint8Array;
  if (channels === 4) return { width, height, data: source };
  const data = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += channels) {
    const [r, g, b] =
      channels >= 3 ? [source[j]!, source[j + 1]!, source[j + 2]!] : [source[j]!, source[j]!, source[j]!];
    data.set([r, g, b, channels === 2 || channels === 4 ? source[j + channels - 1]! : 255], i * 4);
  }
  return { width, height, data };
}
