/**
 * The findings report's executive summary, the pages before the detail: the title, the headline numbers,
 * then a chart of the problems by mentions (drawn by the chart renderer render_chart uses, in the vault
 * theme), the top problems and opportunities each with one line and its strongest verbatim quote (speaker,
 * meeting, date), then the open conflicts with their claims side by side. What is featured is chosen by
 * featured.ts; this module only lays it out, portrait A4, on pages of its own written as they are finished.
 */
import { renderChart, type ChartImage } from '../chart/index.js';
import { mentionsChartSpec } from './mentions-chart.js';
import type { Featured, FeaturedFinding, FeaturedQuote } from './featured.js';
import { Canvas, type PdfFile, type RGB } from './pdf-file.js';
import { drawFigure, FIGURE_GAP, figureRows } from './pdf-figures.js';
import { A4, INK, MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X, MUTED, NAVY, RULE, ZEBRA } from './pdf-style.js';
import { cleanText, wrapText, type FontStack } from './pdf-text.js';
import { shortDate } from '../../time.js';

/** What the summary draws: the featured choice, and the chart made from it (none when it could not be drawn). */
export interface ReportSummary {
  featured: Featured;
  /** may still be rendering: the writer awaits it only when it draws the chart, so the render overlaps loading the fonts */
  chart?: ChartImage | Promise<ChartImage | undefined>;
}

/** The report's fonts (its page and colours are pdf-style.ts). */
export interface SummaryFonts {
  regular: FontStack;
  bold: FontStack;
}

const PORTRAIT = A4;
const style = { navy: NAVY, ink: INK, muted: MUTED, rule: RULE, zebra: ZEBRA };
/** The chart's width in points: a slide-shaped chart (800 × 450) at about half size, its labels about 6 pt. */
const CHART_WIDTH = 430;
const GUTTER = 14;
/** Claims of one conflict side by side, and the characters of one claim the summary quotes (docs/exports.md). */
const SUMMARY_CLAIMS = 3;
const CLAIM_CHARS = 400;
const clip = (text: string) =>
  text.length > CLAIM_CHARS ? `${text.slice(0, CLAIM_CHARS).replace(/\s+\S*$/, '')}…` : text;

/** "Tom Becker, Current-state playback and validation, 19 Nov 2026" */
const attribution = (q: FeaturedQuote) => [q.speaker, q.meeting, shortDate(q.date)].filter(Boolean).join(', ');

/**
 * The chart of the summary: the most mentioned problems as horizontal bars, in the vault theme, by the
 * renderer of render_chart. Undefined when there are no problems (or the renderer fails: the summary goes
 * out without its chart rather than not at all).
 */
export async function summaryChart(featured: Featured, signal?: AbortSignal): Promise<ChartImage | undefined> {
  if (!featured.problemsByMentions.length) return undefined;
  const spec = mentionsChartSpec(featured.problemsByMentions);
  try {
    const { png, width, height } = await renderChart(spec, { title: 'Problems by mentions', size: 'slide', signal });
    return { png, width, height };
  } catch (err) {
    if (signal?.aborted) throw err;
    return undefined;
  }
}

/** The summary's last page, still open: the detail starts below its end when the detail's pages are portrait too. */
export interface OpenPage {
  canvas: Canvas;
  size: [number, number];
  /**
   * Heads the detail on this page (a rule and "Findings in detail, by type"; on a new summary-style page
   * when too little room is left) and returns where the detail starts. Not called when the detail's pages
   * are of another size: those start afresh.
   */
  openDetail(): { canvas: Canvas; y: number };
}

