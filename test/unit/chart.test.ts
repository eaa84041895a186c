import { Resvg } from '@resvg/resvg-js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pixelDiff } from '../png-diff.js';
import { CHART_LIMITS, ChartSpecError, closeChartRenderer, renderChart } from '../../src/render/chart/index.js';
import { runJob } from '../../src/render/chart/pool.js';
import { renderChartWithLimits } from '../../src/render/chart/render.js';

/*
 * PNG snapshots are compared pixel by pixel (test/png-diff.ts) with the PNGs in __chart_snapshots__ (open those to
 * see what is expected): at most MAX_DIFFERING of the pixels may differ by more than a small step of one channel, so
 * an encoder setting or antialiasing on another machine is not a failure, and a moved bar or label is. After an
 * intended change of the theme or the renderer:
 *   UPDATE_CHART_SNAPSHOTS=1 npx vitest run test/unit/chart.test.ts
 * and review the PNGs in the diff.
 */
const SNAPSHOT_DIR = fileURLToPath(new URL('./__chart_snapshots__/', import.meta.url));
const UPDATE = process.env.UPDATE_CHART_SNAPSHOTS === '1';
const MAX_DIFFERING = 0.002;

function expectSnapshot(name: string, png: Buffer): void {
  const expected = join(SNAPSHOT_DIR, `${name}.png`);
  if (UPDATE) {
    mkdirSync(SNAPSHOT_DIR, { recursive: true });
    writeFileSync(expected, png);
    return;
  }
  expect(existsSync(expected), `no snapshot ${expected}: record it with UPDATE_CHART_SNAPSHOTS=1`).toBe(true);
  const diff = pixelDiff(png, readFileSync(expected));
  if (diff.sizes[0] !== diff.sizes[1] || diff.differing > diff.total * MAX_DIFFERING) {
    const actual = join(tmpdir(), `chart-${name}-actual.png`);
    writeFileSync(actual, png);
    expect.fail(
      `PNG of "${name}" differs from the snapshot: ${diff.sizes[0]} vs ${diff.sizes[1]}, ${diff.differing} of ${diff.total} pixels differ. ` +
        `Compare ${actual} with test/unit/__chart_snapshots__/${name}.png; if the change is intended, rerun with UPDATE_CHART_SNAPSHOTS=1.`,
    );
  }
}

/** Width and height from the IHDR chunk, checking the PNG signature and chunk type. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

async function refusal(spec: unknown, limits = CHART_LIMITS): Promise<ChartSpecError> {
  try {
    await renderChartWithLimits(spec, { title: 'Refused' }, limits);
  } catch (e) {
    if (!(e instanceof ChartSpecError)) throw e;
    return e;
  }
  return expect.fail('the spec was rendered, but a ChartSpecError was expected');
}

const MONTHS = [
  '2024-01',
  '2024-02',
  '2024-03',
  '2024-04',
  '2024-05',
  '2024-06',
  '2024-07',
  '2024-08',
  '2024-09',
  '2024-10',
  '2024-11',
  '2024-12',
];

const LINE = {
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: {
    values: MONTHS.flatMap((m, i) => [
      { month: `${m}-01`, channel: 'Meetings', items: 20 + i * 3 + (i % 3) * 4 },
      { month: `${m}-01`, channel: 'E-mails', items: 60 - i * 2 + (i % 4) * 5 },
      { month: `${m}-01`, channel: 'Tasks', items: 10 + ((i * 7) % 15) },
    ]),
  },
  mark: { type: 'line', point: true },
  encoding: {
    x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth', title: 'Month' },
    y: { field: 'items', type: 'quantitative', title: 'Items' },
    color: { field: 'channel', type: 'nominal', title: null },
  },
};

const CLIENTS = [
  { client: 'Northwind Logistics', findings: 42 },
  { client: 'Meridian Health', findings: 31 },
  { client: 'Acme Retail', findings: 27 },
  { client: 'Globex', findings: 18 },
  { client: 'Initech', findings: 12 },
  { client: 'Umbrella Research', findings: 9 },
];

const BAR = {
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: { values: CLIENTS },
  mark: 'bar',
  encoding: {
    y: { field: 'client', type: 'nominal', sort: '-x', title: null },
    x: { field: 'findings', type: 'quantitative', title: 'Open findings' },
  },
};

const ARC = {
  $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
  data: {
    values: [
      { department: 'Engineering', people: 44 },
      { department: 'Sales', people: 23 },
      { department: 'Support', people: 15 },
      { department: 'Finance', people: 10 },
      { department: 'Legal', people: 8 },
    ],
  },
  mark: { type: 'arc', innerRadius: 70 },
  encoding: {
    theta: { field: 'people', type: 'quantitative', stack: true },
    color: {
      field: 'department',
      type: 'nominal',
      title: 'Department',
      sort: { field: 'people', order: 'descending' },
    },
    order: { field: 'people', sort: 'descending' },
  },
};

/** A copy of `spec` with `patch` merged in at the top level. */
const withPatch = (spec: object, patch: object): object => ({ ...structuredClone(spec), ...patch });

