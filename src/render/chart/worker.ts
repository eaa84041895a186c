/**
 * The render worker: Vega-Lite → Vega → SVG → PNG, inside a worker thread so a hostile spec can be stopped
 * (the main thread terminates the worker when the time limit passes) and so vega, vega-lite, fontkit and
 * resvg load off the main thread, on first use.
 *
 * The worker runs `chartWorkerMain`'s SOURCE TEXT (Function.prototype.toString), evaluated with
 * `new Worker(source, { eval: true })`. That works the same from TypeScript source (vitest, tsx) and from
 * the tsup bundle, with no extra entry point or file to ship. The price: `chartWorkerMain` must be
 * self-contained. It may use only its parameters and globals, never a binding of this module (imports,
 * constants, helpers); only `import type` is allowed. Modules are resolved to absolute paths by the
 * main thread and passed in `workerData`.
 */
import type * as Fontkit from '@pdf-lib/fontkit';
import type * as ResvgModule from '@resvg/resvg-js';
import type { ChartLimit } from './errors.js';

export interface WorkerInit {
  vegaUrl: string;
  vegaLiteUrl: string;
  resvgPath: string;
  fontkitPath: string;
  /** Font files as (regular, bold) pairs in fallback order, the primary face's pair first. */
  fontFiles: string[];
  fontFamily: string;
}

export interface RenderJob {
  id: number;
  spec: unknown;
  scale: number;
  maxWidth: number;
  maxHeight: number;
  maxPixels: number;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'done'; id: number; png: Uint8Array; width: number; height: number; warnings: string[] }
  | { type: 'refused'; id: number; path: string; message: string; limit?: ChartLimit };

/** Source text evaluated by the worker (a CommonJS script: `require` and dynamic `import()` are available). */
export function workerSource(): string {
  // `__name` is a no-op stand-in for the helper esbuild inserts when a build keeps function names.
  return `"use strict";\nvar __name = (f) => f;\n(${chartWorkerMain.toString()})(require, (url) => import(url));\n`;
}

