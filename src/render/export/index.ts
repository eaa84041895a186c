/**
 * Export writers: whole datasets to xlsx / csv / pdf (export_report) and caller-given sheets to a styled
 * workbook (export_workbook). Each writes `<path>.partial` and renames it when complete. The heavy
 * libraries (exceljs, pdf-lib, fontkit) load on first use.
 */
export type { CellValue, Column, TableExport, WorkbookSheet, WorkbookInput } from './types.js';
export { WorkbookError } from './types.js';
export { writeXlsx } from './xlsx.js';
export { writeCsv } from './csv.js';
export { writePdf } from './pdf.js';
export { writeWorkbook, validateWorkbook } from './workbook.js';
export { featureFindings, type Featured } from './featured.js';
export { summaryChart } from './pdf-summary.js';
