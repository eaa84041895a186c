/**
 * The layout layer of the chart engine, without rendering: label wrapping and shortening, natural order,
 * the canvas and its rewrites (horizontal bars, capped bars, one-point lines, empty data), and the PNG density.
 */
import { Resvg } from '@resvg/resvg-js';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ChartSpecError } from '../../src/render/chart/errors.js';
import { readPngDensity, readPngSize, withDensity } from '../../src/render/chart/png.js';
import { naturalCompare } from '../../src/render/chart/order.js';
import { prepareChartSpec } from '../../src/render/chart/theme.js';
import { fitLabel, measureText, middleEllipsis, wrapText } from '../../src/render/chart/text.js';
import { LONG_LABELS } from '../chart-gallery.js';

const style = { size: 12, measure: measureText };
type Spec = Record<string, any>;
const prepare = (spec: Spec, title = 'T', size?: 'slide' | 'square' | 'portrait') =>
  prepareChartSpec(structuredClone(spec), title, size) as { spec: Spec; notes: string[] };
const bars = (values: Spec[], x = 'k', y = 'v'): Spec => ({
  data: { values },
  mark: 'bar',
  encoding: { x: { field: x, type: 'nominal' }, y: { field: y, type: 'quantitative' } },
});

describe('text', () => {
  it('wraps at spaces within the width, and breaks a long hyphenated word after its hyphen', () => {
    const lines = wrapText('Manual proof-of-delivery reconciliation in the finance team', 150, style);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(measureText(line, 12)).toBeLessThanOrEqual(150);
    expect(lines.join(' ')).toBe('Manual proof-of-delivery reconciliation in the finance team');
    expect(wrapText('Spreadsheet-based', 70, style)).toEqual(['Spreadsheet-', 'based']);
  });

  it('shortens a label in the middle, keeping the words that tell it apart from the others', () => {
    const [leeds, bristol] = LONG_LABELS;
    const a = fitLabel(leeds!, LONG_LABELS, 200, 1, style);
    const b = fitLabel(bristol!, LONG_LABELS, 200, 1, style);
    expect(a).toEqual(['Spreadsheet-based … at Leeds']);
    expect(b).toEqual(['Spreadsheet-based … at Bristol']);
    expect(measureText(a[0]!, 12)).toBeLessThanOrEqual(200.5);
    // Narrower, the context goes before the distinguishing word does, and words stay next to each other.
    expect(fitLabel(leeds!, LONG_LABELS, 120, 1, style)).toEqual(['… at Leeds']);
    // With two lines it fits whole.
    expect(fitLabel(leeds!, LONG_LABELS, 200, 2, style).join(' ')).toBe(leeds);
  });

  it('cuts characters from the middle when even the distinguishing words are too long', () => {
    expect(middleEllipsis('Supercalifragilistic-expialidocious', 80, style)).toMatch(/^Super.*….*ous$/);
    expect(fitLabel('Pneumonoultramicroscopicsilicovolcanoconiosis', [], 60, 1, style)[0]).toContain('…');
  });

  it('counts a character the font lacks as one em, not as nothing', () => {
    expect(measureText('東京', 12)).toBeCloseTo(24, 0);
  });
});

describe('natural order', () => {
  it('compares numbers inside strings by value', () => {
    expect(['Line 10', 'Line 2', 'Line 1', 'Line 12', 'Line 11'].sort(naturalCompare)).toEqual([
      'Line 1',
      'Line 2',
      'Line 10',
      'Line 11',
      'Line 12',
    ]);
  });

  it('gives a legend with no sort of its own its values in natural order, and leaves other legends alone', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ week: 1, pallets: i, line: `Line ${i + 1}` }));
    const spec = {
      data: { values: rows },
      mark: 'point',
      encoding: {
        x: { field: 'week', type: 'quantitative' },
        y: { field: 'pallets', type: 'quantitative' },
        color: { field: 'line', type: 'nominal' },
      },
    };
    expect(prepare(spec).spec.encoding.color.sort).toEqual(rows.map((r) => r.line));
    const sorted = {
      ...spec,
      encoding: { ...spec.encoding, color: { field: 'line', type: 'nominal', sort: 'descending' } },
    };
    expect(prepare(sorted).spec.encoding.color.sort).toBe('descending');
    const plain = {
      ...spec,
      data: {
        values: [
          { week: 1, pallets: 1, line: 'A' },
          { week: 1, pallets: 2, line: 'B' },
        ],
      },
    };
    expect(prepare(plain).spec.encoding.color.sort).toBeUndefined();
  });
});

