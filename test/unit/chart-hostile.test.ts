/**
 * Specs written to exhaust the renderer: refused from the spec where the numbers are written out, stopped in
 * the renderer where only evaluation tells, and contained to the renderer process when all of that is
 * bypassed (this test process survives a renderer that runs out of memory).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChartSpecError, closeChartRenderer, renderChart } from '../../src/render/chart/index.js';
import { runJob } from '../../src/render/chart/pool.js';

afterAll(async () => {
  await closeChartRenderer();
});

async function refusal(spec: unknown): Promise<ChartSpecError> {
  try {
    await renderChart(spec, { title: 'Refused' });
  } catch (e) {
    if (!(e instanceof ChartSpecError)) throw e;
    return e;
  }
  return expect.fail('the spec was rendered, but a ChartSpecError was expected');
}

const ONE_ROW = { data: { values: [{ a: 1, b: 2 }] } };
const TICK = { mark: 'tick', encoding: { x: { field: 'a', type: 'quantitative' } } };
const BOMB = { ...ONE_ROW, transform: [{ calculate: 'sequence(0,300000000)', as: 's' }], ...TICK };
const NORMAL = { data: { values: [{ a: 1 }, { a: 3 }, { a: 2 }] }, ...TICK };

describe('renderChart: the renderer runs in a process of its own', () => {
  it('survives a renderer that runs out of memory: the chart is refused, the next one renders', async () => {
    await renderChart(NORMAL, { title: 'warm up' });
    // Past every check (none in the spec, none in the renderer): V8 aborts the process that runs out of memory.
    const job = { spec: BOMB, scale: 1, maxWidth: 4_000, maxHeight: 4_000, maxPixels: 1e7, maxDerivedRows: Infinity };
    const e = await runJob(job, 120_000).then(
      () => expect.fail('the bomb rendered'),
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ChartSpecError);
    expect(e).toMatchObject({ limit: 'memory', path: '' });
    expect((e as Error).message).toMatch(/needed more than 1,024 MB of memory and was stopped/);
    const after = await renderChart(NORMAL, { title: 'After the bomb' });
    expect(after.png.subarray(1, 4).toString('latin1')).toBe('PNG');
  }, 180_000);
});

describe('renderChart: generators written in the spec', () => {
  it.each([
    [
      'a literal sequence() in a calculate',
      BOMB,
      'transform[0].calculate',
      /sequence\(0,300000000\) would make 300,000,000 values; a chart may generate at most 1,000,000/,
    ],
    [
      'a one-argument sequence() in a filter',
      { ...ONE_ROW, transform: [{ filter: 'indexof(sequence(2e6), datum.a) >= 0' }], ...TICK },
      'transform[0].filter',
      /sequence\(2e6\) would make 2,000,000 values/,
    ],
    [
      'a sequence() in an expression of a mark',
      { ...ONE_ROW, ...TICK, mark: { type: 'text', text: { expr: 'length(sequence(0, 5000000, 2))' } } },
      'mark.text.expr',
      /2,500,000 values/,
    ],
    [
      'density steps',
      { ...ONE_ROW, transform: [{ density: 'a', steps: 1e8 }], ...TICK },
      'transform[0].steps',
      /"steps": 100000000 would make 100,000,000 values/,
    ],
    [
      'a quantile step',
      { ...ONE_ROW, transform: [{ quantile: 'a', step: 1e-8 }], ...TICK },
      'transform[0].step',
      /a quantile step of 1e-8 would make 100,000,000 values/,
    ],
    [
      'impute keyvals',
      { ...ONE_ROW, transform: [{ impute: 'b', key: 'a', keyvals: { start: 0, stop: 1e8 } }], ...TICK },
      'transform[0].keyvals',
      /100,000,000 values/,
    ],
    [
      'an axis tick count',
      { ...ONE_ROW, mark: 'tick', encoding: { x: { field: 'a', type: 'quantitative', axis: { tickCount: 1e7 } } } },
      'encoding.x.axis.tickCount',
      /10,000,000 values/,
    ],
  ])('refuses %s before rendering, naming the path and the limit', async (_, spec, path, message) => {
    const e = await refusal(spec);
    expect(e).toMatchObject({ path, limit: 'rows' });
    expect(e.message).toMatch(message);
  });

  it('accepts the same generators within the limit', async () => {
    const spec = {
      ...ONE_ROW,
      transform: [{ calculate: 'sequence(0, 10)', as: 's' }, { flatten: ['s'] }, { density: 's', steps: 50 }],
      mark: 'line',
      encoding: { x: { field: 'value', type: 'quantitative' }, y: { field: 'density', type: 'quantitative' } },
    };
    expect((await renderChart(spec, { title: 'Density' })).width).toBeGreaterThan(0);
  });
});

describe('renderChart: what only evaluation tells', () => {
  it.each([
    [
      'sequence() with computed bounds',
      { ...ONE_ROW, transform: [{ calculate: 'sequence(0, 3 * pow(10, 8))', as: 's' }], ...TICK },
      /^sequence\(\) would make 300,000,000 values; a chart may generate at most 1,000,000 values in all/,
    ],
    [
      'sequence() once per row, adding up',
      {
        data: { sequence: { start: 0, stop: 2_000, as: 'a' } },
        transform: [{ calculate: 'sequence(0, datum.a)', as: 's' }, { flatten: ['s'] }],
        ...TICK,
      },
      /^sequence\(\) would make [\d,]+ values \(after [\d,]+ made by earlier calls\); a chart may generate at most 1,000,000/,
    ],
    [
      'timeSequence() in milliseconds over a year',
      {
        ...ONE_ROW,
        transform: [{ calculate: "timeSequence('milliseconds', datetime(2024, 0, 1), datetime(2025, 0, 1))", as: 's' }],
        ...TICK,
      },
      /Sequence\(\) would make 31,[\d,]+ values/,
    ],
    [
      'a fold of 50,000 rows by 30 fields',
      {
        data: { sequence: { start: 0, stop: 50_000, as: 'a' } },
        transform: [{ fold: Array.from({ length: 30 }, (_, i) => `f${i}`) }],
        ...TICK,
      },
      /^A fold step made 1,500,000 rows; a chart may derive at most 1,000,000 rows in one step/,
    ],
  ])('stops %s in the renderer', async (_, spec, message) => {
    const e = await refusal(spec);
    expect(e).toMatchObject({ path: '', limit: 'rows' });
    expect(e.message).toMatch(message);
  });
});

describe('renderChart: links', () => {
  const data = { values: [{ a: 1, u: 'https://example.com/a' }] };
  it.each([
    [
      'an href encoding',
      { data, mark: 'point', encoding: { x: { field: 'a', type: 'quantitative' }, href: { field: 'u' } } },
      'encoding.href',
    ],
    [
      'an href encoding in a layer',
      {
        data,
        layer: [
          {
            mark: 'point',
            encoding: { x: { field: 'a', type: 'quantitative' }, href: { value: 'https://example.com' } },
          },
        ],
      },
      'layer[0].encoding.href',
    ],
    [
      'a mark href',
      {
        data,
        mark: { type: 'point', href: 'https://example.com' },
        encoding: { x: { field: 'a', type: 'quantitative' } },
      },
      'mark.href',
    ],
    [
      'a config href',
      {
        data,
        mark: 'point',
        config: { mark: { href: 'https://example.com' } },
        encoding: { x: { field: 'a', type: 'quantitative' } },
      },
      'config.mark.href',
    ],
  ])('refuses %s, naming where', async (_, spec, path) => {
    const e = await refusal(spec);
    expect(e.path).toBe(path);
    expect(e.message).toMatch(/links \(href\) are not allowed/);
  });

  it('fails the chart, not the renderer, when a library leaves a rejection behind (an href past the checks)', async () => {
    const spec = { data, mark: 'point', encoding: { x: { field: 'a', type: 'quantitative' }, href: { field: 'u' } } };
    const job = { spec, scale: 1, maxWidth: 4_000, maxHeight: 4_000, maxPixels: 1e7, maxDerivedRows: 1e6 };
    await expect(runJob(job, 30_000)).rejects.toThrow(ChartSpecError);
    await expect(runJob(job, 30_000)).rejects.toThrow(/Vega cannot draw this chart: .*reading 'href'/);
    expect((await renderChart(NORMAL, { title: 'After the link' })).width).toBeGreaterThan(0);
  });
});
