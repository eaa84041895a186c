// `npm run gallery`: draws the chart gallery (test/chart-gallery.ts) into docs/gallery/, one PNG per chart,
// and docs/gallery/README.md listing each with its size and the warnings it came with. Look at them after
// any change to the chart theme or layout.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GALLERY } from '../test/chart-gallery.js';
import { ChartSpecError, closeChartRenderer, renderChart } from '../src/render/chart/index.js';

const DIR = 'docs/gallery';
mkdirSync(DIR, { recursive: true });
for (const file of readdirSync(DIR)) if (file.endsWith('.png')) rmSync(join(DIR, file));

const rows: string[] = [];
for (const chart of GALLERY) {
  try {
    const out = await renderChart(chart.spec, { title: chart.title, size: chart.size });
    writeFileSync(join(DIR, `${chart.name}.png`), out.png);
    const warnings = out.warnings.map((w) => w.replace(/\|/g, '\\|')).join('<br>') || '—';
    rows.push(
      `| [${chart.name}](${chart.name}.png) | ${chart.size ?? 'slide'} | ${out.width} × ${out.height} | ${warnings} |`,
    );
  } catch (e) {
    if (!(e instanceof ChartSpecError)) throw e;
    rows.push(
      `| ${chart.name} | ${chart.size ?? 'slide'} | refused | \`${e.path}\`: ${e.message.replace(/\|/g, '\\|')} |`,
    );
  }
  process.stderr.write(`${chart.name}\n`);
}
await closeChartRenderer();

writeFileSync(
  join(DIR, 'README.md'),
  [
    '# Chart gallery',
    '',
    'Charts drawn by `render_chart` from the specs in `test/chart-gallery.ts`, regenerated with `npm run gallery`',
    '(`test/unit/chart-gallery.test.ts` checks their sizes and warnings). A chart is laid out on a canvas in points',
    '(`slide` 800 × 450, `square` 450 × 450, `portrait` 450 × 600), drawn at 2× and marked 144 dpi, so it pastes',
    'into PowerPoint or Word at that size: a slide chart is 11.1 × 6.25 in with 12 pt labels.',
    '',
    '| Chart | Canvas | PNG px | Warnings |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
process.stderr.write(`wrote ${DIR}\n`);
