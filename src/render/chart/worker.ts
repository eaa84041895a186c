/**
 * The renderer: Vega-Lite → Vega → SVG → PNG, in a child process of its own (see pool.ts) so a hostile spec
 * can be stopped (the server kills it when the time limit passes) and can only exhaust the renderer's memory,
 * never the server's; vega, vega-lite, fontkit and resvg load there, on first use.
 *
 * The renderer runs `chartWorkerMain`'s SOURCE TEXT (Function.prototype.toString), fed to `node -` on stdin.
 * That works the same from TypeScript source (vitest, tsx) and from the tsup bundle, with no extra entry point
 * or file to ship. The price: `chartWorkerMain` must be self-contained. It may use only its parameters and
 * globals, never a binding of this module (imports, constants, helpers); only `import type` is allowed.
 * Modules are resolved to absolute paths by the server and passed in `init`.
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
  /** Rows one transform may output, and values sequence() may make in all (see ChartLimits.maxDerivedRows). */
  maxDerivedRows: number;
  /** When the image is larger than this (long side in px, or bytes), a smaller rendition is drawn too. */
  preview?: { maxSide: number; maxBytes: number };
}

/** A smaller rendition of a chart, drawn from the same SVG at `scale`. */
export interface Rendition {
  png: Uint8Array;
  width: number;
  height: number;
  scale: number;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | {
      type: 'done';
      id: number;
      png: Uint8Array;
      width: number;
      height: number;
      warnings: string[];
      preview?: Rendition;
    }
  | { type: 'refused'; id: number; path: string; message: string; limit?: ChartLimit };

/** Source text run by the renderer process (a CommonJS script: `require` and dynamic `import()` are available). */
export function rendererSource(init: WorkerInit): string {
  // `__name` is a no-op stand-in for the helper esbuild inserts when a build keeps function names.
  return `"use strict";\nvar __name = (f) => f;\n(${chartWorkerMain.toString()})(require, (url) => import(url), ${JSON.stringify(init)});\n`;
}

export function chartWorkerMain(
  req: NodeJS.Require,
  importModule: (url: string) => Promise<unknown>,
  init: WorkerInit,
): void {
  // --- Everything below runs in the renderer process. Self-contained: see the file comment. ---
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
    expressionFunction(name: string, fn?: unknown): unknown;
    Transform: { prototype: { evaluate(this: object, pulse: unknown): unknown } };
  }
  interface VegaLite {
    compile(spec: unknown, options: { logger: Logger }): { spec: unknown };
  }

  const fs = req('node:fs') as typeof import('node:fs');
  const send = (msg: WorkerMessage) => process.send!(msg);
  process.on('disconnect', () => process.exit(0)); // the server is gone

