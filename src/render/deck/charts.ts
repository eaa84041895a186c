/**
 * The deck's charts, drawn by the renderer behind render_chart (renderChart: the vault theme, its palette and
 * font, value labels on rankings, 1600 × 900 px at 144 dpi, the size of a slide's content area). Each is a
 * plain Vega-Lite spec with inline data; a chart with no data is left out rather than drawn empty. The deck
 * charts findings, not the vault's bookkeeping (findings by type or by week are how the vault grew, not what it found).
 */
import { renderChart } from '../chart/index.js';
import { mentionsChartSpec } from '../export/mentions-chart.js';
import { typePlural, type DeckContent } from './content.js';

export interface DeckChart {
  title: string;
  png: Buffer;
  width: number;
  height: number;
  /** Where the numbers come from, for the speaker notes. */
  source: string;
  /** A line under the chart (the ties it does not draw). */
  caption?: string;
}

/**
 * The specs of the charts the content has data for, with their titles and sources: each of the first two focus
 * types (problems and opportunities by default) by how often they came up in meetings, the question a client
 * asks of a findings deck. Ties for the last bar are drawn, or said in the caption ("and 1 more with 2 mentions").
 */
export function deckChartSpecs(
  content: DeckContent,
): { title: string; spec: Record<string, unknown>; source: string; caption?: string }[] {
  return [...rankingSpecs(content), ...departmentSpecs(content)];
}

/**
 * Where the focus types came up: the departments (sites) linked to them by the vault's edges, by the mentions of
 * the linked findings; drawn when at least two departments are linked (one bar compares nothing).
 */
function departmentSpecs(content: DeckContent): { title: string; spec: Record<string, unknown>; source: string }[] {
  const { types, bars } = content.charts.byDepartment;
  if (bars.length < 2) return [];
  const what = types.map((t) => typePlural(t).toLowerCase()).join(' and ');
  return [
    {
      title: `${what[0]!.toUpperCase()}${what.slice(1)} by site or department`,
      source: `get_entity edges: ${bars.map((b) => `${b.name} ${b.findings} linked, ${b.mentions} mentions`).join('; ')}`,
      spec: mentionsChartSpec(
        bars.map((b) => ({ name: b.name, mentions: b.mentions })),
        `Mentions of the ${what} linked to it`,
      ),
    },
  ];
}

function rankingSpecs(
  content: DeckContent,
): { title: string; spec: Record<string, unknown>; source: string; caption?: string }[] {
  return content.charts.rankings
    .filter((r) => r.bars.length > 0)
    .map((r) => {
      const last = r.bars.at(-1)!.mentions;
      return {
        title: `${typePlural(r.type)} by how often they came up`,
        source: `list_findings type ${r.type}, sort mentions: the ${r.bars.length} most mentioned${r.tiedLeftOut ? `, ${r.tiedLeftOut} more tied at ${last}` : ''}`,
        spec: mentionsChartSpec(r.bars, 'Mentions in meetings'),
        ...(r.tiedLeftOut
          ? { caption: `And ${r.tiedLeftOut.toLocaleString('en-GB')} more with ${plural(last, 'mention')} each.` }
          : {}),
      };
    });
}

const plural = (n: number, one: string) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : `${one}s`}`;

/** The charts drawn, in order (each waits for the renderer's worker; a cancelled call stops the one drawing). */
export async function drawDeckCharts(content: DeckContent, signal?: AbortSignal): Promise<DeckChart[]> {
  const charts: DeckChart[] = [];
  for (const { title, spec, source, caption } of deckChartSpecs(content)) {
    const chart = await renderChart(spec, { title, size: 'slide', signal });
    charts.push({
      title,
      png: chart.png,
      width: chart.width,
      height: chart.height,
      source,
      ...(caption ? { caption } : {}),
    });
  }
  return charts;
}