describe('canvas', () => {
  it('fits a single view to the canvas of its size, dropping the spec width and height with a note', () => {
    const { spec, notes } = prepare({
      ...bars([
        { k: 'a', v: 1 },
        { k: 'b', v: 2 },
      ]),
      width: 300,
      height: 200,
    });
    expect(spec).toMatchObject({
      width: 800,
      height: 450,
      autosize: { type: 'fit', contains: 'padding', resize: true },
    });
    expect(notes).toEqual([
      expect.stringMatching(/fills the slide canvas \(800 × 450\), so the spec's width and height were not used/),
    ]);
    expect(prepare(bars([{ k: 'a', v: 1 }]), 'T', 'square').spec).toMatchObject({ width: 450, height: 450 });
    expect(prepare(bars([{ k: 'a', v: 1 }]), 'T', 'portrait').spec).toMatchObject({ width: 450, height: 600 });
  });

  it('leaves the size of facets and concatenations to Vega-Lite, keeping their short labels level', () => {
    const concat = { hconcat: [bars([{ k: 'Jan', v: 1 }]), bars([{ k: 'Distribution centre', v: 2 }])] };
    const { spec } = prepare(concat);
    expect(spec.width).toBeUndefined();
    expect(spec.autosize).toBeUndefined();
    expect(spec.hconcat[0].encoding.x.axis).toEqual({ labelAngle: 0 });
    expect(spec.hconcat[1].encoding.x.axis).toBeUndefined();
  });

  it('turns more than 12 vertical bars horizontal, with the sort and a value label following', () => {
    const rows = Array.from({ length: 13 }, (_, i) => ({ k: `Site ${i + 1}`, v: i }));
    const spec = {
      data: { values: rows },
      encoding: {
        x: { field: 'k', type: 'nominal', sort: '-y', axis: { labelAngle: -45 } },
        y: { field: 'v', type: 'quantitative' },
      },
      layer: [
        { mark: 'bar' },
        { mark: { type: 'text', dy: -4, baseline: 'bottom' }, encoding: { text: { field: 'v' } } },
      ],
    };
    const { spec: out, notes } = prepare(spec);
    expect(out.encoding.y).toMatchObject({ field: 'k', type: 'nominal', sort: '-x' });
    expect(out.encoding.y.axis.labelAngle).toBeUndefined();
    expect(out.encoding.x).toEqual({ field: 'v', type: 'quantitative', title: 'V', scale: { nice: 6 } });
    expect(out.layer[1].mark).toEqual({ type: 'text', dx: 4, align: 'left', baseline: 'middle' });
    expect(notes[0]).toMatch(/^13 categories of "k" are too many for vertical bars/);
    // Twelve stay vertical.
    expect(prepare({ ...spec, data: { values: rows.slice(0, 12) } }).spec.encoding.x.field).toBe('k');
  });

  it('keeps labels level under vertical bars, wrapped to the bar width', () => {
    const rows = ['North distribution centre', 'South distribution centre', 'Head office'].map((k, v) => ({ k, v }));
    const { spec } = prepare(bars(rows));
    const axis = spec.encoding.x.axis;
    expect(axis.labelAngle).toBe(0);
    expect(axis.labelExpr).toContain(
      '"North distribution centre": ["North distribution", "centre"]'.replace(/", "/, '","'),
    );
  });

  it('wraps or shortens the labels of horizontal bars, keeping what tells them apart', () => {
    const { spec } = prepare({
      ...bars(LONG_LABELS.map((k, v) => ({ k, v }))),
      encoding: { y: { field: 'k', type: 'nominal' }, x: { field: 'v', type: 'quantitative' } },
    });
    const expr: string = spec.encoding.y.axis.labelExpr;
    expect(expr).toMatch(/^\(\{.*\}\)\[datum\.label\] \|\| datum\.label$/);
    expect(expr).toContain('"Manual proof-of-delivery reconciliation in the finance team":');
    expect(spec.encoding.y.axis.labelLimit).toBe(0);
  });

  it('keeps one or two bars bar-shaped, each centred in its share of the whole axis', () => {
    // The bars are the first layer: the second is their value labels.
    const one = prepare(bars([{ k: 'Leeds', v: 12 }])).spec;
    expect(one.encoding.x.scale).toBeUndefined(); // the band still spans the plot
    expect(one.layer[0].mark).toMatchObject({ type: 'bar', width: { band: expect.any(Number) } });
    expect(one.layer[0].mark.width.band).toBeLessThan(0.2);
    const two = prepare(
      bars([
        { k: 'Leeds', v: 12 },
        { k: 'York', v: 7 },
      ]),
    ).spec;
    expect(two.layer[0].mark.width.band).toBeCloseTo(2 * one.layer[0].mark.width.band, 2);
    const six = prepare(bars(Array.from({ length: 6 }, (_, i) => ({ k: `m${i}`, v: i })))).spec;
    expect(six.encoding.x.scale).toBeUndefined();
    expect(six.layer[0].mark).toBe('bar');
  });

  it('makes the canvas taller when horizontal bars need more rows than a slide holds', () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({ k: `Aisle ${i + 1}`, v: i }));
    const { spec, notes } = prepare({
      data: { values: rows },
      mark: 'bar',
      encoding: { y: { field: 'k', type: 'nominal' }, x: { field: 'v', type: 'quantitative' } },
    });
    expect(spec.height).toBeGreaterThan(60 * 16);
    expect(notes).toEqual([expect.stringMatching(/^60 categories of "k" do not fit the height of a slide/)]);
  });
});