  // stdout may carry the MCP protocol: anything a library prints here goes to stderr instead.
  console.log = console.info = console.debug = console.error;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  // A PNG of RGBA pixels, rows unfiltered and deflated at level 3: a third of the time of resvg's own encoder
  // (which filters every row) for about the same size on charts, whose rows are mostly flat colour.
  const zlib = req('node:zlib') as typeof import('node:zlib');
  const chunk = (type: string, data: Buffer): Buffer => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const encodePng = (pixels: Buffer, width: number, height: number): Uint8Array => {
    const stride = width * 4;
    const rows = Buffer.alloc((stride + 1) * height); // each row: filter type 0 (none), then its pixels
    for (let y = 0; y < height; y++) pixels.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method choice, no interlace
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const png = Buffer.concat([
      signature,
      chunk('IHDR', header),
      chunk('IDAT', zlib.deflateSync(rows, { level: 3 })),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
  };

  const text = (e: unknown): string => {
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);
    // A parser that recursed past the stack: the spec's size, not a bug, is the cause; say what to shorten.
    if (/Maximum call stack size exceeded/.test(message)) {
      return 'the spec is too large or too deeply nested to compile (a very long sort list, a deeply nested expression, thousands of layers or categories); shorten it: aggregate the data and keep expressions short';
    }
    // Vega's expression parser says only "Disabled." for JavaScript it does not take.
    if (message !== 'Disabled.') return message;
    return "an expression uses JavaScript that Vega expressions do not take (`this`, `new`, loops, `++`, `--`, `delete`, `typeof` or a comma between expressions); write it with datum.field, operators and Vega's functions";
  };
  // core/numbers formatCount, written again: this function runs in the renderer process and may import nothing (above).
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
      (cp >= 0x200b && cp <= 0x200f) ||
      (cp >= 0x2060 && cp <= 0x2064) ||
      (cp >= 0xfe00 && cp <= 0xfe0f) ||
      cp === 0xfeff ||
      (cp >= 0xe0000 && cp <= 0xe01ef);

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
    if (vega.textMetrics.width !== vega.textMetrics.measureWidth)
      throw new Error('vega did not pick up the font measurer');
    const vl = (await importModule(init.vegaLiteUrl)) as VegaLite;
    const { Resvg } = req(init.resvgPath) as typeof ResvgModule;

    // What the job in flight may still produce while Vega evaluates it. A spec can multiply rows at run time
    // (sequence() with computed bounds, flatten, fold, density, quantile): the first step past the budget is
    // stopped with a refusal that names it, before the rows it would feed downstream are drawn.
    const budget = {
      maxRows: Infinity,
      valuesLeft: Infinity,
      exceeded: undefined as string | undefined,
      asyncError: undefined as string | undefined,
    };
    const overBudget = (message: string): never => {
      budget.exceeded ??= message;
      throw new Error(message);
    };
    const spendValues = (n: number, call: string) => {
      if (n > budget.valuesLeft) {
        const before = budget.maxRows - budget.valuesLeft;
        const made = before > 0 ? ` (after ${count(before)} made by earlier calls)` : '';
        overBudget(
          `${call} would make ${count(n)} values${made}; a chart may generate at most ${count(budget.maxRows)} values in all. Use a smaller range or a larger step, and avoid calling it once per row.`,
        );
      }
      budget.valuesLeft -= n;
    };
    const range = vega.expressionFunction('sequence') as (...args: number[]) => number[];
    vega.expressionFunction('sequence', (...args: number[]) => {
      // The length d3's range will allocate, computed before it does (its arguments, its rounding).
      let [start = 0, stop = 0, step = 1] = args.map(Number);
      if (args.length < 2) [start, stop] = [0, start];
      const n = Math.max(0, Math.ceil((stop - start) / step));
      spendValues(Number.isFinite(n) ? n : 0, 'sequence()');
      return range(...args);
    });
    // The shortest length of each time unit (days of 23 hours, months of 28 days): an upper bound of the count.
    const shortestMs: Record<string, number> = {
      milliseconds: 1,
      seconds: 1e3,
      minutes: 6e4,
      hours: 36e5,
      date: 828e5,
      day: 828e5,
      dayofyear: 828e5,
      week: 6048e5,
      month: 24192e5,
      quarter: 76896e5,
      year: 31536e6,
    };
    for (const name of ['timeSequence', 'utcSequence']) {
      const make = vega.expressionFunction(name) as (...args: unknown[]) => unknown[] | undefined;
      vega.expressionFunction(name, (unit: string, start: unknown, stop: unknown, step?: number) => {
        const n = Math.ceil(
          (Number(stop) - Number(start)) / ((shortestMs[unit] ?? Infinity) * Math.max(1, Math.floor(step ?? 1))),
        );
        spendValues(Number.isFinite(n) && n > 0 ? n : 0, `${name}()`);
        return make(unit, start, stop, step);
      });
    }
    const evaluate = vega.Transform.prototype.evaluate;
    vega.Transform.prototype.evaluate = function (this: object, pulse: unknown) {
      const out = evaluate.call(this, pulse);
      const added = (out as { add?: unknown } | undefined)?.add;
      if (Array.isArray(added) && added.length > budget.maxRows) {
        const step = this.constructor.name.toLowerCase();
        overBudget(
          `A ${step} step made ${count(added.length)} rows; a chart may derive at most ${count(budget.maxRows)} rows in one step. Aggregate or filter first, and avoid transforms that multiply rows.`,
        );
      }
      return out;
    };
    // A library that fails inside a callback (e.g. a promise it does not await) fails the job, not the process.
    const asyncFailure = (e: unknown) => {
      budget.asyncError ??= text(e);
    };
    process.on('unhandledRejection', asyncFailure);
    process.on('uncaughtException', asyncFailure);

    const render = async (job: RenderJob): Promise<WorkerMessage> => {
      Object.assign(budget, {
        maxRows: job.maxDerivedRows,
        valuesLeft: job.maxDerivedRows,
        exceeded: undefined,
        asyncError: undefined,
      });
      const refuse = (message: string, path = '', limit?: ChartLimit): WorkerMessage => ({
        type: 'refused',
        id: job.id,
        path,
        message,
        limit,
      });
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
        const view = new vega.View(vega.parse(compiled), {
          renderer: 'none',
          loader,
          logger: logger('Vega'),
          logLevel: vega.Warn,
        });
        try {
          svg = await view.toSVG();
          await new Promise((resolve) => setImmediate(resolve)); // lets a rejection left behind by the render surface
        } finally {
          view.finalize();
        }
      } catch (e) {
        return budget.exceeded
          ? refuse(budget.exceeded, '', 'rows')
          : refuse(`Vega cannot draw this chart: ${text(e)}`);
      }
      if (budget.exceeded) return refuse(budget.exceeded, '', 'rows');
      if (budget.asyncError) return refuse(`Vega cannot draw this chart: ${budget.asyncError}`);
      if (blocked.length > 0)
        return refuse(
          `The chart tried to load "${blocked[0]}"; charts cannot load anything (no network, no files): data must be inline.`,
        );
      if (errors.length > 0) return refuse(`Vega cannot draw this chart: ${errors[0]}`);
      if (/<image\b/.test(svg))
        return refuse('The chart contains an image; images are not allowed (they load by URL).');

      const size = /^<svg\b[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"/.exec(svg);
      const w = Math.ceil(Number(size?.[1] ?? 0) * job.scale);
      const h = Math.ceil(Number(size?.[2] ?? 0) * job.scale);
      if (!(w > 0 && h > 0))
        return refuse('The chart has no size (width or height is 0); check width, height and the data.');
      const dims = `${count(w)} × ${count(h)} px (drawn at ${job.scale}×)`;
      if (w > job.maxWidth)
        return refuse(
          `The image would be ${dims}; the width limit is ${count(job.maxWidth)} px. Make the chart narrower: a smaller width, fewer categories on x, or a smaller step.`,
          '',
          'width',
        );
      if (h > job.maxHeight)
        return refuse(
          `The image would be ${dims}; the height limit is ${count(job.maxHeight)} px. Make the chart lower: a smaller height, fewer categories on y, or a smaller step.`,
          '',
          'height',
        );
      if (w * h > job.maxPixels)
        return refuse(
          `The image would be ${dims} = ${count(w * h)} pixels; the limit is ${count(job.maxPixels)} pixels. Make the chart smaller.`,
          '',
          'pixels',
        );

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

      // The chart's background is an opaque rectangle over the whole image (unless the spec removed it).
      const opaque = /^<svg\b[^>]*><rect width="[\d.]+" height="[\d.]+" fill="#[0-9a-f]{6}"\/>/i.test(svg);
      const fontFiles = [...needed].sort((a, b) => a - b).flatMap((i) => init.fontFiles.slice(2 * i, 2 * i + 2));
      const draw = (scale: number) => {
        const resvg = new Resvg(svg, {
          fitTo: { mode: 'zoom', value: scale },
          font: {
            fontFiles,
            loadSystemFonts: false,
            defaultFontFamily: init.fontFamily,
            sansSerifFamily: init.fontFamily,
          },
          logLevel: 'off',
        });
        const image = resvg.render();
        // resvg's pixels are premultiplied alpha, the same as plain RGBA only when every pixel is opaque.
        const png = opaque ? encodePng(image.pixels, image.width, image.height) : new Uint8Array(image.asPng());
        return { png, width: image.width, height: image.height, scale };
      };
      const image = draw(job.scale);
      const png = image.png;
      // A large image gets a smaller rendition (for showing inline): scaled to the longest side allowed, then
      // once more by the square root of the byte overshoot (bytes grow with the area).
      let preview: Rendition | undefined;
      if (
        job.preview &&
        (Math.max(image.width, image.height) > job.preview.maxSide || png.length > job.preview.maxBytes)
      ) {
        let scale = job.scale * Math.min(1, job.preview.maxSide / Math.max(image.width, image.height));
        preview = draw(scale);
        if (preview.png.length > job.preview.maxBytes) {
          scale *= Math.sqrt(job.preview.maxBytes / preview.png.length) * 0.9;
          preview = draw(scale);
        }
      }

      return { type: 'done', id: job.id, png, width: image.width, height: image.height, warnings, preview };
    };

    process.on('message', (job: RenderJob) => {
      render(job).then(send, (e: unknown) =>
        send({ type: 'refused', id: job.id, path: '', message: `The chart could not be rendered: ${text(e)}` }),
      );
    });
    send({ type: 'ready' });
  };

  start().catch((e: unknown) =>
    send({ type: 'fatal', message: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
}