/** Draws the summary pages into `file`; the last one is left open for the detail (see OpenPage). */
export async function writeSummary(
  file: PdfFile,
  fonts: SummaryFonts,
  head: { title: string; subtitle?: string; meta: { label: string; value: string }[] },
  summary: ReportSummary,
): Promise<OpenPage> {
  const [width, height] = PORTRAIT;
  const contentWidth = width - 2 * MARGIN_X;
  const { regular, bold } = fonts;
  let c = new Canvas();
  let y = height - MARGIN_TOP + 6;

  const newPage = () => {
    file.addPage(c.content(), PORTRAIT);
    c = new Canvas();
    y = height - MARGIN_TOP + 4;
    c.text(cleanText(head.title), MARGIN_X, y, bold, 8, style.navy);
    c.textRight('Executive summary', width - MARGIN_X, y, regular, 7, style.muted);
    c.line(MARGIN_X, y - 4, width - MARGIN_X, y - 4, style.rule, 0.5);
    y -= 16;
  };
  const room = (need: number) => {
    if (y - need < MARGIN_BOTTOM + 10) newPage();
  };
  const lines = (text: string, stack: FontStack, size: number, max: number) =>
    wrapText(cleanText(text), stack, size, max);
  const paragraph = (
    text: string,
    stack: FontStack,
    size: number,
    color: RGB,
    left = MARGIN_X,
    max = contentWidth,
    leading = size * 1.3,
  ) => {
    for (const line of lines(text, stack, size, max)) {
      room(leading);
      y -= leading;
      c.text(line, left, y, stack, size, color);
    }
  };
  const heading = (text: string, keepWith: number) => {
    room(22 + keepWith);
    y -= 18;
    c.text(text, MARGIN_X, y, bold, 11, style.navy);
    y -= 4;
  };

  // Title block
  c.fillRect(0, height - 6, width, 6, style.navy);
  c.text('REPORT', MARGIN_X, y - 8, bold, 7, style.muted);
  y -= 10;
  paragraph(head.title, bold, 16, style.navy, MARGIN_X, contentWidth, 20);
  if (head.subtitle) paragraph(head.subtitle, regular, 9, style.muted, MARGIN_X, contentWidth, 12);
  y -= 4;
  paragraph(head.meta.map((m) => `${m.label}: ${m.value}`).join('   ·   '), regular, 7.5, style.muted);
  y -= 12;

  // The headline numbers in a row, then the chart, wide enough that its labels read in print
  const figureStyle = { regular, bold, value: style.navy, label: style.muted, fill: style.zebra };
  for (const row of figureRows(summary.featured.headline, figureStyle, MARGIN_X, contentWidth)) {
    for (const tile of row.tiles) drawFigure(c, figureStyle, tile, y, row.height);
    y -= row.height + FIGURE_GAP;
  }
  const chart = await summary.chart;
  if (chart) {
    const chartWidth = Math.min(CHART_WIDTH, contentWidth);
    const chartHeight = (chartWidth * chart.height) / chart.width;
    const key = await file.addPng(chart.png);
    y -= 6;
    c.image(key, MARGIN_X, y - chartHeight, chartWidth, chartHeight);
    y -= chartHeight;
  }

  const finding = (f: FeaturedFinding) => {
    const quoteLines = f.quote ? lines(`“${f.quote.quote}”`, regular, 8, contentWidth - 14).length : 0;
    room(14 + 11 + quoteLines * 10.5 + 12);
    y -= 14;
    c.text(cleanText(f.name), MARGIN_X, y, bold, 9.5, style.ink);
    c.textRight(`${f.mentions} mention${f.mentions === 1 ? '' : 's'}`, width - MARGIN_X, y, regular, 7.5, style.muted);
    if (f.line) paragraph(f.line, regular, 8, style.ink, MARGIN_X, contentWidth, 10.5);
    if (f.quote) {
      const from = y;
      y -= 2;
      paragraph(`“${f.quote.quote}”`, regular, 8, style.navy, MARGIN_X + 10, contentWidth - 14, 10.5);
      paragraph(`— ${attribution(f.quote)}`, regular, 7, style.muted, MARGIN_X + 10, contentWidth - 14, 9.5);
      c.fillRect(MARGIN_X + 2, y - 2, 2, from - y, style.rule);
    }
    y -= 4;
  };
  const { problems, opportunities, openConflicts, openConflictCount } = summary.featured;
  if (problems.length) {
    heading('Top problems', 60);
    problems.forEach(finding);
  }
  if (opportunities.length) {
    heading('Top opportunities', 60);
    opportunities.forEach(finding);
  }

  // Open conflicts: each claim in a column of its own, side by side
  if (openConflicts.length) {
    heading(`Open conflicts (${openConflictCount})`, 70);
    const listed =
      openConflictCount > openConflicts.length
        ? ` The first ${openConflicts.length} by title are listed; the conflicts report has them all.`
        : '';
    paragraph(
      `Two sources disagree on each of these; each needs a decision before the numbers are used.${listed}`,
      regular,
      7.5,
      style.muted,
    );
    for (const conflict of openConflicts) {
      // At most SUMMARY_CLAIMS columns side by side (a conflict of thousands of claims would be columns of one letter).
      const shown = conflict.claims.slice(0, SUMMARY_CLAIMS);
      const n = Math.max(1, shown.length);
      const colWidth = (contentWidth - GUTTER * (n - 1)) / n;
      const columns = shown.map((q) => ({
        quote: lines(`“${clip(q.quote)}”`, regular, 8, colWidth - 8),
        who: lines(attribution(q), regular, 7, colWidth - 8),
      }));
      const more = conflict.claimCount - shown.length;
      if (more > 0) columns[n - 1]!.who.push(`and ${more.toLocaleString('en')} more claim${more === 1 ? '' : 's'}`);
      const blockHeight = Math.max(0, ...columns.map((col) => col.quote.length * 10.5 + col.who.length * 9.5)) + 8;
      const titleLines = lines(conflict.title, bold, 9, contentWidth);
      room(12 + titleLines.length * 12 + blockHeight);
      y -= 8;
      for (const line of titleLines) {
        y -= 12;
        c.text(line, MARGIN_X, y, bold, 9, style.ink);
      }
      y -= 4;
      c.fillRect(MARGIN_X, y - blockHeight, contentWidth, blockHeight, style.zebra);
      columns.forEach((col, i) => {
        const x = MARGIN_X + i * (colWidth + GUTTER) + 4;
        let at = y - 2;
        for (const line of col.quote) c.text(line, x, (at -= 10.5), regular, 8, style.navy);
        for (const line of col.who) c.text(line, x, (at -= 9.5), regular, 7, style.muted);
      });
      y -= blockHeight;
    }
  }
  return {
    get canvas() {
      return c;
    },
    size: PORTRAIT,
    openDetail() {
      // What follows is the detail: a rule and a heading of its own, kept with room for its first rows.
      room(120);
      y -= 22;
      c.line(MARGIN_X, y, width - MARGIN_X, y, style.rule, 0.5);
      y -= 18;
      c.text('Findings in detail, by type', MARGIN_X, y, bold, 12, style.navy);
      return { canvas: c, y: y - 4 };
    },
  };
}
