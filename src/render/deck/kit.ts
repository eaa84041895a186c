/**
 * What every slide module shares: pptxgenjs's types, the two masters' names, a text box's defaults, a titled
 * content slide, and how a quote is written on a slide and cited in the notes.
 */
import type PptxGen from 'pptxgenjs';
import type { FeaturedQuote } from './featured.js';
import { fit, slideText } from './fit.js';
import { COLOR, FACE, GRID_IN, SIZE } from './look.js';
import { shortDate } from '../../time.js';

// pptxgenjs's types are CommonJS: under NodeNext their default export is the module, and its `default` the class.
export type Pres = PptxGen.default;
export type Slide = PptxGen.default.Slide;
export type TextProps = PptxGen.default.TextPropsOptions;
export type TextRun = PptxGen.default.TextProps;
export type TableCell = PptxGen.default.TableCell;
export type TableCellProps = PptxGen.default.TableCellProps;

export const MASTER = 'VAULT_CONTENT';
export const COVER = 'VAULT_COVER';

export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/** Text box defaults: the deck face, no inner margin (boxes are measured as they are), top-aligned. */
export const base = (o: TextProps): TextProps => ({
  fontFace: FACE,
  margin: 0,
  valign: 'top',
  color: COLOR.text,
  ...o,
});

/** A content slide with its title (up to two lines). */
export function titled(pres: Pres, title: string): Slide {
  const slide = pres.addSlide({ masterName: MASTER });
  slide.addText(
    fit(title, { w: GRID_IN.w, h: GRID_IN.titleH, size: SIZE.title, bold: true, maxLines: 2 }),
    base({
      x: GRID_IN.x,
      y: GRID_IN.titleY,
      w: GRID_IN.w,
      h: GRID_IN.titleH,
      fontSize: SIZE.title,
      bold: true,
      color: COLOR.ink,
      valign: 'middle',
    }),
  );
  return slide;
}

export const quoteText = (quote: string) => `“${slideText(quote)}”`;

/** "— Speaker" in bold, then the date and the meeting (the date first, so a long meeting name never hides it). */
export function attribution(q: FeaturedQuote, w: number, size: number): TextRun[] {
  const where = [shortDate(q.date), slideText(q.meeting)].filter(Boolean).join(' · ');
  return [
    {
      text: fit(`— ${slideText(q.speaker) || 'Unknown speaker'}`, { w, h: 1, size, bold: true, maxLines: 1 }),
      options: { bold: true, color: COLOR.ink, breakLine: true },
    },
    { text: fit(where || 'Meeting not recorded', { w, h: 1, size, maxLines: 2 }), options: {} },
  ];
}

/** The most characters of one quote the notes cite (a claim of a megabyte would otherwise be the notes). */
const NOTE_QUOTE_CHARS = 600;

/** A quote as the notes cite it: the words, who, which meeting (name and id), the turn and the day. */
export function evidenceLine(q: FeaturedQuote): string {
  const where = [
    slideText(q.meeting) || 'no meeting',
    q.meetingId ? `meeting ${slideText(q.meetingId)}` : '',
    q.turn === undefined ? '' : `turn ${q.turn}`,
    q.date ?? '',
  ]
    .filter(Boolean)
    .join(', ');
  const words = slideText(q.quote);
  return `"${words.length > NOTE_QUOTE_CHARS ? `${words.slice(0, NOTE_QUOTE_CHARS)}…` : words}" (${slideText(q.speaker)}, ${where})`;
}
