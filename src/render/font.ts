/**
 * The typefaces of everything the service renders, one stack for charts and PDFs: DejaVu Sans first (Latin,
 * Greek, Cyrillic, many symbols; every chart and report without other scripts looks exactly as before),
 * then Noto and Nanum faces for the scripts DejaVu lacks, each from an npm package (SIL Open Font License),
 * so output is the same on every machine and nothing is downloaded:
 *
 * | face               | package                           | covers                                              |
 * | ------------------ | --------------------------------- | --------------------------------------------------- |
 * | DejaVu Sans        | dejavu-fonts-ttf                  | Latin, Greek, Cyrillic, symbols                     |
 * | Noto Naskh Arabic  | @embedpdf/fonts-arabic            | Arabic (shaped: joined letters, lam-alef)           |
 * | Noto Sans Hebrew   | @embedpdf/fonts-hebrew            | Hebrew                                              |
 * | Noto Sans S Chinese| @embedpdf/fonts-sc                | CJK ideographs (all 20,992 of the main block), kana |
 * | NanumGothic        | @expo-google-fonts/nanum-gothic   | Hangul (all 11,172 syllables)                       |
 * | Noto Emoji         | @expo-google-fonts/noto-emoji     | emoji (monochrome outlines: they print and embed)   |
 *
 * A character is drawn with the first face of the stack that has a glyph for it (charts: resvg's per-glyph
 * fallback over the faces in this order; PDFs: text split into runs by face). Only paths are resolved here;
 * the files (about 25 MB with the CJK faces) are read by whoever draws, on first use.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export interface FontFace {
  family: string;
  /** Absolute paths of the TTF/OTF files. */
  regular: string;
  bold: string;
}

/** A file inside a package whose `exports` hides its font folder: found next to its entry point. */
const besideEntry = (pkg: string, file: string) => join(dirname(require.resolve(pkg)), '..', 'fonts', file);

/** The stack, in fallback order: the primary face first. Resolved on first use (start-up stays fast). */
const stack = (): FontFace[] => [
  {
    family: 'DejaVu Sans',
    regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
    bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
  },
  {
    family: 'Noto Naskh Arabic',
    regular: besideEntry('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'),
    bold: besideEntry('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Bold.ttf'),
  },
  {
    family: 'Noto Sans Hebrew',
    regular: besideEntry('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Regular.ttf'),
    bold: besideEntry('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Bold.ttf'),
  },
  {
    family: 'Noto Sans S Chinese',
    regular: besideEntry('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf'),
    bold: besideEntry('@embedpdf/fonts-sc', 'NotoSansHans-Bold.otf'),
  },
  {
    family: 'NanumGothic',
    regular: require.resolve('@expo-google-fonts/nanum-gothic/400Regular/NanumGothic_400Regular.ttf'),
    bold: require.resolve('@expo-google-fonts/nanum-gothic/700Bold/NanumGothic_700Bold.ttf'),
  },
  {
    family: 'Noto Emoji',
    regular: require.resolve('@expo-google-fonts/noto-emoji/400Regular/NotoEmoji_400Regular.ttf'),
    bold: require.resolve('@expo-google-fonts/noto-emoji/700Bold/NotoEmoji_700Bold.ttf'),
  },
];

/**
 * The stack of the PDF report: the same, with DejaVu Sans Condensed first: about 10% narrower at the same
 * height, so a dense table keeps its type size and fits more words per line.
 */
const reportStack = (): FontFace[] => [
  {
    family: 'DejaVu Sans Condensed',
    regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf'),
    bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf'),
  },
  ...fontFaces().slice(1),
];

let faces: FontFace[] | undefined;
let reportFaces: FontFace[] | undefined;
export const fontFaces = (): readonly FontFace[] => (faces ??= stack());
export const reportFontFaces = (): readonly FontFace[] => (reportFaces ??= reportStack());

/** The primary face: the family charts name in their SVG and resvg falls back from. */
export const FONT_FAMILY = 'DejaVu Sans';
/**
 * Every file of the stack for the chart renderer, as (regular, bold) pairs in fallback order: the primary's
 * pair first, so `[0]` and `[1]` stay the primary regular and bold.
 */
export const fontFiles = (): string[] => fontFaces().flatMap((face) => [face.regular, face.bold]);

const kept = new Map<string, Buffer>();
/**
 * The bytes of a font file of the stacks. The report's primary faces are kept once read (every PDF needs
 * them); the fallbacks (megabytes for CJK) are read each time a report needs them.
 */
export function fontFileBytes(path: string): Buffer {
  const primary = reportFontFaces()[0]!;
  if (path !== primary.regular && path !== primary.bold) return readFileSync(path);
  let bytes = kept.get(path);
  if (!bytes) kept.set(path, (bytes = readFileSync(path)));
  return bytes;
}
