/**
 * A pie chart as the PNG and the chart view draw it: the legend lists the slices largest first, each with its
 * percentage (the issue found no percentages and an alphabetical legend). The spec is drawn by Vega itself to
 * SVG, and the legend read back from it.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { prepareChartSpec } from '../../src/render/chart/theme.js';
import { checkChartSpec } from '../../src/render/chart/validate.js';
import { CHART_LIMITS } from '../../src/render/chart/limits.js';

/** The legend's labels, top to bottom, as Vega draws the prepared spec. */
async function legendLabels(spec: object): Promise<string[]> {
  const { spec: prepared } = prepareChartSpec(
    checkChartSpec(structuredClone(spec), CHART_LIMITS),
    'Agency spend by site',
  );
  const view = new vega.View(vega.parse(vl.compile(prepared as unknown as vl.TopLevelSpec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const legend = svg.slice(svg.indexOf('role-legend'));
  return [...legend.matchAll(/role-legend-label[\s\S]*?<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    m[1]!.replace(/&lt;/g, '<'),
  );
}

const spend = [
  { site: 'Bristol', spend: 120 },
  { site: 'Daventry', spend: 480 },
  { site: 'Leeds', spend: 300 },
  { site: 'Avonmouth', spend: 100 },
];

describe('a pie chart', () => {
  it('lists the slices by value, largest first, each with its share of the whole', async () => {
    const spec = {
      data: { values: spend },
      mark: 'arc',
      encoding: { theta: { field: 'spend', type: 'quantitative' }, color: { field: 'site', type: 'nominal' } },
    };
    // Shares read from the data here: 480, 300, 120, 100 of 1,000.
    expect(await legendLabels(spec)).toEqual(['Daventry  48%', 'Leeds  30%', 'Bristol  12%', 'Avonmouth  10%']);
  });

  it('sums the rows of one category, as an aggregated theta does, and says "<1%" for a sliver', async () => {
    const values = [...spend, { site: 'Leeds', spend: 300 }, { site: 'Hull', spend: 3 }];
    const spec = {
      data: { values },
      mark: { type: 'arc', innerRadius: 40 },
      encoding: {
        theta: { field: 'spend', type: 'quantitative', aggregate: 'sum' },
        color: { field: 'site', type: 'nominal' },
      },
    };
    expect(await legendLabels(spec)).toEqual([
      'Leeds  46%',
      'Daventry  37%',
      'Bristol  9%',
      'Avonmouth  8%',
      'Hull  <1%',
    ]);
  });

  it('keeps an order the author gave, and a chart that says valueLabels: false', async () => {
    const sorted = {
      data: { values: spend },
      mark: 'arc',
      encoding: {
        theta: { field: 'spend', type: 'quantitative' },
        color: { field: 'site', type: 'nominal', sort: ['Leeds', 'Bristol', 'Daventry', 'Avonmouth'] },
      },
    };
    expect(await legendLabels(sorted)).toEqual(['Leeds', 'Bristol', 'Daventry', 'Avonmouth']);
    const off = {
      data: { values: spend },
      mark: 'arc',
      usermeta: { valueLabels: false },
      encoding: { theta: { field: 'spend', type: 'quantitative' }, color: { field: 'site', type: 'nominal' } },
    };
    expect(await legendLabels(off)).toEqual(['Avonmouth', 'Bristol', 'Daventry', 'Leeds']);
  });
});
