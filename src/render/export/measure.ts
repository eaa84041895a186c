/**
 * Time and peak memory of the export writers on 100,000 synthetic findings rows (realistic text lengths:
 * names of 10–45 characters, descriptions of 40–900, some Unicode), each format in a fresh process so the
 * peaks do not mix.
 *
 *   npx tsx src/render/export/measure.ts            # xlsx, csv and pdf, 100,000 rows
 *   npx tsx src/render/export/measure.ts pdf 20000  # one format, another row count
 *
 * Peak RSS is the process's maximum resident set size (getrusage), start-up included; the baseline line
 * shows what node + tsx + the libraries take before the first row.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CellValue, Column, TableExport } from './types.js';

const FORMATS = ['xlsx', 'csv', 'pdf'] as const;
type Format = (typeof FORMATS)[number];

const COLUMNS: Column[] = [
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

const WORDS = (
  'warehouse dock scheduling carrier manifest forklift inventory pallet customs clearance delay shipment ' +
  'Northwind logistics contract renewal budget approval vendor audit compliance risk mitigation quarterly ' +
  'review migration timeline owner escalation invoice discrepancy Zürich Malmö São Paulo Ωmega Привет naïve'
).split(' ');
const TYPES = ['person', 'organization', 'system', 'project', 'location', 'topic'];

/** A small deterministic PRNG (mulberry32), so every run measures the same data. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(random: () => number, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(random() * (maxChars - minChars));
  let s = '';
  while (s.length < target) s += (s ? ' ' : '') + WORDS[Math.floor(random() * WORDS.length)];
  return s;
}

/** Findings rows as datasets.ts yields them: keyset pages of 1,000 with a macrotask turn in between. */
export async function* syntheticFindings(count: number): AsyncGenerator<Record<string, CellValue>> {
  const random = prng(42);
  const start = Date.UTC(2023, 0, 1);
  for (let i = 0; i < count; i++) {
    const first = start + Math.floor(random() * 400 * 86_400_000);
    yield {
      id: `ent_${i.toString(36).padStart(8, '0')}`,
      name: sentence(random, 10, 45),
      type: TYPES[i % TYPES.length],
      source: random() < 0.5 ? 'meeting transcript' : 'email thread',
      mentions: Math.floor(random() * 500),
      firstSeen: new Date(first).toISOString(),
      lastMentioned: random() < 0.1 ? null : new Date(first + Math.floor(random() * 90 * 86_400_000)).toISOString(),
      aliases: random() < 0.6 ? sentence(random, 5, 60) : '',
      // mostly a few sentences, sometimes a long note
      description: sentence(random, 40, random() < 0.05 ? 900 : 320),
    };
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
}

export function syntheticTable(count: number): TableExport {
  return {
    title: 'Findings: Northwind Logistics',
    subtitle: 'Synthetic findings for measuring the export writers',
    meta: [
      { label: 'Vault', value: 'Northwind Logistics (northwind)' },
      { label: 'Generated', value: new Date().toISOString() },
      { label: 'Findings', value: count.toLocaleString('en-US') },
    ],
    columns: COLUMNS,
    rows: syntheticFindings(count),
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function measureOne(format: Format, count: number): Promise<void> {
  const writers = await import('./index.js');
  // load the libraries first, so the baseline includes them
  await import('exceljs');
  await import('pdf-lib');
  const baseline = process.memoryUsage().rss;
  const dir = mkdtempSync(join(tmpdir(), 'vault-tools-measure-'));
  try {
    const path = join(dir, `findings.${format}`);
    const started = performance.now();
    const result =
      format === 'xlsx'
        ? await writers.writeXlsx(path, syntheticTable(count))
        : format === 'csv'
          ? await writers.writeCsv(path, syntheticTable(count))
          : await writers.writePdf(path, syntheticTable(count));
    const seconds = (performance.now() - started) / 1000;
    const peak = process.resourceUsage().maxRSS * 1024;
    const pages = 'pages' in result ? `, ${result.pages} pages` : '';
    console.log(
      `${format.padEnd(4)} ${result.rows} rows${pages}: ${seconds.toFixed(2)} s, peak RSS ${mb(peak)} (baseline ${mb(baseline)}, +${mb(peak - baseline)}), file ${mb(result.bytes)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const isMain = !!process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const [formatArg, countArg] = process.argv.slice(2);
  const count = countArg ? Number(countArg) : 100_000;
  if (formatArg && (FORMATS as readonly string[]).includes(formatArg)) {
    await measureOne(formatArg as Format, count);
  } else {
    console.log(`Node ${process.version}, ${count.toLocaleString('en-US')} synthetic findings rows, each format in its own process`);
    for (const format of FORMATS) {
      const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, format, String(count)], { stdio: 'inherit' });
      if (child.status !== 0) process.exitCode = 1;
    }
  }
}
