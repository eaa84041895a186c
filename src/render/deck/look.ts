/**
 * The deck's look: the vault theme's colours and face (src/render/chart/style.ts, font.ts) on a 16:9 slide,
 * and the grid every slide is laid out on (inches).
 */
import { FONT_FAMILY } from '../font.js';
import { GRID, INK, MUTED, TEXT, VAULT_PALETTE } from '../chart/style.js';

/** pptxgenjs wants colours without '#'. */
const hex = (c: string) => c.replace('#', '').toUpperCase();

export const FACE = FONT_FAMILY;
export const COLOR = {
  ink: hex(INK),
  text: hex(TEXT),
  muted: hex(MUTED),
  rule: hex(GRID),
  accent: hex(VAULT_PALETTE[0]),
  second: hex(VAULT_PALETTE[1]),
  navy: hex(VAULT_PALETTE[11]),
  white: 'FFFFFF',
  quoteFill: 'EEF3FC',
  panelFill: 'F6F7F9',
} as const;

/** LAYOUT_WIDE: 13.333 × 7.5 in, 16:9. */
export const SLIDE = { w: 13.333, h: 7.5 } as const;
export const GRID_IN = {
  x: 0.6,
  w: SLIDE.w - 1.2,
  titleY: 0.38,
  titleH: 0.9,
  /** Where content starts and ends (above the footer). */
  top: 1.45,
  bottom: 6.85,
  footerY: 7.02,
  footerH: 0.28,
  gap: 0.35,
} as const;

export const SIZE = {
  title: 26,
  coverTitle: 40,
  coverSub: 18,
  heading: 16,
  name: 18,
  body: 12.5,
  small: 11,
  quote: 14,
  claim: 20,
  tileNumber: 40,
  tileLabel: 13,
  footer: 9,
} as const;
