/**
 * Charts a consultant would paste as they come: labels shortened at word boundaries, a value axis that ends
 * on a tick above the largest bar, value labels on a ranking, axis titles in words, every month labelled on a
 * monthly line. And the layout stays bounded whatever the size of the spec. Each chart is prepared by the
 * engine and drawn by Vega to SVG, whose text is what the reader sees.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { ChartSpecError } from '../../src/render/chart/errors.js';
import { CHART_LIMITS } from '../../src/render/chart/limits.js';
import { fitLabel, measureText } from '../../src/render/chart/text.js';
import { prepareChartSpec } from '../../src/render/chart/theme.js';
import { checkChartSpec } from '../../src/render/chart/validate.js';
import { RISKS } from '../chart-gallery.js';

type Spec = Record<string, any>;
const style = { size: 12, measure: measureText };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The texts of the chart as Vega draws it (axis labels and titles, value labels), one per line of text. */
async function textsOf(spec: Spec, size: 'slide' | 'portrait' = 'slide'): Promise<string[]> {
  const prepared = prepareChartSpec(checkChartSpec(structuredClone(spec), CHART_LIMITS), 'Chart', size).spec;
  const view = new vega.View(vega.parse(vl.compile(prepared as unknown as vl.TopLevelSpec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const unescapeXml = (s: string) =>
    s
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#x27;|&apos;/g, "'")
      .replace(/&quot;/g, '"');
  return [...svg.matchAll(/<(?:text|tspan)\b[^>]*>([^<]*)(?=<)/g)]
    .map((m) => unescapeXml(m[1]!))
    .filter((t) => t.trim() !== '');
}

const ranking = (extra: Spec = {}): Spec => ({
  data: { values: RISKS.map((risk, i) => ({ risk_name: risk, risk_score: [11, 9, 8, 6, 5, 3][i] })) },
  mark: 'bar',
  encoding: {
    y: { field: 'risk_name', type: 'nominal', sort: '-x' },
    x: { field: 'risk_score', type: 'quantitative' },
  },
  ...extra,
});

describe('charts a consultant would paste', () => {
  it('shortens a label at word boundaries, keeping both ends', () => {
    const label = 'Key-person Dependency on the WMS Administrator';
    const width = measureText('Key-person Dependency … WMS Administrator', 12) + 1;
    expect(fitLabel(label, [], width, 1, style)).toEqual(['Key-person Dependency … WMS Administrator']);
    // Every label of a register, narrower: only whole words and one ellipsis, never a word cut in two.
    for (const whole of RISKS) {
      const lines = fitLabel(whole, RISKS, 150, 1, style);
      const words = new Set(whole.split(' '));
      for (const word of lines.join(' ').split(' '))
        expect(word === '…' || words.has(word), `${lines.join(' ')} (from ${whole})`).toBe(true);
      expect(measureText(lines[0]!, 12)).toBeLessThanOrEqual(150.5);
    }
    // A single word too long for the width is still cut in the middle.
    expect(fitLabel('Pneumonoultramicroscopicsilicovolcanoconiosis', [], 60, 1, style)[0]).toMatch(/^\S+…\S+$/);
  });

  it('ends the value axis on a tick at or above the largest bar', async () => {
    const texts = await textsOf(ranking());
    expect(texts).toContain('12'); // 11 is the largest score: the ticks go 0, 2, … 12, not stop at 10
    expect(texts).not.toContain('14');
  });

  it('labels the bars of a ranking with their values, unless the spec turns it off', async () => {
    const texts = await textsOf(ranking());
    for (const value of ['11', '9', '8', '6', '5', '3']) expect(texts).toContain(value);
    const off = await textsOf(ranking({ usermeta: { valueLabels: false } }));
    expect(off).not.toContain('11');
    expect(off).not.toContain('9');
    // A bar chart with colours (stacks, groups) gets none: the numbers would not say which part they are.
    const stacked = await textsOf({
      data: {
        values: [
          { site: 'Leeds', source: 'Interviews', n: 7 },
          { site: 'Leeds', source: 'Documents', n: 5 },
          { site: 'York', source: 'Interviews', n: 3 },
        ],
      },
      mark: 'bar',
      encoding: {
        y: { field: 'site', type: 'nominal' },
        x: { field: 'n', type: 'quantitative', aggregate: 'sum' },
        color: { field: 'source', type: 'nominal' },
      },
    });
    expect(stacked).not.toContain('7');
  });

  it('titles axes with words made from field names, and keeps the titles a spec sets', async () => {
    const texts = await textsOf(ranking());
    expect(texts).toContain('Risk score');
    expect(texts).toContain('Risk name');
    expect(texts.some((t) => /risk_/.test(t))).toBe(false);
    const monthly = await textsOf({
      data: {
        values: [
          { month: '2025-01-01', onTimeRate: 0.8 },
          { month: '2025-02-01', onTimeRate: 0.9 },
        ],
      },
      mark: 'line',
      encoding: {
        x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' },
        y: { field: 'onTimeRate', type: 'quantitative', aggregate: 'mean' },
      },
    });
    expect(monthly).toContain('Month'); // not "month (year-month)"
    expect(monthly).toContain('Average on time rate');
    const own = await textsOf(
      ranking({
        encoding: { ...ranking().encoding, x: { field: 'risk_score', type: 'quantitative', title: 'Score (1-25)' } },
      }),
    );
    expect(own).toContain('Score (1-25)');
  });

  it('labels every month of a monthly line when the labels fit, with the year under January', async () => {
    const values = Array.from({ length: 12 }, (_, i) => ({
      month: `2025-${String(i + 1).padStart(2, '0')}-01`,
      orders: 1200 + ((i * 137) % 500),
    }));
    const spec = {
      data: { values },
      mark: 'line',
      encoding: {
        x: { field: 'month', type: 'temporal', timeUnit: 'yearmonth' },
        y: { field: 'orders', type: 'quantitative' },
      },
    };
    for (const size of ['slide', 'portrait'] as const) {
      const texts = await textsOf(spec, size);
      for (const month of MONTHS)
        expect(
          texts.some((t) => t === month || t === `${month} 2025`),
          `${size}: ${month} in ${texts.join(' | ')}`,
        ).toBe(true);
      expect(texts.filter((t) => t.includes('2025'))).toHaveLength(1);
    }
    // Quarters the same way (on a slide, eight fit whole: "Q1 2024").
    const quarters = Array.from({ length: 8 }, (_, i) => ({
      month: `${2024 + Math.floor(i / 4)}-${String((i % 4) * 3 + 1).padStart(2, '0')}-01`,
      orders: i,
    }));
    const texts = await textsOf({
      ...spec,
      data: { values: quarters },
      encoding: { ...spec.encoding, x: { field: 'month', type: 'temporal', timeUnit: 'yearquarter' } },
    });
    expect(texts.filter((t) => /^Q[1-4] 202[45]$/.test(t))).toEqual([
      'Q1 2024',
      'Q2 2024',
      'Q3 2024',
      'Q4 2024',
      'Q1 2025',
      'Q2 2025',
      'Q3 2025',
      'Q4 2025',
    ]);
    // Five years of months cannot each have a label on a slide: Vega's choice stays.
    const long = Array.from({ length: 60 }, (_, i) => ({
      month: `${2020 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`,
      orders: i,
    }));
    expect((prepareChartSpec({ ...spec, data: { values: long } }, 'T').spec as Spec).encoding.x.axis).toBeUndefined();
  });
});

describe('chart layout bounded by the size of the spec', () => {
  it('refuses a sort list longer than Vega-Lite can compile, naming it', () => {
    const values = Array.from({ length: 2_001 }, (_, i) => `c${i}`);
    const spec = {
      data: { values: values.map((c) => ({ c, v: 1 })) },
      mark: 'point',
      encoding: { x: { field: 'c', type: 'nominal', sort: values }, y: { field: 'v', type: 'quantitative' } },
    };
    expect(() => checkChartSpec(spec, CHART_LIMITS)).toThrow(ChartSpecError);
    expect(() => checkChartSpec(spec, CHART_LIMITS)).toThrow(
      /^encoding\.x\.sort lists 2,001 values; a sort list may have at most 2,000/,
    );
  });

  it("leaves thousands of categories in Vega's order instead of writing a sort list Vega-Lite cannot compile", () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ c: `Site ${i}`, v: i }));
    const spec = {
      data: { values: rows },
      mark: 'point',
      encoding: { x: { field: 'c', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } },
    };
    const out = prepareChartSpec(spec, 'T').spec as Spec;
    expect(out.encoding.x.sort).toBeUndefined();
    expect(() => vl.compile(out as unknown as vl.TopLevelSpec)).not.toThrow();
  });

  it('refuses more categories than the height limit holds before fitting their labels, naming the field', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ risk: `${RISKS[i % RISKS.length]} ${i}`, score: i }));
    const spec = {
      data: { values: rows },
      mark: 'bar',
      encoding: { y: { field: 'risk', type: 'nominal' }, x: { field: 'score', type: 'quantitative' } },
    };
    expect(() => prepareChartSpec(spec, 'T')).toThrow(
      /^5,000 categories of "risk" would make the chart [\d,]+ high \([\d,]+ px\); the limit is 4,000 px, room for \d+ categories/,
    );
  });

  it('finds the words that tell a label apart among thousands, the same as comparing every pair did', () => {
    const labels = Array.from(
      { length: 3_000 },
      (_, i) => `Key-person dependency on the administrator of site ${i} in region ${i % 7}`,
    );
    // Shared: the first seven words with the labels next to it, "in region 2" with every seventh. Left: the number.
    expect(fitLabel(labels[1234]!, labels, 120, 1, style)).toEqual(['… of site 1234 in …']);
    expect(fitLabel(labels[0]!, labels, 120, 1, style)).toEqual(['Key-person … 0 …']);
    expect(fitLabel(labels[2999]!, labels, 200, 1, style)).toEqual(['Key-person … of site 2999 in …']);
  });
});