export function chartWorkerMain(req: NodeJS.Require, importModule: (url: string) => Promise<unknown>): void {
  // --- Everything below runs in the worker. Self-contained: see the file comment. ---
  interface Logger {
    level(level?: number): number | Logger;
    error(...args: unknown[]): Logger;
    warn(...args: unknown[]): Logger;
    info(...args: unknown[]): Logger;
    debug(...args: unknown[]): Logger;
  }
  interface VegaView {
    toSVG(scale?: number): Promise<string>;
    finalize(): void;
  }
  interface Vega {
    View: new (runtime: unknown, options: Record<string, unknown>) => VegaView;
    parse(spec: unknown): unknown;
    loader(): Record<string, unknown>;
    setRandom(random: () => number): void;
    resetSVGDefIds(): void;
    textMetrics: { width: unknown; measureWidth: unknown };
    Warn: number;
  }
  interface VegaLite {
    compile(spec: unknown, options: { logger: Logger }): { spec: unknown };
  }

  const { parentPort, workerData } = req('node:worker_threads') as typeof import('node:worker_threads');
  const fs = req('node:fs') as typeof import('node:fs');
  const init = workerData as WorkerInit;
  const port = parentPort!;

  // stdout may carry the MCP protocol: anything a library prints here goes to stderr instead.
  console.log = console.info = console.debug = console.error;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  const text = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);
  const count = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

  const start = async () => {
    const fontkit = req(init.fontkitPath) as typeof Fontkit;
    // The stack's faces, (regular, bold) by index, parsed on first need: a Latin-only chart never reads the CJK files.
    type Face = ReturnType<typeof fontkit.create>;
    const faces: (Face | undefined)[][] = [];
    const pairs = Math.max(1, Math.floor(init.fontFiles.length / 2));
    const faceAt = (i: number, isBold: boolean): Face => {
      const pair = (faces[i] ??= []);
      const k = isBold ? 1 : 0;
      return (pair[k] ??= fontkit.create(fs.readFileSync(init.fontFiles[2 * i + k] ?? init.fontFiles[2 * i]!)));
    };
    /** Index of the first face that draws `cp` (resvg falls back in the same order), -1 when none does. */
    const faceIndexFor = (cp: number): number => {
      for (let i = 0; i < pairs; i++) if (faceAt(i, false).hasGlyphForCodePoint(cp)) return i;
      return -1;
    };
    // Joiners, variation selectors and other default-ignorables draw nothing: they never need a face.
    const ignorable = (cp: number) =>
      (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0xfeff || (cp >= 0xe0000 && cp <= 0xe01ef);

    // Vega measures text with a canvas 2D context when it finds one at load time (else it guesses 0.8 em per
    // character). We hand it a stand-in whose measureText shapes the text with the faces resvg draws with
    // (advance widths and kerning, run by run of one face), so label truncation, legend and axis layout match
    // the pixels.
    const context = {
      font: '11px sans-serif',
      measureText(s: string): { width: number } {
        const size = Number(/(\d*\.?\d+)px/.exec(this.font)?.[1] ?? 11);
        const isBold = /\b(bold|bolder|[6-9]00)\b/.test(this.font);
        let width = 0;
        let run = '';
        let runFace = 0;
        const flush = () => {
          if (!run) return;
          const face = faceAt(runFace, isBold);
          width += (face.layout(run).advanceWidth * size) / face.unitsPerEm;
          run = '';
        };
        for (const ch of s) {
          const cp = ch.codePointAt(0)!;
          const i = ignorable(cp) || faceAt(0, false).hasGlyphForCodePoint(cp) ? 0 : Math.max(0, faceIndexFor(cp));
          if (i !== runFace && !ignorable(cp)) {
            flush();
            runFace = i;
          }
          run += ch;
        }
        flush();
        return { width };
      },
    };
    const g = globalThis as { document?: unknown };
    g.document = { createElement: () => ({ getContext: () => context }) };
    const vega = (await importModule(init.vegaUrl)) as Vega;
    delete g.document;
    if (vega.textMetrics.width !== vega.textMetrics.measureWidth) throw new Error('vega did not pick up the font measurer');
    const vl = (await importModule(init.vegaLiteUrl)) as VegaLite;
    const { Resvg } = req(init.resvgPath) as typeof ResvgModule;

    const render = async (job: RenderJob): Promise<WorkerMessage> => {
      const refuse = (message: string, path = '', limit?: ChartLimit): WorkerMessage => ({ type: 'refused', id: job.id, path, message, limit });
      const warnings: string[] = [];
      const errors: string[] = [];
      const logger = (prefix: string): Logger => {
        const self: Logger = {
          level: (l?: number) => (l === undefined ? 2 : self),
          error: (...a) => (errors.push(a.map(text).join(' ')), self),
          warn: (...a) => {
            const w = `${prefix}: ${a.map(text).join(' ')}`;
            // Harmless and confusing: Vega-Lite says this whenever layers share a sort by value (bars with value labels).
            if (/conflicting sort properties/.test(w)) return self;
            if (!warnings.includes(w) && warnings.length < 8) warnings.push(w);
            return self;
          },
          info: () => self,
          debug: () => self,
        };
        return self;
      };

      let compiled: unknown;
      try {
        compiled = vl.compile(job.spec, { logger: logger('Vega-Lite') }).spec;
      } catch (e) {
        return refuse(`Vega-Lite cannot compile this spec: ${text(e)}`);
      }

      // Same input, same bytes: seed every source of randomness and restart SVG id counters for each chart.
      let seed = 0x2f6fdb;
      const random = () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      Math.random = random;
      vega.setRandom(random);
      vega.resetSVGDefIds();

      // A loader that reaches neither network nor disk, whatever the spec asks for.
      const blocked: string[] = [];
      const loader = vega.loader();
      const deny = async (uri: unknown) => {
        blocked.push(String(uri).slice(0, 200));
        throw new Error('external resources are disabled');
      };
      for (const method of ['load', 'sanitize', 'http', 'file']) loader[method] = deny;

      let svg: string;
      try {
        const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader, logger: logger('Vega'), logLevel: vega.Warn });
        try {
          svg = await view.toSVG();
        } finally {
          view.finalize();
        }
      } catch (e) {
        return refuse(`Vega cannot draw this chart: ${text(e)}`);
      }
      if (blocked.length > 0) return refuse(`The chart tried to load "${blocked[0]}"; charts cannot load anything (no network, no files): data must be inline.`);
      if (errors.length > 0) return refuse(`Vega cannot draw this chart: ${errors[0]}`);
      if (/<image\b/.test(svg)) return refuse('The chart contains an image; images are not allowed (they load by URL).');

      const size = /^<svg\b[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"/.exec(svg);
      const w = Math.ceil(Number(size?.[1] ?? 0) * job.scale);
      const h = Math.ceil(Number(size?.[2] ?? 0) * job.scale);
      if (!(w > 0 && h > 0)) return refuse('The chart has no size (width or height is 0); check width, height and the data.');
      const dims = `${count(w)} × ${count(h)} px (drawn at ${job.scale}×)`;
      if (w > job.maxWidth) return refuse(`The image would be ${dims}; the width limit is ${count(job.maxWidth)} px. Make the chart narrower: a smaller width, fewer categories on x, or a smaller step.`, '', 'width');
      if (h > job.maxHeight) return refuse(`The image would be ${dims}; the height limit is ${count(job.maxHeight)} px. Make the chart lower: a smaller height, fewer categories on y, or a smaller step.`, '', 'height');
      if (w * h > job.maxPixels) return refuse(`The image would be ${dims} = ${count(w * h)} pixels; the limit is ${count(job.maxPixels)} pixels. Make the chart smaller.`, '', 'pixels');

      // Which fallback faces the text needs (resvg reads every file it is given, on every render: only those
      // go), and which characters no face can draw (they come out as empty boxes: say which).
      const needed = new Set<number>([0]);
      const missing = new Set<string>();
      for (const m of svg.matchAll(/>([^<]+)</g)) {
        const decoded = m[1]!.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (all, ent: string) => {
          const e = ent.toLowerCase();
          if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
          if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
          return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e] ?? all;
        });
        for (const ch of decoded) {
          const cp = ch.codePointAt(0)!;
          if (cp <= 0x20 || ignorable(cp)) continue;
          const i = faceIndexFor(cp);
          if (i >= 0) needed.add(i);
          else if (missing.size < 10) missing.add(ch);
        }
      }
      if (missing.size > 0) {
        const hex = [...missing].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
        warnings.push(`Some characters have no glyph in the chart fonts and show as empty boxes: ${hex.join(', ')}.`);
      }

      const resvg = new Resvg(svg, {
        fitTo: { mode: 'zoom', value: job.scale },
        font: {
          fontFiles: [...needed].sort((a, b) => a - b).flatMap((i) => init.fontFiles.slice(2 * i, 2 * i + 2)),
          loadSystemFonts: false,
          defaultFontFamily: init.fontFamily,
          sansSerifFamily: init.fontFamily,
        },
        logLevel: 'off',
      });
      const image = resvg.render();
      const png = new Uint8Array(image.asPng());
      return { type: 'done', id: job.id, png, width: image.width, height: image.height, warnings };
    };

    port.on('message', (job: RenderJob) => {
      render(job).then(
        (result) => port.postMessage(result, result.type === 'done' ? [result.png.buffer as ArrayBuffer] : []),
        (e: unknown) => port.postMessage({ type: 'refused', id: job.id, path: '', message: `The chart could not be rendered: ${text(e)}` } satisfies WorkerMessage),
      );
    });
    port.postMessage({ type: 'ready' } satisfies WorkerMessage);
  };

  start().catch((e: unknown) => port.postMessage({ type: 'fatal', message: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies WorkerMessage));
}
