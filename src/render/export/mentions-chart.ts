/**
 * The chart a findings deliverable leads with: the most mentioned findings of a type as horizontal bars, most
 * mentioned on top, drawn by the renderer behind render_chart. The findings report's summary and the deck draw
 * the same spec from here.
 */
import { cleanText } from './pdf-text.js';

/**
 * The Vega-Lite spec of `bars`. Names are data: cleaned of control, invisible and bidi characters (cleanText),
 * and two findings with one name stay two bars ("Name (2)"), where Vega would
 * otherwise add them up into one.
 */
export function mentionsChartSpec(
  bars: readonly { name: string; mentions: number }[],
  axisTitle = 'Mentions',
): Record<string, unknown> {
  const seen = new Map<string, number>();
  const values = bars.map((b) => {
    const name = cleanText(b.name).trim() || '(unnamed)';
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return { name: n > 1 ? `${name} (${n})` : name, mentions: b.mentions };
  });
  return {
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'name', type: 'nominal', sort: '-x', title: null },
      x: { field: 'mentions', type: 'quantitative', title: axisTitle },
    },
  };
}
