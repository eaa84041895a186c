/**
 * The key figures of a report's first page (e.g. "72 Findings", "12 Problems", "3 Open conflicts") as a row
 * of tiles: the number large, its label small below. Tiles are as wide as their text needs (at least
 * MIN_WIDTH) and flow onto a second row when the page is too narrow; a long label wraps inside its tile.
 */
import type { Canvas, RGB } from './pdf-file.js';
import { cleanText, wrapText, type FontStack } from './pdf-text.js';

const VALUE_SIZE = 15;
const LABEL_SIZE = 7;
const LABEL_LEADING = 8.5;
const PAD = 7;
const MIN_WIDTH = 44;
export const FIGURE_GAP = 6;

interface Tile {
  x: number;
  width: number;
  value: string;
  label: string[];
}

export interface FigureRow {
  tiles: Tile[];
  height: number;
}

export interface FigureStyle {
  regular: FontStack;
  bold: FontStack;
  value: RGB;
  label: RGB;
  fill: RGB;
}

/** The tiles laid out in rows no wider than `width`, starting at `left`. */
export function figureRows(
  figures: { label: string; value: string }[],
  style: FigureStyle,
  left: number,
  width: number,
): FigureRow[] {
  const rows: FigureRow[] = [];
  let row: Tile[] = [];
  let x = left;
  const maxTile = Math.max(MIN_WIDTH, width / 3);
  for (const figure of figures) {
    const value = cleanText(figure.value);
    const labelText = cleanText(figure.label);
    const natural = Math.max(style.bold.width(value, VALUE_SIZE), style.regular.width(labelText, LABEL_SIZE)) + 2 * PAD;
    const tileWidth = Math.min(maxTile, Math.max(MIN_WIDTH, natural));
    if (row.length && x + tileWidth > left + width) {
      rows.push(finish(row));
      row = [];
      x = left;
    }
    row.push({
      x,
      width: tileWidth,
      value,
      label: wrapText(labelText, style.regular, LABEL_SIZE, tileWidth - 2 * PAD),
    });
    x += tileWidth + FIGURE_GAP;
  }
  if (row.length) rows.push(finish(row));
  return rows;
}

function finish(tiles: Tile[]): FigureRow {
  return {
    tiles,
    height: PAD + VALUE_SIZE + 3 + Math.max(...tiles.map((t) => t.label.length)) * LABEL_LEADING + PAD - 2,
  };
}

/** One tile whose top edge is at `top`, as tall as its row. */
export function drawFigure(c: Canvas, style: FigureStyle, tile: Tile, top: number, height: number): void {
  c.fillRect(tile.x, top - height, tile.width, height, style.fill);
  const valueBase = top - PAD - VALUE_SIZE * 0.78;
  c.text(tile.value, tile.x + PAD, valueBase, style.bold, VALUE_SIZE, style.value);
  tile.label.forEach((line, k) =>
    c.text(line, tile.x + PAD, valueBase - 5 - LABEL_LEADING * (k + 0.8), style.regular, LABEL_SIZE, style.label),
  );
}
