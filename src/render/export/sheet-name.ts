/**
 * Excel's rule for a sheet (tab) name, applied the same way by export_report (whose sheet is named after
 * the report) and export_workbook (whose sheets the caller names): at most 31 characters, none of
 * : \ / ? * [ ], no control characters, no apostrophe at either end, not "History" (Excel keeps that name).
 * A name that breaks the rule is made valid (forbidden characters replaced, cut at 31 characters) and the
 * tool says so in its warnings; only a name with nothing left in it is refused (export_workbook).
 */
import { xmlSafe } from '../../core/xml-text.js';

export const MAX_SHEET_NAME = 31;
export const SHEET_NAME_RULE = 'a sheet name has at most 31 characters and none of : \\ / ? * [ ]';

export interface SheetName {
  name: string;
  /** Why the name differs from the one asked for, as a sentence; undefined when it is unchanged. */
  warning?: string;
}

export function sheetName(requested: string): SheetName {
  let name = xmlSafe(requested)
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\s*[:\\/?*[\]]+\s*/g, ' - ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^'+|'+$/g, '');
  if (name.length > MAX_SHEET_NAME) {
    let cut = MAX_SHEET_NAME;
    if (/[\ud800-\udbff]/.test(name.charAt(cut - 1))) cut--; // never half a surrogate pair
    name = name.slice(0, cut).trim().replace(/'+$/, '');
  }
  if (name.toLowerCase() === 'history') name = `${name} sheet`;
  if (name === requested) return { name };
  return {
    name,
    warning: `The sheet name "${requested}" became "${name}": ${SHEET_NAME_RULE}, and it does not start or end with an apostrophe.`,
  };
}
