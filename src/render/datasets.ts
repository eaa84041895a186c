/**
 * What export_report exports: the whole findings or conflicts dataset of a vault as a table. Rows are
 * read in keyset pages, never all at once, and never through an open cursor (the connection must stay
 * free for other requests while the file streams out). The xlsx and csv get the flat table, every column and
 * the ids; the PDF (`printed`) gets the findings as a report: key figures, one section per type, no ids.
 */
import { json, type Db } from '../store/db.js';
import { listConflicts } from '../store/conflicts.js';
import { entityCountsByTypeDesc, entityPage } from '../store/entity-export.js';
import type { Vault } from '../store/vaults.js';
import { entityTypePlural } from '../core/vocabulary.js';
import type { CellValue, Column, TableExport } from './export/index.js';

export type Dataset = 'findings' | 'conflicts';
const PAGE = 1000;

/** Findings most mentioned first; with `types`, type by type in that order (each most mentioned first). */
/** The printed report's words for where a finding comes from (the spreadsheets keep the codes, for filters). */
const SOURCE_WORDS: Record<string, string> = {
  meeting: 'Meetings',
  file: 'Documents',
  'agent-assumption': 'Assumption, to confirm',
  unclear: 'Unclear',
};

async function* findingRows(
  db: Db,
  vaultId: string,
  types: (string | undefined)[] = [undefined],
  printed = false,
): AsyncGenerator<Record<string, CellValue>> {
  for (const type of types) {
    let after: { mentionCount: number; id: string } | undefined;
    for (;;) {
      const page = entityPage(db, vaultId, PAGE, after, type);
      for (const r of page) {
        yield {
          id: r.id,
          name: r.name,
          type: r.type,
          source: printed ? (SOURCE_WORDS[r.source] ?? r.source) : r.source,
          mentions: r.mention_count,
          firstSeen: r.first_seen_at,
          lastMentioned: r.last_mentioned_at,
          aliases: json.read(r.aliases_json).join('; '),
          description: r.description,
        };
      }
      if (page.length < PAGE) break;
      const last = page[page.length - 1]!;
      after = { mentionCount: last.mention_count, id: last.id };
      await new Promise((resolve) => setImmediate(resolve)); // let other requests in between pages
    }
  }
}

const FINDING_COLUMNS: Column[] = [
  { header: 'Name', key: 'name', width: 32 },
  { header: 'Type', key: 'type', width: 13 },
  { header: 'Mentions', key: 'mentions', type: 'number', width: 10 },
  { header: 'Last mentioned', key: 'lastMentioned', type: 'datetime', width: 18 },
  { header: 'First seen', key: 'firstSeen', type: 'datetime', width: 18 },
  { header: 'Source', key: 'source', width: 16 },
  { header: 'Aliases', key: 'aliases', width: 24 },
  { header: 'Description', key: 'description', width: 60 },
  { header: 'Id', key: 'id', width: 20 },
];

const CONFLICT_COLUMNS: Column[] = [
  { header: 'Status', key: 'status', width: 11 },
  { header: 'Entity', key: 'entity', width: 26 },
  { header: 'Conflict', key: 'title', width: 40 },
  { header: 'Claims', key: 'claims', width: 70 },
  { header: 'Note', key: 'note', width: 40 },
  { header: 'Updated', key: 'updatedAt', type: 'datetime', width: 18 },
  { header: 'Id', key: 'id', width: 18 },
];

/**
 * The printed report's order of finding types: what the engagement is about (problems, opportunities, the
 * measures) first, then the processes and systems, then the organisation. A type outside this list comes last.
 */
const REPORT_TYPE_ORDER = ['problem', 'opportunity', 'kpi', 'process', 'system', 'department', 'person'];
const reportRank = (type: string) =>
  REPORT_TYPE_ORDER.includes(type) ? REPORT_TYPE_ORDER.indexOf(type) : REPORT_TYPE_ORDER.length;

/** The PDF's columns: the type is the section heading, and internal ids stay in the spreadsheet exports. */
const PRINTED_FINDING_COLUMNS = FINDING_COLUMNS.filter((c) => c.key !== 'type' && c.key !== 'id');

export interface DatasetOptions {
  /** For the PDF: findings grouped by type (problems and opportunities first) under a summary, without ids. */
  printed?: boolean;
}

