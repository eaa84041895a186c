/**
 * The chart gallery (test/chart-gallery.ts, drawn into docs/gallery/ by `npm run gallery`): every chart's
 * pixel size, aspect ratio, density and warnings. Charts in other scripts are only checked to render, with
 * no warnings beyond the layout's and the font check's (the font stack decides how they look).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fontkit from '@pdf-lib/fontkit';
import { afterAll, describe, expect, it } from 'vitest';
import { ChartSpecError, closeChartRenderer, renderChart } from '../../src/render/chart/index.js';
import { readPngDensity, readPngSize } from '../../src/render/chart/png.js';
import { fontFaces } from '../../src/render/font.js';
import { GALLERY } from '../chart-gallery.js';

afterAll(async () => {
  await closeChartRenderer();
});

const SLIDE = { width: 1600, height: 900 };
const ranking = /^encoding\.x: this ranking .* uses (unsorted )?vertical bars/;

/** What each chart must come out as: PNG size and the warnings, in order (regular expressions). */
const EXPECTED: Record<string, { size: { width: number; height: number }; warnings: RegExp[]; otherScript?: boolean }> =
  {
    'one-category': { size: SLIDE, warnings: [] },
    'two-categories': { size: SLIDE, warnings: [] },
    'six-months': { size: SLIDE, warnings: [] },
    'sixty-categories': {
      size: { width: 1600, height: 2180 },
      warnings: [
        /^60 categories of "aisle" are too many for vertical bars on a slide, so they are drawn as horizontal bars/,
        /^60 categories of "aisle" do not fit the height of a slide .* 1090 high instead of 450/,
        ranking,
      ],
    },
    'long-labels': {
      size: SLIDE,
      warnings: [
        /^The labels of "cause" are too long to read under vertical bars, so they are drawn as horizontal bars/,
        ranking,
      ],
    },
    'long-title': { size: SLIDE, warnings: [ranking] },
    'twelve-series': { size: SLIDE, warnings: [] },
    'negative-values': { size: SLIDE, warnings: [ranking] },
    'one-point': {
      size: SLIDE,
      warnings: [/^mark: the line has a single point \(one value of "month"\), so it is drawn as a point/],
    },
    cjk: { size: SLIDE, warnings: [ranking], otherScript: true },
    arabic: { size: SLIDE, warnings: [ranking], otherScript: true },
    emoji: { size: SLIDE, warnings: [ranking], otherScript: true },
    'stacked-long-legend': {
      size: SLIDE,
      warnings: [/^The labels of "site" are too long to read under vertical bars/, ranking],
    },
    'labelled-bars': { size: SLIDE, warnings: [/^14 categories of "carrier" are too many for vertical bars/, ranking] },
    pie: { size: SLIDE, warnings: [] },
    'square-ranking': { size: { width: 900, height: 900 }, warnings: [] },
    'portrait-trend': { size: { width: 900, height: 1200 }, warnings: [] },
    'naive-ranking': { size: SLIDE, warnings: [] },
    'monthly-line': { size: SLIDE, warnings: [] },
  };

const fontkit = createRequire(import.meta.url)('@pdf-lib/fontkit') as typeof Fontkit;
const chartFont = fontkit.create(readFileSync(fontFaces()[0]!.regular));

/** A font warning is fine only when every character it names is one the chart font really lacks. */
function isFontWarning(warning: string): boolean {
  const m = /show as empty boxes: (.*)$/.exec(warning);
  return m !== null && m[1]!.split(' ').every((ch) => !chartFont.hasGlyphForCodePoint(ch.codePointAt(0)!));
}

describe('chart gallery', () => {
  it('covers every chart of the gallery', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(
      GALLERY.filter((c) => c.name !== 'empty')
        .map((c) => c.name)
        .sort(),
    );
  });

  it.each(GALLERY.filter((c) => c.name !== 'empty').map((c) => [c.name, c] as const))(
    '%s: size, aspect, density and warnings',
    async (name, chart) => {
      const expected = EXPECTED[name]!;
      const out = await renderChart(chart.spec, { title: chart.title, size: chart.size });
      expect(readPngSize(out.png)).toEqual(expected.size);
      expect({ width: out.width, height: out.height }).toEqual(expected.size);
      if (expected.size.height === SLIDE.height * (expected.size.width / SLIDE.width))
        expect(out.width / out.height).toBeCloseTo(16 / 9, 5);
      expect(readPngDensity(out.png)).toBeCloseTo(144, 1); // drawn at 2×: pastes at its size in points
      const warnings = expected.otherScript ? out.warnings.filter((w) => !isFontWarning(w)) : out.warnings;
      expect(warnings).toHaveLength(expected.warnings.length);
      expected.warnings.forEach((pattern, i) => expect(warnings[i]).toMatch(pattern));
      expect(out.inline.png.length).toBeLessThanOrEqual(1024 * 1024);
      expect(Math.max(out.inline.width, out.inline.height)).toBeLessThanOrEqual(1600);
    },
  );

  it('empty: refused, naming data.values', async () => {
    const chart = GALLERY.find((c) => c.name === 'empty')!;
    const e = await renderChart(chart.spec, { title: chart.title }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ChartSpecError);
    expect(e).toMatchObject({
      path: 'data.values',
      message: expect.stringMatching(/^data\.values: no rows, so there is nothing to draw/),
    });
  });
});
