/**
 * The chart gallery: a fixed set of charts with the data that used to come out wrong (few and many
 * categories, long labels and titles, many series, negative values, empty and one-point data, scripts
 * beyond Latin). `npm run gallery` draws them into docs/gallery/; test/unit/chart-gallery.test.ts checks them.
 */
import type { ChartSize } from '../src/render/chart/index.js';

export interface GalleryChart {
  name: string;
  title: string;
  size?: ChartSize;
  spec: Record<string, unknown>;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'];
const SITES = ['Leeds', 'Bristol', 'Daventry', 'Swindon', 'Felixstowe', 'Immingham'];

const bars = (values: Record<string, unknown>[], x: string, y: string, extra: Record<string, unknown> = {}) => ({
  $schema: SCHEMA,
  data: { values },
  mark: 'bar',
  encoding: { x: { field: x, type: 'nominal', title: null }, y: { field: y, type: 'quantitative' }, ...extra },
});

/** Category names a consultant really writes: long, and alike except for a word or two. */
export const LONG_LABELS = [
  'Spreadsheet-based dock door scheduling at Leeds',
  'Spreadsheet-based dock door scheduling at Bristol',
  'Manual proof-of-delivery reconciliation in the finance team',
  'Carrier booking portal outages during the Christmas peak',
  'Duplicate SKU master data between the WMS and the ERP',
];

/** Risks of a register: long, several starting alike, told apart by their last words. */
export const RISKS = [
  'Key-person Dependency on the WMS Administrator',
  'Key-person Dependency on the Finance Systems Lead',
  'Unsupported WMS Version after December 2027',
  'Carrier Detention Charges Disputed without Gate Times',
  'Returns Backlog Valued Differently by Finance and Operations',
  'Peak Season Agency Labour Shortfall',
];

export const GALLERY: GalleryChart[] = [
  {
    name: 'one-category',
    title: 'Open findings at the only site so far',
    spec: bars([{ site: 'Leeds', findings: 12 }], 'site', 'findings'),
  },
  {
    name: 'two-categories',
    title: 'Open findings by site',
    spec: bars(
      [
        { k: 'Leeds', v: 12 },
        { k: 'Bristol', v: 7 },
      ],
      'k',
      'v',
    ),
  },
  {
    name: 'six-months',
    title: 'Findings raised per month, first half',
    spec: bars(
      MONTHS.map((m, i) => ({ month: m, findings: [14, 22, 9, 30, 18, 25][i] })),
      'month',
      'findings',
      {
        x: { field: 'month', type: 'ordinal', sort: MONTHS, title: null },
      },
    ),
  },
  {
    name: 'sixty-categories',
    title: 'Stock discrepancies by aisle',
    spec: bars(
      Array.from({ length: 60 }, (_, i) => ({ aisle: `Aisle ${i + 1}`, discrepancies: ((i * 37) % 23) + 2 })),
      'aisle',
      'discrepancies',
    ),
  },
  {
    name: 'long-labels',
    title: 'Hours lost per week, by cause',
    spec: bars(
      LONG_LABELS.map((cause, i) => ({ cause, hours: [42, 37, 25, 18, 11][i] })),
      'cause',
      'hours',
      {
        x: { field: 'cause', type: 'nominal', sort: '-y', title: null },
      },
    ),
  },
  {
    name: 'long-title',
    title:
      'Open findings by site for the second quarter of 2024, excluding duplicates and the findings withdrawn after the client review in June',
    spec: bars(
      SITES.slice(0, 4).map((site, i) => ({ site, findings: [31, 24, 17, 9][i] })),
      'site',
      'findings',
    ),
  },
  {
    name: 'twelve-series',
    title: 'Weekly throughput by line',
    spec: {
      $schema: SCHEMA,
      data: {
        values: Array.from({ length: 12 }, (_, s) =>
          Array.from({ length: 8 }, (_, w) => ({
            week: w + 1,
            line: `Line ${s + 1}`,
            pallets: 40 + s * 9 + ((w * (s + 3)) % 11),
          })),
        ).flat(),
      },
      mark: 'line',
      encoding: {
        x: { field: 'week', type: 'quantitative', title: 'Week' },
        y: { field: 'pallets', type: 'quantitative', title: 'Pallets' },
        color: { field: 'line', type: 'nominal', title: 'Line' },
      },
    },
  },
  {
    name: 'negative-values',
    title: 'Change in dwell time against baseline (minutes)',
    spec: bars(
      SITES.map((site, i) => ({ site, change: [-12, 8, -4, 15, -9, 3][i] })),
      'site',
      'change',
    ),
  },
  { name: 'empty', title: 'Nothing yet', spec: bars([], 'k', 'v') },
  {
    name: 'one-point',
    title: 'Inventory accuracy so far',
    spec: {
      $schema: SCHEMA,
      data: { values: [{ month: '2026-03-01', accuracy: 0.961 }] },
      mark: 'line',
      encoding: {
        x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' },
        y: { field: 'accuracy', type: 'quantitative' },
      },
    },
  },
  {
    name: 'cjk',
    title: '拠点別の未解決課題 (CJK)',
    spec: bars(
      ['東京倉庫', '大阪物流センター', '名古屋', '北京仓库', '서울 센터'].map((site, i) => ({
        site,
        findings: [12, 9, 7, 5, 3][i],
      })),
      'site',
      'findings',
    ),
  },
  {
    name: 'arabic',
    title: 'المشكلات المفتوحة حسب الموقع (Arabic)',
    spec: bars(
      ['مستودع الرياض', 'مركز جدة', 'الدمام'].map((site, i) => ({ site, findings: [11, 6, 4][i] })),
      'site',
      'findings',
    ),
  },
  {
    name: 'emoji',
    title: 'Sentiment of interview answers 🙂',
    spec: bars(
      ['👍 Positive', '😐 Neutral', '👎 Negative'].map((answer, i) => ({ answer, count: [18, 9, 5][i] })),
      'answer',
      'count',
    ),
  },
  {
    name: 'stacked-long-legend',
    title: 'Findings by site and source',
    spec: {
      $schema: SCHEMA,
      data: {
        values: SITES.flatMap((site, i) =>
          ['Workshops with the operations team', 'Interviews with site managers', 'Documents shared by the client'].map(
            (source, j) => ({ site, source, findings: (((i + 2) * (j + 3)) % 11) + 2 }),
          ),
        ),
      },
      mark: 'bar',
      encoding: {
        x: { field: 'site', type: 'nominal', title: null },
        y: { field: 'findings', type: 'quantitative', aggregate: 'sum', title: 'Findings' },
        color: { field: 'source', type: 'nominal', title: 'Source' },
      },
    },
  },
  {
    name: 'labelled-bars',
    title: 'Late deliveries by carrier',
    spec: {
      $schema: SCHEMA,
      data: {
        values: Array.from({ length: 14 }, (_, i) => ({
          carrier: `Carrier ${String.fromCharCode(65 + i)}`,
          late: ((i * 29) % 40) + 3,
        })),
      },
      encoding: {
        x: { field: 'carrier', type: 'nominal', sort: '-y', title: null },
        y: { field: 'late', type: 'quantitative', title: 'Late deliveries' },
      },
      layer: [
        { mark: 'bar' },
        { mark: { type: 'text', dy: -4, baseline: 'bottom' }, encoding: { text: { field: 'late' } } },
      ],
    },
  },
  {
    name: 'pie',
    title: 'Findings by type',
    spec: {
      $schema: SCHEMA,
      data: {
        values: [
          { type: 'Process', n: 31 },
          { type: 'System', n: 22 },
          { type: 'Data', n: 14 },
          { type: 'People', n: 9 },
        ],
      },
      mark: { type: 'arc', innerRadius: 90 },
      encoding: {
        theta: { field: 'n', type: 'quantitative' },
        color: { field: 'type', type: 'nominal', title: 'Type' },
      },
    },
  },
  {
    name: 'square-ranking',
    title: 'Open findings by site',
    size: 'square',
    spec: {
      $schema: SCHEMA,
      data: { values: SITES.map((site, i) => ({ site, findings: [31, 24, 17, 12, 9, 4][i] })) },
      mark: 'bar',
      encoding: {
        y: { field: 'site', type: 'nominal', sort: '-x', title: null },
        x: { field: 'findings', type: 'quantitative', title: 'Open findings' },
      },
    },
  },
  {
    name: 'portrait-trend',
    title: 'Dock on-time rate',
    size: 'portrait',
    spec: {
      $schema: SCHEMA,
      data: {
        values: Array.from({ length: 12 }, (_, i) => ({
          month: `2025-${String(i + 1).padStart(2, '0')}-01`,
          rate: 0.62 + ((i * 7) % 10) / 60,
        })),
      },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth', title: null },
        y: { field: 'rate', type: 'quantitative', axis: { format: '%' }, title: 'On time' },
      },
    },
  },
  {
    // The first-hour ranking as an agent writes it: raw field names, no titles, risks alike in their first words.
    name: 'naive-ranking',
    title: 'Delivery risks by score',
    spec: {
      $schema: SCHEMA,
      data: { values: RISKS.map((risk, i) => ({ risk_name: risk, risk_score: [11, 9, 8, 6, 5, 3][i] })) },
      mark: 'bar',
      encoding: {
        y: { field: 'risk_name', type: 'nominal', sort: '-x' },
        x: { field: 'risk_score', type: 'quantitative' },
      },
    },
  },
  {
    name: 'monthly-line',
    title: 'Orders shipped per month',
    spec: {
      $schema: SCHEMA,
      data: {
        values: Array.from({ length: 12 }, (_, i) => ({
          month: `2025-${String(i + 1).padStart(2, '0')}-01`,
          orders: 1200 + ((i * 137) % 500),
        })),
      },
      mark: 'line',
      encoding: {
        x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' },
        y: { field: 'orders', type: 'quantitative' },
      },
    },
  },
];