export function datasetTable(
  db: Db,
  vault: Vault,
  dataset: Dataset,
  now: Date,
  options: DatasetOptions = {},
): TableExport & { total: number } {
  const stamp = now
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const generated = { label: 'Generated', value: stamp };
  if (dataset === 'findings') {
    const byType = entityCountsByTypeDesc(db, vault.id);
    const total = byType.reduce((a, b) => a + b.n, 0);
    if (options.printed) return printedFindings(db, vault, byType, total, stamp);
    return {
      title: `Findings: ${vault.name}`,
      subtitle: vault.description,
      meta: [
        { label: 'Vault', value: `${vault.name} (${vault.id})` },
        generated,
        { label: 'Findings', value: String(total) },
        { label: 'By type', value: byType.map((t) => `${t.type} ${t.n}`).join(', ') },
      ],
      columns: FINDING_COLUMNS,
      rows: findingRows(db, vault.id),
      total,
    };
  }
  const conflicts = listConflicts(db, vault.id, { status: 'all' });
  const byStatus = ['open', 'resolved', 'dismissed']
    .map((s) => `${s} ${conflicts.filter((c) => c.status === s).length}`)
    .join(', ');
  return {
    title: `Conflicts: ${vault.name}`,
    subtitle: vault.description,
    meta: [
      { label: 'Vault', value: `${vault.name} (${vault.id})` },
      generated,
      { label: 'Conflicts', value: String(conflicts.length) },
      { label: 'By status', value: byStatus },
    ],
    footnote: `Generated ${stamp} by vault-tools`,
    columns: CONFLICT_COLUMNS,
    rows: conflicts.map((c) => ({
      id: c.id,
      status: c.status,
      entity: c.entityName,
      title: c.title,
      claims: claimsCell(c.claims),
      note: c.note,
      updatedAt: c.updatedAt,
    })),
    total: conflicts.length,
  };
}

/**
 * A conflict's claims as one cell: at most REPORT_CLAIMS of them, then how many more (docs/exports.md): a
 * conflict of 15,000 claims would otherwise be a cell of megabytes, and pages of one row in the PDF.
 */
const REPORT_CLAIMS = 50;
function claimsCell(claims: { speaker: string; quote: string; meetingName: string | null }[]): string {
  const shown = claims
    .slice(0, REPORT_CLAIMS)
    .map((cl) => `${cl.speaker}${cl.meetingName ? ` (${cl.meetingName})` : ''}: “${cl.quote}”`);
  if (claims.length > REPORT_CLAIMS)
    shown.push(`… and ${(claims.length - REPORT_CLAIMS).toLocaleString('en')} more claims`);
  return shown.join('\n');
}

/** The findings as a printed report: a summary of counts, then one section per type, each most mentioned first. */
function printedFindings(
  db: Db,
  vault: Vault,
  byType: { type: string; n: number }[],
  total: number,
  stamp: string,
): TableExport & { total: number } {
  const types = [...byType].sort((a, b) => reportRank(a.type) - reportRank(b.type) || a.type.localeCompare(b.type));
  const heading = entityTypePlural;
  const count = new Map(types.map((t) => [t.type, t.n]));
  const openConflicts = listConflicts(db, vault.id, { status: 'open' }).length;
  return {
    title: `Findings: ${vault.name}`,
    subtitle: vault.description,
    meta: [
      { label: 'Client', value: vault.client },
      ...(vault.name === vault.client ? [] : [{ label: 'Engagement', value: vault.name }]),
      { label: 'Generated', value: stamp },
      {
        label: 'Order',
        value: 'Grouped by type, problems and opportunities first; most mentioned first within each type.',
      },
    ],
    figures: [
      { label: 'Findings', value: String(total) },
      ...types.map((t) => ({ label: heading(t.type), value: String(t.n) })),
      { label: 'Open conflicts', value: String(openConflicts) },
    ],
    sections: { key: 'type', heading: (type) => `${heading(type)} (${count.get(type) ?? 0})` },
    footnote: `Generated ${stamp} by vault-tools`,
    columns: PRINTED_FINDING_COLUMNS,
    rows: findingRows(
      db,
      vault.id,
      types.map((t) => t.type),
      true,
    ),
    total,
  };
}
