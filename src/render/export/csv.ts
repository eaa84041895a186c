/**
 * csv with csv-stringify, streamed with backpressure (rows are pulled only as fast as the file takes them).
 *
 * - RFC 4180: fields separated by commas, records ended by CRLF (the last one too); a field containing a
 *   comma, a double quote, CR or LF is enclosed in double quotes, with inner quotes doubled. Line breaks
 *   inside a field are CRLF too (a lone CR or LF becomes CRLF), so one reader setting reads them all.
 * - UTF-8 with a byte-order mark (EF BB BF), so Excel opens it as UTF-8 instead of the ANSI code page.
 * - A header row with the column headers.
 * - Formula injection neutralised: a text cell whose first character is `=`, `+`, `-`, `@`, tab (U+0009)
 *   or carriage return (U+000D), or one of their full-width forms (U+FF1D ＝, U+FF0B ＋, U+FF0D －,
 *   U+FF20 ＠, which some spreadsheets treat alike), gets a leading apostrophe `'`, so a spreadsheet shows it
 *   as text instead of evaluating it. Numbers are not text: a negative number (-5) is written as `-5`,
 *   unprefixed. In a `number` column numeric strings become numbers first, so '-5' there is written -5.
 * - Values: numbers as JavaScript writes them (no grouping, '.' decimal); booleans `true` / `false`; Dates in
 *   UTC as `YYYY-MM-DD` (date columns, or midnight UTC in untyped ones) or RFC 3339 `YYYY-MM-DDTHH:MM:SSZ`;
 *   null and undefined as an empty field.
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeAtomically } from './atomic.js';
import { RowReader } from './rows.js';
import type { CellValue, Column, TableExport } from './types.js';
import { isoDate, isoDateTime, normalizeValue, showsAsDate } from './values.js';

/** A normalised value as a csv field: a number stays a number (so '-' is not escaped), the rest is text. */
function csvField(value: CellValue, column: Column): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return showsAsDate(value, column.type) ? isoDate(value) : isoDateTime(value);
  // a line break inside a (quoted) field is CRLF, like the end of a record
  return value.includes('\n') || value.includes('\r') ? value.replace(/\r\n?|\n/g, '\r\n') : value;
}

export async function writeCsv(path: string, table: TableExport): Promise<{ rows: number; bytes: number }> {
  const { stringify } = await import('csv-stringify');
  return writeAtomically(path, async (partial) => {
    const reader = await RowReader.open(table.rows, 0);
    let rows = 0;
    const { columns } = table;
    async function* records(): AsyncGenerator<(string | number)[]> {
      yield columns.map((c) => c.header);
      for await (const row of reader) {
        rows++;
        yield columns.map((c) => csvField(normalizeValue(row[c.key], c.type), c));
      }
    }
    try {
      await pipeline(
        Readable.from(records(), { objectMode: true, highWaterMark: 64 }),
        stringify({
          bom: true,
          record_delimiter: 'windows',
          quote: '"',
          escape: '"',
          escape_formulas: true,
          // With a record_delimiter set, csv-stringify quotes only fields containing that exact CRLF: a bare
          // LF or CR would go out unquoted and split the record in any reader. Quote every line break.
          quote_record_delimiter: true,
          quoted_match: /[\r\n]/,
          cast: { number: (n: number) => String(n) },
        }),
        createWriteStream(partial),
      );
    } finally {
      await reader.close();
    }
    return { rows, bytes: (await stat(partial)).size };
  });
}
