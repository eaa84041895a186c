/**
 * The shapes every export writer shares. `export_report` hands a whole dataset (possibly 100,000+ rows,
 * iterated straight from SQLite) to `writeXlsx`, `writeCsv` or `writePdf`; `export_workbook` hands the
 * caller's sheets to `writeWorkbook`.
 */
import type { ReportSummary } from './pdf-summary.js';

export type CellValue = string | number | boolean | Date | null | undefined;

export interface Column {
  header: string;
  key: string;
  /** How values are read and shown. Without it: text, except that numbers, booleans and Dates keep their type. */
  type?: 'text' | 'number' | 'date' | 'datetime';
  /** Column width in characters (xlsx); in the PDF it sets the column's share of the page width. */
  width?: number;
  /** Excel number format, e.g. '#,##0.00' or 'yyyy-mm-dd'; the PDF honours decimals, grouping and '%'. */
  numFmt?: string;
}

export interface TableExport {
  /** e.g. 'Findings: Northwind Logistics' */
  title: string;
  subtitle?: string;
  /** e.g. vault, generated at, counts: the PDF title page, the xlsx "Report info" sheet. */
  meta: { label: string; value: string }[];
  columns: Column[];
  /** Key figures (counts) the PDF shows as tiles under the title block, e.g. findings by type, open conflicts. */
  figures?: { label: string; value: string }[];
  /**
   * The PDF groups the rows into sections by this key: a heading whenever its value changes (the rows must
   * arrive grouped), repeated at the right of the running header while the section lasts.
   */
  sections?: { key: string; heading: (value: string) => string };
  /** The PDF opens on this executive summary (pdf-summary.ts), then the rows as the detail. */
  summary?: ReportSummary;
  /** A short line at the left of every PDF footer, e.g. when the report was generated. */
  footnote?: string;
  /** Iterated once, lazily; never materialised. */
  rows: Iterable<Record<string, CellValue>> | AsyncIterable<Record<string, CellValue>>;
}

export class WorkbookError extends Error {
  constructor(
    /** Where the problem is, e.g. 'sheets[1].name' or 'sheets[0].rows[3].foo'. */
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'WorkbookError';
  }
}

export interface WorkbookSheet {
  name: string;
  columns: { header: string; key: string; numFmt?: string }[];
  rows: Record<string, CellValue>[];
}

export interface WorkbookInput {
  title: string;
  sheets: WorkbookSheet[];
  sources?: string[];
  provenance: { vault: string; generatedAt: Date; by: string };
}
