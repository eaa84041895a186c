/**
 * A printable report with pdf-lib: a title block (title, subtitle, meta, key figures as tiles) at the top of
 * the first page, then the table, paginated, with the header row repeated on every page, long text wrapped
 * inside its column (a row taller than a page continues on the next one: nothing is ever cut off), zebra
 * rows, and "Page n of N" in every footer. A4, in the orientation that needs fewer pages. Rows may come in
 * sections (`TableExport.sections`, e.g. findings by type): a heading, kept with its first row, then the
 * table header again. Pages after the first carry a running header: the title, wrapped rather than cut, and
 * the current section.
 *
 * The table itself is pdf-table.ts. Column widths come from the content (pdf-layout.ts): the columns that hold the most text get the room.
 * Text is the font stack of src/render/font.ts (DejaVu Sans, then faces for Arabic, Hebrew, CJK, Hangul and
 * emoji), embedded as subsets, split into runs by face, right-to-left runs reordered and shaped (pdf-text.ts),
 * so any script a client writes renders and stays searchable and copyable (ToUnicode maps). A character no
 * face has is drawn as U+FFFD (�) and named in the result's warnings; control characters are dropped, tabs
 * become spaces.
 *
 * Memory: pdf-lib keeps the whole document in memory, and its drawing API keeps one object per operator
 * until save: far too much for 100,000 rows. So pages are written by pdf-file.ts, straight to the file as
 * each one is finished: content operators built as text, deflated, written with the page dictionary, and
 * forgotten. pdf-lib (with fontkit) is used for what it does well: subsetting and embedding the fonts, whose
 * objects are copied into the file at the end. Memory stays flat whatever the row count (npm run
 * bench:actions measures it).
 */
import { open } from 'node:fs/promises';
import { fontFileBytes, reportFontFaces } from '../font.js';
import { writeAtomically } from './atomic.js';
import { Canvas, PdfFile } from './pdf-file.js';
import { MARGIN_BOTTOM, MARGIN_X, MUTED, RULE } from './pdf-style.js';
import { writeSummary } from './pdf-summary.js';
import { layoutTable, SAMPLE_ROWS, TableWriter, type Doc } from './pdf-table.js';
import { cleanText, fitLine, FontStack } from './pdf-text.js';
import { RowReader, yieldToLoop } from './rows.js';
import type { TableExport } from './types.js';

type PdfLib = typeof import('pdf-lib');
type Fontkit = typeof import('@pdf-lib/fontkit');
type BidiFactory = typeof import('bidi-js').default;

let libs: Promise<{ pdf: PdfLib; fontkit: Fontkit }> | undefined;
const loadLibs = () =>
  (libs ??= Promise.all([import('pdf-lib'), import('@pdf-lib/fontkit')]).then(([pdf, fk]) => ({
    pdf,
    fontkit: ((fk as { default?: Fontkit }).default ?? fk) as Fontkit,
  })));
let bidiLib: Promise<BidiFactory> | undefined;
const loadBidi = () =>
  (bidiLib ??= import('bidi-js').then((m) => {
    // a UMD file: Node hands its factory over as `default`, a bundler may nest it once more
    const d = (m as unknown as { default: BidiFactory | { default: BidiFactory } }).default;
    return typeof d === 'function' ? d : d.default;
  }));

/** The sentence for characters no face of the stack has (they are drawn as U+FFFD). */
function missingGlyphWarning(missing: Set<number>): string[] {
  if (missing.size === 0) return [];
  const codes = [...missing].sort((a, b) => a - b).map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  const shown = codes.length > 12 ? `${codes.slice(0, 12).join(', ')} and ${codes.length - 12} more` : codes.join(', ');
  return [
    `${missing.size === 1 ? '1 character has' : `${missing.size} characters have`} no glyph in the report's fonts and ${missing.size === 1 ? 'is' : 'are'} shown as "\ufffd": ${shown}.`,
  ];
}

export async function writePdf(
  path: string,
  table: TableExport,
): Promise<{ rows: number; pages: number; bytes: number; warnings: string[] }> {
  if (table.columns.length === 0) throw new Error('A report needs at least one column');
  const [{ pdf, fontkit }, bidiFactory] = await Promise.all([loadLibs(), loadBidi()]);
  let bidi: ReturnType<BidiFactory> | undefined;
  return writeAtomically(path, async (partial) => {
    const reader = await RowReader.open(table.rows, SAMPLE_ROWS);
    const handle = await open(partial, 'w');
    try {
      // This document only embeds (and subsets) the fonts; the pages are written by PdfFile.
      const fontDoc = await pdf.PDFDocument.create({ updateMetadata: false });
      const nextRef = () => fontDoc.context.nextRef();
      const stack = (weight: 'regular' | 'bold') =>
        new FontStack(
          pdf,
          fontkit,
          reportFontFaces().map((f) => f[weight]),
          weight === 'bold',
          nextRef,
          fontFileBytes,
          () => (bidi ??= bidiFactory()),
        );
      const regular = stack('regular');
      const bold = stack('bold');
      const layout = layoutTable(table, reader.head, regular, bold);
      const file = new PdfFile(pdf, fontDoc, handle);
      const d: Doc = { regular, bold, file, size: layout.size };

      const summary =
        table.summary &&
        (await writeSummary(
          file,
          { regular, bold },
          { title: table.title, subtitle: table.subtitle, meta: table.meta },
          table.summary,
        ));
      const writer = new TableWriter(d, table, layout, summary);
      writer.start();
      let rows = 0;
      for await (const row of reader) {
        writer.row(row);
        rows++;
        if ((rows & 255) === 0) {
          await file.flush();
          await yieldToLoop();
        }
      }
      if (rows === 0) writer.emptyNote();
      writer.endPage();

      // Footers: the rule and the footnote are the same on every page, the page number is not.
      const [width] = layout.size;
      const y = MARGIN_BOTTOM - 24;
      const shared = new Canvas();
      shared.line(MARGIN_X, MARGIN_BOTTOM - 14, width - MARGIN_X, MARGIN_BOTTOM - 14, RULE, 0.5);
      // a footnote is one short line of ours (when the report was made); fitted only in case a caller's is long
      if (table.footnote)
        shared.text(
          fitLine(cleanText(table.footnote), regular, 7, (width - 2 * MARGIN_X) * 0.7),
          MARGIN_X,
          y,
          regular,
          7,
          MUTED,
        );
      const pageNumber = (page: number, total: number) => {
        const c = new Canvas();
        c.textRight(`Page ${page} of ${total}`, width - MARGIN_X, y, regular, 7, MUTED);
        return c.content();
      };
      const { PDFHexString, PDFString } = pdf;
      const info: Record<string, string> = {
        Title: PDFHexString.fromText(cleanText(table.title)).toString(),
        Creator: PDFHexString.fromText('vault-tools').toString(),
        Producer: PDFHexString.fromText('vault-tools (pdf-lib, fontkit)').toString(),
        CreationDate: PDFString.fromDate(new Date()).toString(),
      };
      if (table.subtitle) info.Subject = PDFHexString.fromText(cleanText(table.subtitle)).toString();
      const { pages, bytes } = await file.finish(
        { shared: shared.content(), pageNumber },
        [...regular.used, ...bold.used],
        info,
      );
      return { rows, pages, bytes, warnings: missingGlyphWarning(new Set([...regular.missing, ...bold.missing])) };
    } finally {
      await handle.close();
      await reader.close();
    }
  });
}
