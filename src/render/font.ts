/**
 * The one typeface of everything the service renders: DejaVu Sans, a TTF that ships in the npm package
 * `dejavu-fonts-ttf` (wide Unicode coverage: Latin, Greek, Cyrillic, symbols). Charts measure and draw
 * text with it, PDFs embed it, so output looks the same and is byte-stable on every machine.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const FONT_FAMILY = 'DejaVu Sans';
export const FONT_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
export const FONT_BOLD_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

let regular: Buffer | undefined;
let bold: Buffer | undefined;
export const fontBytes = () => (regular ??= readFileSync(FONT_PATH));
export const boldFontBytes = () => (bold ??= readFileSync(FONT_BOLD_PATH));
