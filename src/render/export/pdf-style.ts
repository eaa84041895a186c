/** The printed report's page and colours, shared by the table (pdf.ts) and the executive summary (pdf-summary.ts). */
import type { RGB } from './pdf-file.js';

export const A4: [number, number] = [595.28, 841.89];
export const MARGIN_X = 30;
export const MARGIN_TOP = 34;
export const MARGIN_BOTTOM = 38;

export const NAVY: RGB = '0.122 0.227 0.373'; // #1F3A5F, as the xlsx header
export const INK: RGB = '0.13 0.15 0.18';
export const MUTED: RGB = '0.4 0.44 0.5';
export const RULE: RGB = '0.8 0.83 0.87';
export const ZEBRA: RGB = '0.955 0.965 0.98';
export const WHITE: RGB = '1 1 1';
