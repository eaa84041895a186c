/**
 * The deck's charts, drawn by the renderer behind render_chart (renderChart: the vault theme, its palette and
 * font, value labels on rankings, 1600 × 900 px at 144 dpi, the size of a slide's content area). Each is a
 * plain Vega-Lite spec with inline data; a chart with no data is left out rather than drawn empty.
 */
import { renderChart } from '../chart/index.js';
import { mentionsChartSpec } from '../export/mentions-chart.js';
import { typePlural, type DeckContent } from './content.js';
import { dayMonth, monthYear } from '../../time.js';

export interface DeckChart {
  title: string;
  png: Buffer;
  width: number;
  height: number;
  /** Where the numbers come from, for the speaker notes. */
  source: string;
}


/** The specs of the charts the content has data for, with their titles and sources. */
export function deckChartSpecs(content: DeckContent): { title: string; spec: Record<string, unknown>; source: string }[] {
  const specs: { title: string; spec: Record<string, unknown>; source: string }[] = [];
  const { ranking, byType, meetings, discovery } = content.charts;
  if (ranking.bars.length > 0) {
    specs.push({
      title: `${typePlural(ranking.type)} by mentions`,
      source: `list_findings type ${ranking.type}, sort mentions: the ${ranking.bars.length} most mentioned`,
      spec: mentionsChartSpec(ranking.bars, 'Mentions in meetings'),
    });
  }
  if (byType.length > 0) {
    specs.push({
      title: 'Findings by type',
      source: `stats: findings per type (${byType.map((t) => `${t.type} ${t.n}`).join(', ')})`,
      spec: {
        data: { values: byType.map((t) => ({ type: typePlural(t.type), findings: t.n })) },
        mark: 'bar',
        encoding: {
          y: { field: 'type', type: 'nominal', sort: '-x', title: null },
          x: { field: 'findings', type: 'quantitative', title: 'Findings' },
        },
      },
    });
  }
  // How the engagement went: findings by when they were first raised, else (a vault of one week of findings) its meetings.
  const timeline = discovery.periods.length >= 2 ? { what: 'New findings', data: discovery, source: 'list_findings: findings by the date they were first seen' } : { what: 'Meetings', data: meetings, source: `list_meetings: ${content.sources.total} meetings by date` };
  if (timeline.data.periods.length >= 2) {
    const { unit } = timeline.data;
    const label = unit === 'week' ? (p: { start: string }) => `w/c ${dayMonth(p.start)}` : (p: { start: string }) => monthYear(p.start);
    const values = timeline.data.periods.map((p) => ({ period: label(p), count: p.n }));
    specs.push({
      title: `${timeline.what} per ${unit}`,
      source: `${timeline.source}, counted per ${unit === 'week' ? 'week (Monday to Sunday, UTC)' : 'calendar month'}`,
      spec: {
        data: { values },
        mark: 'bar',
        encoding: {
          x: { field: 'period', type: 'ordinal', sort: values.map((v) => v.period), title: unit === 'week' ? 'Week commencing' : 'Month', axis: { labelAngle: 0 } },
          y: { field: 'count', type: 'quantitative', title: timeline.what, axis: { tickMinStep: 1 } },
        },
      },
    });
  }
  return specs;
}

/** The charts drawn, in order (each waits for the renderer's worker; a cancelled call stops the one drawing). */
export async function drawDeckCharts(content: DeckContent, signal?: AbortSignal): Promise<DeckChart[]> {
  const charts: DeckChart[] = [];
  for (const { title, spec, source } of deckChartSpecs(content)) {
    const chart = await renderChart(spec, { title, size: 'slide', signal });
    charts.push({ title, png: chart.png, width: chart.width, height: chart.height, source });
  }
  return charts;
}