afterAll(async () => {
  await closeChartRenderer();
});

describe('renderChart: images', () => {
  it.each([
    ['line', LINE, 'Activity per month, 2024'],
    ['bar', BAR, 'Open findings by client'],
    ['arc', ARC, 'Headcount by department'],
  ] as const)('renders the %s chart to the recorded PNG', async (name, spec, title) => {
    const chart = await renderChart(spec, { title });
    const { width, height } = pngSize(chart.png);
    expect({ width: chart.width, height: chart.height }).toEqual({ width, height });
    expect({ width, height }).toEqual({ width: 1600, height: 900 }); // the slide canvas, 800 × 450 pt at 2×
    expect(chart.warnings).toEqual([]);
    expectSnapshot(name, chart.png);
  });

  it('gives identical bytes for identical input, in the same worker and in a new one', async () => {
    const first = await renderChart(LINE, { title: 'Same' });
    const second = await renderChart(LINE, { title: 'Same' });
    await closeChartRenderer();
    const third = await renderChart(LINE, { title: 'Same' });
    expect(second.png.equals(first.png)).toBe(true);
    expect(third.png.equals(first.png)).toBe(true);
  });

  it('does not depend on the time zone of the machine', async () => {
    const saved = process.env.TZ;
    // The first half of the year, picked with local-time expression functions.
    const firstHalf = withPatch(LINE, {
      transform: [{ filter: 'month(datum.month) < 6 && year(datum.month) == 2024' }],
    });
    const renderIn = async (tz: string) => {
      process.env.TZ = tz;
      await closeChartRenderer(); // a new worker starts in the new zone
      return [
        (await renderChart(LINE, { title: 'Activity per month, 2024' })).png,
        (await renderChart(firstHalf, { title: 'First half' })).png,
      ] as const;
    };
    try {
      const west = await renderIn('America/Los_Angeles');
      const east = await renderIn('Pacific/Kiritimati');
      // The same machine draws the same bytes in every time zone.
      expect(east[0].equals(west[0])).toBe(true);
      expect(east[1].equals(west[1])).toBe(true);
      expectSnapshot('line', west[0]);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
      await closeChartRenderer();
    }
  });

  it('renders concurrent calls one after another, each to its own bytes', async () => {
    const [line, bar, arc] = await Promise.all([
      renderChart(LINE, { title: 'Activity per month, 2024' }),
      renderChart(BAR, { title: 'Open findings by client' }),
      renderChart(ARC, { title: 'Headcount by department' }),
    ]);
    expectSnapshot('line', line.png);
    expectSnapshot('bar', bar.png);
    expectSnapshot('arc', arc.png);
  });

  it('shows the title option as the chart title, replacing a title set in the spec', async () => {
    const a = await renderChart(BAR, { title: 'Open findings by client' });
    const b = await renderChart(BAR, { title: 'Open findings per client' });
    expect(b.png.equals(a.png)).toBe(false);
    const untitled = await renderChart(BAR, { title: '' });
    expect(untitled.png.equals(a.png)).toBe(false);
    expect([untitled.width, untitled.height]).toEqual([a.width, a.height]); // the plot takes the title's room
    const specTitle = await renderChart(withPatch(BAR, { title: 'Set by the agent' }), {
      title: 'Open findings by client',
    });
    expect(specTitle.png.equals(a.png)).toBe(true);
  });

  it('wraps a long title on the canvas instead of widening the chart', async () => {
    const short = await renderChart(BAR, { title: 'Open findings' });
    const long = await renderChart(BAR, {
      title:
        'Open findings by client for the second quarter of 2024, excluding duplicates and findings withdrawn after review',
    });
    expect([long.width, long.height]).toEqual([short.width, short.height]);
    expect(long.png.equals(short.png)).toBe(false);
    expect(long.warnings).toEqual([]);
  });

  it('accepts config that sets no colour, a v6 $schema, and datasets', async () => {
    const chart = await renderChart(
      withPatch(BAR, {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        data: { name: 'clients' },
        datasets: { clients: CLIENTS },
        config: { axis: { labelFontSize: 12 }, view: { stroke: null } },
      }),
      { title: 'Config without colours' },
    );
    expect(pngSize(chart.png).width).toBe(chart.width);
  });

  it('writes PNGs that decode to the drawn pixels, opaque or with the background removed', async () => {
    // resvg decodes a PNG placed in an SVG <image>: the pixels come back as premultiplied RGBA.
    const decode = (png: Buffer) => {
      const { width, height } = pngSize(png);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><image width="${width}" height="${height}" href="data:image/png;base64,${png.toString('base64')}"/></svg>`;
      const pixels = new Resvg(svg).render().pixels;
      return (x: number, y: number) => [...pixels.subarray((y * width + x) * 4, (y * width + x) * 4 + 4)];
    };
    const at = decode((await renderChart(BAR, { title: 'Open findings by client' })).png);
    expect(at(4, 4)).toEqual([255, 255, 255, 255]); // the white background
    expect(at(800, 160)).toEqual([0x2f, 0x6f, 0xdb, 255]); // inside the first bar, the palette's blue
    const clear = decode(
      (await renderChart(withPatch(BAR, { config: { background: null } }), { title: 'Open findings by client' })).png,
    );
    expect(clear(4, 4)).toEqual([0, 0, 0, 0]);
    expect(clear(800, 160)).toEqual([0x2f, 0x6f, 0xdb, 255]);
  });

  it('draws every script a client writes with the font stack, without a missing-glyph warning', async () => {
    const labels = [
      '仓库管理系统',
      'ひらがな カタカナ',
      '창고 관리',
      'مستودع رئيسي',
      'מחסן ראשי',
      'Склад Αποθήκη',
      '📦 Parcels 🚚',
    ];
    const spec = withPatch(BAR, { data: { values: labels.map((client, i) => ({ client, findings: 10 + i })) } });
    const chart = await renderChart(spec, { title: 'Findings 仓库 مستودع 📦' });
    expect(chart.warnings.filter((w) => /empty boxes/.test(w))).toEqual([]);
  });

  it('warns about a character no font of the stack can draw (a private-use code point)', async () => {
    const chart = await renderChart(BAR, { title: 'Findings \ue000 日本' });
    const glyphWarnings = chart.warnings.filter((w) => /empty boxes/.test(w));
    expect(glyphWarnings).toHaveLength(1);
    expect(glyphWarnings[0]).toMatch(/U\+E000\.$/);
  });
});

describe('renderChart: refusals', () => {
  const layered = (second: object) => ({
    data: { values: CLIENTS },
    encoding: { y: { field: 'client', type: 'nominal', sort: '-x' }, x: { field: 'findings', type: 'quantitative' } },
    layer: [{ mark: 'bar' }, second],
  });

  it.each([
    ['mark color', withPatch(BAR, { mark: { type: 'bar', color: '#ff0000' } }), 'mark.color'],
    ['mark fill', withPatch(BAR, { mark: { type: 'bar', fill: 'red' } }), 'mark.fill'],
    [
      'mark stroke of a point overlay',
      withPatch(LINE, { mark: { type: 'line', point: { stroke: 'black' } } }),
      'mark.point.stroke',
    ],
    [
      'encoding color value',
      withPatch(BAR, { encoding: { ...BAR.encoding, color: { value: 'red' } } }),
      'encoding.color.value',
    ],
    [
      'encoding fill value',
      withPatch(BAR, { encoding: { ...BAR.encoding, fill: { value: '#123456' } } }),
      'encoding.fill.value',
    ],
    [
      'scale.range',
      withPatch(LINE, {
        encoding: { ...LINE.encoding, color: { field: 'channel', type: 'nominal', scale: { range: ['red', 'blue'] } } },
      }),
      'encoding.color.scale.range',
    ],
    [
      'scale.scheme',
      withPatch(LINE, {
        encoding: { ...LINE.encoding, color: { field: 'channel', type: 'nominal', scale: { scheme: 'dark2' } } },
      }),
      'encoding.color.scale.scheme',
    ],
    [
      'scale null (data values as colours)',
      withPatch(LINE, { encoding: { ...LINE.encoding, color: { field: 'channel', scale: null } } }),
      'encoding.color.scale',
    ],
    [
      'condition value',
      withPatch(BAR, {
        encoding: { ...BAR.encoding, color: { condition: { test: 'datum.findings > 30', value: 'red' }, value: null } },
      }),
      'encoding.color.condition.value',
    ],
    [
      'layer mark colour',
      layered({ mark: { type: 'text', color: 'black', dx: 4 }, encoding: { text: { field: 'findings' } } }),
      'layer[1].mark.color',
    ],
    [
      'layer encoding colour',
      layered({ mark: 'text', encoding: { text: { field: 'findings' }, color: { value: 'grey' } } }),
      'layer[1].encoding.color.value',
    ],
    [
      'concat colour',
      { hconcat: [BAR, withPatch(BAR, { mark: { type: 'bar', color: 'teal' } })] },
      'hconcat[1].mark.color',
    ],
    ['config.range', withPatch(BAR, { config: { range: { category: ['#000', '#fff'] } } }), 'config.range'],
    ['config.mark.color', withPatch(BAR, { config: { mark: { color: 'red' } } }), 'config.mark.color'],
    ['config.background', withPatch(BAR, { config: { background: '#000' } }), 'config.background'],
    ['config axis colour', withPatch(BAR, { config: { axis: { labelColor: 'red' } } }), 'config.axis.labelColor'],
    ['top-level background', withPatch(BAR, { background: 'black' }), 'background'],
    ['title colour', withPatch(BAR, { title: { text: 'x', color: 'red' } }), 'title.color'],
    [
      'axis colour',
      withPatch(BAR, {
        encoding: { ...BAR.encoding, x: { field: 'findings', type: 'quantitative', axis: { gridColor: 'red' } } },
      }),
      'encoding.x.axis.gridColor',
    ],
  ])('refuses a colour: %s', async (_, spec, path) => {
    const e = await refusal(spec);
    expect(e.path).toBe(path);
    expect(e.limit).toBeUndefined();
    expect(e.message).toMatch(/colou?r/i);
  });

  it.each([
    ['data.url', withPatch(BAR, { data: { url: 'https://example.com/data.csv' } }), 'data.url'],
    ['a local file', withPatch(BAR, { data: { url: '/etc/passwd', format: { type: 'csv' } } }), 'data.url'],
    [
      'data.url in a layer',
      {
        encoding: BAR.encoding,
        layer: [
          { data: { values: CLIENTS }, mark: 'bar' },
          { data: { url: 'data/other.json' }, mark: 'text' },
        ],
      },
      'layer[1].data.url',
    ],
    [
      'data.url in a lookup',
      withPatch(BAR, {
        transform: [
          {
            lookup: 'client',
            from: { data: { url: 'https://example.com/extra.json' }, key: 'client', fields: ['region'] },
          },
        ],
      }),
      'transform[0].from.data.url',
    ],
    [
      'a dataset URL',
      withPatch(BAR, { data: { name: 'remote' }, datasets: { remote: 'https://example.com/data.json' } }),
      'datasets.remote',
    ],
    [
      'an image mark with a url encoding',
      {
        data: { values: [{ x: 1, y: 1, u: 'https://example.com/a.png' }] },
        mark: 'image',
        encoding: { x: { field: 'x' }, y: { field: 'y' }, url: { field: 'u' } },
      },
      'mark',
    ],
    [
      'an image mark with a url value',
      {
        data: { values: [{ x: 1, y: 1 }] },
        mark: { type: 'image', url: 'file:///etc/hosts' },
        encoding: { x: { field: 'x' } },
      },
      'mark.type',
    ],
    [
      'a url encoding on another mark',
      { data: { values: [{ x: 1, u: 'a.png' }] }, encoding: { url: { field: 'u' }, x: { field: 'x' } }, mark: 'point' },
      'encoding.url',
    ],
  ])('refuses external content: %s', async (_, spec, path) => {
    const e = await refusal(spec);
    expect(e.path).toBe(path);
    expect(e.message).toMatch(/inline|URL/);
  });

  it('refuses a $schema that is not Vega-Lite v5 or v6', async () => {
    expect((await refusal(withPatch(BAR, { $schema: 'https://vega.github.io/schema/vega/v5.json' }))).path).toBe(
      '$schema',
    );
    expect((await refusal(withPatch(BAR, { $schema: 'https://vega.github.io/schema/vega-lite/v4.json' }))).path).toBe(
      '$schema',
    );
  });

  it('refuses a spec that is not an object or that Vega-Lite cannot compile', async () => {
    expect((await refusal([BAR])).path).toBe('');
    const e = await refusal(withPatch(BAR, { mark: 'nonsense' }));
    expect(e.path).toBe('');
    expect(e.message).toMatch(/Vega-Lite cannot compile/);
  });

  it('says what is wrong with an expression in JavaScript Vega does not take, not only "Disabled."', async () => {
    for (const calculate of ['this.constructor', 'new Date()', 'datum.a, 1']) {
      const e = await refusal(withPatch(BAR, { transform: [{ calculate, as: 'b' }] }));
      expect(e.message, calculate).toMatch(
        /Vega-Lite cannot compile this spec: an expression uses JavaScript that Vega expressions do not take/,
      );
      expect(e.message, calculate).not.toMatch(/Disabled/);
    }
  });

  it('refuses too many rows, summed over data and datasets, naming the limit and the numbers', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ client: `c${i}`, findings: i }));
    let e = await refusal(withPatch(BAR, { data: { values: rows(CHART_LIMITS.maxRows + 1) } }));
    expect(e).toMatchObject({ limit: 'rows', path: 'data.values' });
    expect(e.message).toContain('50,001');
    expect(e.message).toContain('50,000');
    e = await refusal(withPatch(BAR, { data: { values: rows(30_000) }, datasets: { more: rows(30_000) } }));
    expect(e.limit).toBe('rows');
    expect(e.message).toContain('60,000');
    e = await refusal({
      data: { sequence: { start: 0, stop: 1e9 } },
      mark: 'point',
      encoding: { x: { field: 'data', type: 'quantitative' } },
    });
    expect(e).toMatchObject({ limit: 'rows', path: 'data.sequence' });
  });

  it('refuses a spec larger than the size limit', async () => {
    const e = await refusal(
      withPatch(BAR, { data: { values: [{ client: 'x'.repeat(CHART_LIMITS.maxSpecBytes), findings: 1 }] } }),
    );
    expect(e).toMatchObject({ limit: 'spec-size', path: '' });
    expect(e.message).toContain('5,242,880');
  });

  it('refuses a chart that is too wide or too high, before or after layout', async () => {
    let e = await refusal(withPatch(BAR, { width: 2_500 }));
    expect(e).toMatchObject({ limit: 'width', path: 'width' });
    expect(e.message).toContain('5,000');
    e = await refusal(withPatch(BAR, { height: 2_500 }));
    expect(e).toMatchObject({ limit: 'height', path: 'height' });
    // 300 categories turn horizontal, one readable row each, which only turns out too high once laid out.
    const many = Array.from({ length: 300 }, (_, i) => ({ client: `Client ${i}`, findings: i }));
    e = await refusal({
      data: { values: many },
      mark: 'bar',
      encoding: { x: { field: 'client', type: 'nominal' }, y: { field: 'findings', type: 'quantitative' } },
    });
    expect(e).toMatchObject({ limit: 'height', path: 'encoding.x' });
    expect(e.message).toMatch(
      /300 categories of "client" would make the chart [0-9,]+ high \([0-9,]+ px\); the limit is 4,000 px, room for 116 categories/,
    );
  });

  it('says what to shorten when a spec is too deeply nested for the parser, instead of "Maximum call stack size exceeded"', async () => {
    const deep = `${'('.repeat(20_000)}1${')'.repeat(20_000)}`;
    const e = await refusal({
      data: { values: [{ a: 1 }] },
      transform: [{ calculate: deep, as: 'b' }],
      mark: 'point',
      encoding: { x: { field: 'b', type: 'quantitative' } },
    });
    expect(e.message).toMatch(/too large or too deeply nested to compile .* shorten it/);
    expect(e.message).not.toMatch(/call stack/);
  });

  it('refuses too many pixels when width and height are each within their limits', async () => {
    // A single view fills the canvas whatever its width; views side by side keep the sizes they ask for.
    const e = await refusal({
      hconcat: [withPatch(BAR, { width: 780, height: 1_800 }), withPatch(BAR, { width: 780, height: 1_800 })],
    });
    expect(e.limit).toBe('pixels');
    expect(e.message).toMatch(/limit is 12,000,000 pixels/);
  });

  it('stops a spec that runs past the time limit, and the next chart still renders', async () => {
    const slow = {
      data: { sequence: { start: 0, stop: 30_000, as: 'x' } },
      transform: [
        { calculate: 'sin(datum.x / 100)', as: 'y' },
        { loess: 'y', on: 'x', bandwidth: 1 },
      ],
      mark: 'line',
      encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
    };
    await renderChart(BAR, { title: 'warm up' }); // the time limit does not include the worker's start
    const started = performance.now();
    const e = await refusal(slow, { ...CHART_LIMITS, timeoutMs: 300 });
    const elapsed = performance.now() - started;
    expect(e).toMatchObject({ limit: 'time', path: '' });
    expect(e.message).toContain('0.3 s');
    expect(elapsed).toBeLessThan(3_000);
    const after = await renderChart(BAR, { title: 'Open findings by client' });
    expectSnapshot('bar', after.png);
  });

  it('cannot load anything even when a spec skips the checks (the loader refuses)', async () => {
    await expect(
      runJob(
        {
          spec: {
            data: { url: 'https://example.com/x.json' },
            mark: 'point',
            encoding: { x: { field: 'a', type: 'quantitative' } },
          },
          scale: 1,
          maxWidth: 4_000,
          maxHeight: 4_000,
          maxPixels: 1e7,
          maxDerivedRows: 1e6,
        },
        5_000,
      ),
    ).rejects.toThrow(/tried to load "https:\/\/example.com\/x.json"/);
  });
});

describe('renderChart: lint warnings', () => {
  const lint = async (spec: object) => (await renderChart(spec, { title: 'Lint' })).warnings;

  it('warns about timeUnit "month", which drops the year', async () => {
    const warnings = await lint(
      withPatch(LINE, { encoding: { ...LINE.encoding, x: { field: 'month', type: 'temporal', timeUnit: 'month' } } }),
    );
    expect(warnings).toEqual([
      expect.stringMatching(/^encoding\.x\.timeUnit is "month", which drops the year.*"timeUnit": "yearmonth"/),
    ]);
  });

  it('warns about monthly dates on a time axis without a timeUnit', async () => {
    const warnings = await lint(
      withPatch(LINE, { encoding: { ...LINE.encoding, x: { field: 'month', type: 'temporal' } } }),
    );
    expect(warnings).toEqual([
      expect.stringMatching(/^encoding\.x: the dates in field "month" are months.*"timeUnit": "yearmonth"/),
    ]);
  });

  it('warns about a time series drawn as bars', async () => {
    const warnings = await lint(
      withPatch(LINE, {
        mark: 'bar',
        encoding: { x: LINE.encoding.x, y: { field: 'items', type: 'quantitative', aggregate: 'sum' } },
      }),
    );
    expect(warnings).toEqual([expect.stringMatching(/^mark: a time series .* "bar" marks; draw it as a line/)]);
  });

  it('does not warn about points on top of a line', async () => {
    const spec = {
      data: LINE.data,
      encoding: { x: LINE.encoding.x, y: LINE.encoding.y, color: LINE.encoding.color },
      layer: [{ mark: 'line' }, { mark: 'point' }],
    };
    expect(await lint(spec)).toEqual([]);
  });

  it('warns about an unsorted vertical ranking bar, and about each half of it', async () => {
    const vertical = {
      data: { values: CLIENTS },
      mark: 'bar',
      encoding: { x: { field: 'client', type: 'nominal' }, y: { field: 'findings', type: 'quantitative' } },
    };
    expect(await lint(vertical)).toEqual([
      expect.stringMatching(
        /^encoding\.x: this ranking .* unsorted vertical bars; draw it as horizontal bars sorted by value/,
      ),
    ]);
    const sortedVertical = withPatch(vertical, {
      encoding: { ...vertical.encoding, x: { field: 'client', type: 'nominal', sort: '-y' } },
    });
    expect(await lint(sortedVertical)).toEqual([
      expect.stringMatching(/^encoding\.x: this ranking .* uses vertical bars/),
    ]);
    const unsortedHorizontal = withPatch(BAR, {
      encoding: { ...BAR.encoding, y: { field: 'client', type: 'nominal' } },
    });
    expect(await lint(unsortedHorizontal)).toEqual([
      expect.stringMatching(
        /^encoding\.y: the bars of "findings" per "client" are not sorted by value; add "sort": "-x"/,
      ),
    ]);
  });

  it('warns about more colours in a legend than the 12 of the palette, and more than 7 slices in a pie', async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ k: `Category ${i + 1}`, v: n - i }));
    const scatter = (n: number) => ({
      data: { values: rows(n) },
      mark: 'point',
      encoding: {
        x: { field: 'v', type: 'quantitative' },
        y: { field: 'v', type: 'quantitative' },
        color: { field: 'k', type: 'nominal' },
      },
    });
    expect(await lint(scatter(12))).toEqual([]);
    expect(await lint(scatter(13))).toEqual([
      expect.stringMatching(
        /^encoding\.color: the colour legend has 13 categories of "k", and the palette has 12 distinct colours, so colours repeat/,
      ),
    ]);
    const pie = {
      data: { values: rows(12) },
      mark: 'arc',
      encoding: { theta: { field: 'v', type: 'quantitative' }, color: { field: 'k', type: 'nominal' } },
    };
    const warnings = await lint(pie);
    expect(warnings).toContainEqual(expect.stringMatching(/^mark: the pie has 12 slices/));
  });
});
