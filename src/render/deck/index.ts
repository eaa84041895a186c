/**
 * export_deck's writer: the deck's content (content.ts) and charts (charts.ts) as a 16:9 .pptx with pptxgenjs,
 * written to `<path>.partial` and renamed when complete (as every export). pptxgenjs loads on first use; the
 * package it writes is repaired and compressed (package.ts) so PowerPoint opens it without a repair prompt.
 *
 * The order of the slides: cover, the headline numbers, the featured findings (up to three a slide, grouped by
 * type), the open conflicts (one a slide, claims side by side), the charts, the next steps, the sources. A vault
 * with nothing extracted gets the cover, the numbers that say so, the next steps and the sources.
 */
import { writeFile } from 'node:fs/promises';
import { xmlEscape } from '../../core/xml-text.js';
import { writeAtomically } from '../export/atomic.js';
import { slideText } from './fit.js';
import { repairDeckPackage } from './package.js';
import type { DeckChart } from './charts.js';
import type { DeckContent } from './content.js';
import type { FeaturedFinding } from './featured.js';
import {
  chartSlide,
  conflictSlide,
  coverSlide,
  defineMasters,
  featuredSlide,
  nextStepsSlide,
  numbersSlide,
  sourcesSlide,
} from './slides.js';

export { deckContent, type DeckContent } from './content.js';
export { drawDeckCharts, type DeckChart } from './charts.js';

/** Featured findings a slide holds side by side. */
const PER_SLIDE = 3;

export interface WrittenDeck {
  slides: number;
  /** Slide titles in order (the answer lists them, tests read them). */
  outline: string[];
}

export async function writeDeck(path: string, content: DeckContent, charts: DeckChart[]): Promise<WrittenDeck> {
  const pres = new (await loadPptxGenJS())();
  pres.layout = 'LAYOUT_WIDE';
  // pptxgenjs escapes the title and subject but writes <Company> as it is given ("Procter & Gamble" would break
  // docProps/app.xml): the company is escaped here, and every property is cleaned as slide text is.
  pres.title = slideText(content.title);
  pres.company = xmlEscape(slideText(content.vault.client));
  pres.author = 'vault-tools';
  pres.subject = slideText(`Findings of ${content.vault.name}`);
  defineMasters(pres, content);
  const outline: string[] = [];
  coverSlide(pres, content);
  outline.push('Cover');
  numbersSlide(pres, content);
  outline.push('At a glance');
  for (const type of content.focus) {
    const items = content.featured.items.filter((i) => i.type === type);
    const parts = chunk(items, PER_SLIDE);
    parts.forEach((part, index) => {
      featuredSlide(pres, type, part, { index: index + 1, of: parts.length });
      outline.push(`Top ${type}`);
    });
  }
  for (const conflict of content.featured.conflicts) {
    conflictSlide(pres, content, conflict);
    outline.push('Open conflict');
  }
  for (const chart of charts) {
    chartSlide(pres, chart);
    outline.push(`Chart: ${chart.title}`);
  }
  nextStepsSlide(pres, content);
  outline.push('Next steps');
  sourcesSlide(pres, content);
  outline.push('Sources');
  const bytes = await repairDeckPackage((await pres.write({ outputType: 'nodebuffer' })) as Buffer);
  await writeAtomically(path, (partial) => writeFile(partial, bytes));
  return { slides: outline.length, outline };
}

type PptxGenJS = typeof import('pptxgenjs').default;
let lib: Promise<PptxGenJS> | undefined;
/** The class: Node's ESM entry exports it as `default`; a CommonJS build nests it once more. */
const loadPptxGenJS = () =>
  (lib ??= import('pptxgenjs').then((m) => {
    const d = m.default as PptxGenJS | { default: PptxGenJS };
    return ('default' in d ? d.default : d) as PptxGenJS;
  }));

/** Featured items of one type in slides of PER_SLIDE, the last never a lone card when it can borrow one (4 → 2 + 2). */
function chunk(items: FeaturedFinding[], size: number): FeaturedFinding[][] {
  if (!items.length) return [];
  const slides = Math.ceil(items.length / size);
  const per = Math.ceil(items.length / slides);
  return Array.from({ length: slides }, (_, i) => items.slice(i * per, (i + 1) * per)).filter((p) => p.length);
}