describe('degenerate data', () => {
  it('refuses a chart with no rows, naming the empty values', () => {
    const refusal = (spec: Spec) => {
      try {
        prepare(spec);
      } catch (e) {
        expect(e).toBeInstanceOf(ChartSpecError);
        return (e as ChartSpecError).path;
      }
      return undefined;
    };
    expect(refusal(bars([]))).toBe('data.values');
    expect(refusal({ data: { name: 't' }, datasets: { t: [] }, mark: 'bar', encoding: {} })).toBe('datasets.t');
    expect(
      refusal({
        layer: [
          { data: { values: [] }, mark: 'bar' },
          { data: { values: [] }, mark: 'rule' },
        ],
      }),
    ).toBe('layer[0].data.values');
    expect(
      refusal({
        layer: [
          { data: { values: [] }, mark: 'bar' },
          { data: { values: [{ a: 1 }] }, mark: 'rule' },
        ],
      }),
    ).toBeUndefined();
    expect(refusal({ data: { sequence: { start: 0, stop: 3 } }, mark: 'point' })).toBeUndefined();
  });

  it('shows the point of a line with one point per series, and says so', () => {
    const line = (values: Spec[]) => ({
      data: { values },
      mark: 'line',
      encoding: {
        x: { field: 'd', type: 'temporal' },
        y: { field: 'n', type: 'quantitative' },
        color: { field: 's', type: 'nominal' },
      },
    });
    const one = prepare(
      line([
        { d: '2026-01-01', n: 3, s: 'a' },
        { d: '2026-01-01', n: 4, s: 'b' },
      ]),
    );
    expect(one.spec.mark).toEqual({ type: 'line', point: true });
    expect(one.notes).toEqual([expect.stringMatching(/^mark: the line has a single point \(one value of "d"\)/)]);
    const two = prepare(
      line([
        { d: '2026-01-01', n: 3, s: 'a' },
        { d: '2026-02-01', n: 4, s: 'a' },
      ]),
    );
    expect(two.spec.mark).toBe('line');
    expect(two.notes).toEqual([]);
  });
});

describe('PNG density', () => {
  // A 2 × 1 PNG as resvg writes it: signature, IHDR, IDAT, IEND.
  const PNG = Buffer.from(new Resvg('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="1"/>').render().asPng());

  it('writes a pHYs chunk after IHDR with a valid CRC, and replaces an earlier one', () => {
    expect(readPngDensity(PNG)).toBeUndefined();
    const marked = withDensity(PNG, 144);
    expect(readPngDensity(marked)).toBeCloseTo(144, 1);
    expect(marked.toString('latin1', 37, 41)).toBe('pHYs');
    expect(marked.readUInt32BE(41)).toBe(5669); // pixels per metre
    expect(marked.readUInt32BE(50)).toBe(crc32(marked.subarray(37, 50)));
    const again = withDensity(marked, 72);
    expect(again.length).toBe(marked.length);
    expect(readPngDensity(again)).toBeCloseTo(72, 1);
    expect(readPngSize(again)).toEqual({ width: 2, height: 1 });
    expect(again.subarray(again.length - 12).toString('latin1', 4, 8)).toBe('IEND');
  });
});
