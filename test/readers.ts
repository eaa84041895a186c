/** Readers for produced files, shared by the export unit tests and the end-to-end tests. */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, type PDFRawStream, PDFRef, type PDFObject } from 'pdf-lib';

// ------------------------------------------------------------------------------------------------
// A strict RFC 4180 parser (records end with CRLF; CR or LF alone only inside quotes)

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
      continue;
    }
    if (c === '"') {
      if (field !== '' || wasQuoted) throw new Error(`quote inside an unquoted field at ${i}`);
      quoted = wasQuoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
      wasQuoted = false;
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      wasQuoted = false;
      i++;
    } else if (c === '\r' || c === '\n') {
      throw new Error(`bare line break outside quotes at ${i}`);
    } else {
      if (wasQuoted) throw new Error(`text after a closing quote at ${i}`);
      field += c;
    }
  }
  if (quoted) throw new Error('unterminated quote');
  if (field !== '' || record.length) throw new Error('last record does not end with CRLF');
  return records;
}

// ------------------------------------------------------------------------------------------------
// Reading PDFs back: text runs per page, decoded through each font's ToUnicode map, with positions
// and widths (from the fonts' /W arrays)

interface Run {
  text: string;
  bold: boolean;
  size: number;
  x: number;
  y: number;
  width: number;
}

interface FontInfo {
  bold: boolean;
  unicode: Map<number, string>;
  widths: Map<number, number>;
  defaultWidth: number;
}

function streamText(stream: PDFRawStream): string {
  const filter = stream.dict.get(PDFName.of('Filter'));
  return Buffer.from(filter ? inflateSync(stream.contents) : stream.contents).toString('latin1');
}

function fontInfo(doc: PDFDocument, dict: PDFDict): FontInfo {
  const lookup = (o: PDFObject | undefined) => (o instanceof PDFRef ? doc.context.lookup(o) : o);
  const base = String(dict.get(PDFName.of('BaseFont')));
  const unicode = new Map<number, string>();
  const cmap = streamText(lookup(dict.get(PDFName.of('ToUnicode'))) as PDFRawStream);
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) {
      const units = m[2]!.match(/.{4}/g)!.map((h) => parseInt(h, 16));
      unicode.set(parseInt(m[1]!, 16), String.fromCharCode(...units));
    }
  }
  const descendant = lookup((lookup(dict.get(PDFName.of('DescendantFonts'))) as PDFArray).get(0)) as PDFDict;
  const widths = new Map<number, number>();
  const w = lookup(descendant.get(PDFName.of('W'))) as PDFArray | undefined;
  const items = w ? w.asArray().map(lookup) : [];
  for (let i = 0; i < items.length; ) {
    const first = (items[i] as PDFNumber).asNumber();
    const next = items[i + 1];
    if (next instanceof PDFArray) {
      next.asArray().forEach((v, k) => widths.set(first + k, (lookup(v) as PDFNumber).asNumber()));
      i += 2;
    } else {
      const last = (next as PDFNumber).asNumber();
      const width = (items[i + 2] as PDFNumber).asNumber();
      for (let g = first; g <= last; g++) widths.set(g, width);
      i += 3;
    }
  }
  const dw = lookup(descendant.get(PDFName.of('DW')));
  return { bold: base.includes('Bold'), unicode, widths, defaultWidth: dw instanceof PDFNumber ? dw.asNumber() : 1000 };
}

/** Tokens of a content stream; literal strings come back as arrays of bytes. */
function* tokens(content: string): Generator<string | number[]> {
  for (let i = 0; i < content.length; ) {
    const c = content[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(') {
      const bytes: number[] = [];
      i++;
      for (let depth = 0; ; i++) {
        const ch = content[i]!;
        if (ch === '\\') {
          const e = content[++i]!;
          bytes.push(({ n: 10, r: 13, t: 9, b: 8, f: 12 } as Record<string, number>)[e] ?? e.charCodeAt(0));
        } else if (ch === '(') {
          depth++;
          bytes.push(40);
        } else if (ch === ')') {
          if (depth-- === 0) break;
          bytes.push(41);
        } else bytes.push(ch.charCodeAt(0));
      }
      i++;
      yield bytes;
    } else if (c === '<') {
      const end = content.indexOf('>', i);
      const hex = content.slice(i + 1, end);
      yield hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? [];
      i = end + 1;
    } else if (c === '[' || c === ']') {
      yield c;
      i++;
    } else {
      const m = /^[^\s()<>[\]]+/.exec(content.slice(i, i + 64))!;
      yield m[0];
      i += m[0].length;
    }
  }
}

export interface ReadPdf {
  doc: PDFDocument;
  pages: { width: number; height: number; runs: Run[]; text: string }[];
}

export async function readPdf(path: string): Promise<ReadPdf> {
  const doc = await PDFDocument.load(readFileSync(path));
  const fonts = new Map<string, FontInfo>();
  const pages = doc.getPages().map((page) => {
    const resources = page.node.Resources()!;
    const fontDict = resources.lookup(PDFName.of('Font'), PDFDict);
    const byKey = new Map<string, FontInfo>();
    for (const [name, ref] of fontDict.entries()) {
      const id = String(ref);
      if (!fonts.has(id)) fonts.set(id, fontInfo(doc, doc.context.lookup(ref) as PDFDict));
      byKey.set(name.asString(), fonts.get(id)!);
    }
    const contents = page.node.Contents();
    const streams =
      contents instanceof PDFArray
        ? contents.asArray().map((r) => doc.context.lookup(r) as PDFRawStream)
        : [contents as PDFRawStream];
    const runs: Run[] = [];
    let stack: (string | number[])[] = [];
    let font: FontInfo | undefined;
    let size = 0;
    let x = 0;
    let y = 0;
    let continues = false;
    for (const token of tokens(streams.map(streamText).join('\n'))) {
      if (Array.isArray(token) || token === '[' || token === ']' || /^[-\d./]/.test(token)) {
        stack.push(token);
        continue;
      }
      if (token === 'Tf') {
        font = byKey.get(stack[0] as string);
        size = Number(stack[1]);
      } else if (token === 'Tm') {
        x = Number(stack[4]);
        y = Number(stack[5]);
      } else if (token === 'Tj' || token === 'TJ') {
        // Tj shows one string; TJ an array of strings and adjustments (1/1000 em, positive moves left).
        // Consecutive shows without a Tm between them (a line drawn run by run, face by face) are one run.
        let text = '';
        let width = 0;
        for (const item of stack) {
          if (item === '[' || item === ']') continue;
          if (typeof item === 'string') {
            width -= (Number(item) * size) / 1000;
            continue;
          }
          for (let i = 0; i < item.length; i += 2) {
            const gid = (item[i]! << 8) | item[i + 1]!;
            text += font!.unicode.get(gid) ?? '\u0000';
            width += ((font!.widths.get(gid) ?? font!.defaultWidth) * size) / 1000;
          }
        }
        const last = runs[runs.length - 1];
        if (continues && last) {
          last.text += text;
          last.width += width;
        } else runs.push({ text, bold: font!.bold, size, x, y, width });
        continues = true;
      }
      if (token === 'Tm' || token === 'ET') continues = false;
      stack = [];
    }
    const { width, height } = page.getSize();
    return { width, height, runs, text: runs.map((r) => r.text).join('\n') };
  });
  return { doc, pages };
}
