/**
 * The deck's package made one PowerPoint opens without a repair prompt. pptxgenjs 4.0.1 (no release since
 * June 2025) writes known defects, each of which makes PowerPoint ask to repair every deck while LibreOffice
 * opens it silently (gitbrent/PptxGenJS #1443, #1444, #1449; open fixes #1458, #1462). They are fixed here on
 * the zip it writes (jszip, which pptxgenjs writes with), part by part:
 *
 * - `[Content_Types].xml` rebuilt from the parts that exist: an override per part it names only if the part is
 *   there (pptxgenjs declares slideMaster2…N for a deck with one master), defaults only for extensions in the
 *   package, registered MIME types only (`image/jpeg`, never `image/jpg`); a part without a type fails loudly.
 * - The notes master: its own theme (PowerPoint gives every master one; pptxgenjs shares the slides'), and an
 *   empty shape tree, which is what PowerPoint keeps of it after a repair (#1443). The notes slides then carry
 *   their own geometry (slide image above, notes below) instead of inheriting it from placeholders the master
 *   no longer has, and drop the slide-number placeholder a notes page does not need.
 * - The triggers other projects remove (GCWing/OpenBitFun #1642): an empty `<a:ln>` (written `noFill`, as meant),
 *   a shape without a text body (given an empty one; the notes page's slide image has none, as PowerPoint writes it), a negative `a:ext` (0), a cell `anchor="mid"` (`ctr`).
 * - Every relationship's target must exist; every XML part keeps only characters XML can carry (the last guard:
 *   the text was made safe before it reached pptxgenjs).
 * - Written DEFLATE-compressed (pptxgenjs stores every part uncompressed), `[Content_Types].xml` first, without
 *   the folder entries a package has no use for.
 */
import JSZip from 'jszip';
import { xmlSafe } from '../../core/xml-text.js';

const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';
const NOTES_MASTER = 'ppt/notesMasters/notesMaster1.xml';
const NOTES_THEME = 'ppt/theme/theme2.xml';
const THEME_TYPE = 'application/vnd.openxmlformats-officedocument.theme+xml';

/** The types of the extensions a deck may hold by default, as registered (IANA, ECMA-376 Part 2). */
const DEFAULT_TYPES: Record<string, string> = {
  xml: 'application/xml',
  rels: 'application/vnd.openxmlformats-package.relationships+xml',
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  vml: 'application/vnd.openxmlformats-officedocument.vmlDrawing',
};

/** Where the notes page puts the slide's image and the notes (EMU, a portrait 7.5 × 10 in page: pptxgenjs's own). */
const NOTES_GEOMETRY = {
  sldImg:
    '<a:xfrm><a:off x="685800" y="1143000"/><a:ext cx="5486400" cy="3086100"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom>',
  body: '<a:xfrm><a:off x="685800" y="4400550"/><a:ext cx="5486400" cy="3600450"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom>',
};

export class DeckPackageError extends Error {}

/** The package pptxgenjs wrote, repaired (above) and compressed. */
export async function repairDeckPackage(bytes: Buffer): Promise<Buffer> {
  const zip = await JSZip.loadAsync(bytes);
  const parts = new Map<string, string | Uint8Array>();
  for (const [name, file] of Object.entries(zip.files)) {
    if (file.dir) continue;
    parts.set(name, /\.(xml|rels)$/.test(name) ? xmlSafe(await file.async('string')) : await file.async('uint8array'));
  }
  const text = (name: string) => {
    const part = parts.get(name);
    if (typeof part !== 'string') throw new DeckPackageError(`the deck has no ${name}`);
    return part;
  };
  giveNotesMasterItsTheme(parts, text);
  parts.set(NOTES_MASTER, text(NOTES_MASTER).replace(/(<p:spTree>.*?<\/p:grpSpPr>).*?(<\/p:spTree>)/s, '$1$2'));
  for (const [name, part] of parts) {
    if (typeof part !== 'string') continue;
    let xml = removeTriggers(part);
    if (/^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(name)) xml = standaloneNotes(xml);
    parts.set(name, xml);
  }
  parts.set('[Content_Types].xml', contentTypes(text('[Content_Types].xml'), [...parts.keys()]));
  checkRelationships(parts);
  const out = new JSZip();
  const names = ['[Content_Types].xml', ...[...parts.keys()].filter((n) => n !== '[Content_Types].xml')];
  for (const name of names) out.file(name, parts.get(name)!, { createFolders: false });
  return out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 6 } });
}

/** A copy of the slides' theme for the notes master, related from it and typed. */
function giveNotesMasterItsTheme(parts: Map<string, string | Uint8Array>, text: (name: string) => string): void {
  const rels = 'ppt/notesMasters/_rels/notesMaster1.xml.rels';
  if (!parts.has(rels) || parts.has(NOTES_THEME)) return;
  parts.set(NOTES_THEME, text('ppt/theme/theme1.xml'));
  parts.set(rels, text(rels).replace('Target="../theme/theme1.xml"', 'Target="../theme/theme2.xml"'));
}

/** The known repair triggers, rewritten as PowerPoint writes the same thing. */
export function removeTriggers(xml: string): string {
  return xml
    .replace(/<a:ln((?:\s[^>]*)?)(?:\/>|><\/a:ln>)/g, '<a:ln$1><a:noFill/></a:ln>')
    .replace(
      /<a:(ext|chExt) cx="(-?\d+)" cy="(-?\d+)"\/>/g,
      (_, tag: string, cx: string, cy: string) =>
        `<a:${tag} cx="${Math.max(0, Number(cx))}" cy="${Math.max(0, Number(cy))}"/>`,
    )
    .replace(/(<a:(?:tcPr|bodyPr)\b[^>]*\banchor=")mid"/g, '$1ctr"')
    .replace(/<p:sp>((?:(?!<\/p:sp>).)*?)<\/p:sp>/gs, (sp: string, inner: string) =>
      inner.includes('<p:txBody>') || inner.includes('type="sldImg"')
        ? sp
        : `<p:sp>${inner.replace(/(<p:extLst>.*)?$/s, '<p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody>$1')}</p:sp>`,
    );
}

/** A notes slide that needs nothing from its master: the image and the notes placed, no slide-number placeholder. */
function standaloneNotes(xml: string): string {
  return xml
    .replace(/<p:sp>(?:(?!<\/p:sp>).)*?<p:ph type="sldNum"(?:(?!<\/p:sp>).)*?<\/p:sp>/gs, '')
    .replace(
      /(<p:ph type="(sldImg|body)"[^>]*\/><\/p:nvPr><\/p:nvSpPr>)<p:spPr\/>/g,
      (_, head: string, type: 'sldImg' | 'body') => `${head}<p:spPr>${NOTES_GEOMETRY[type]}</p:spPr>`,
    );
}

/** `[Content_Types].xml` for exactly these parts: the overrides of parts that exist, a default per extension used. */
function contentTypes(xml: string, names: string[]): string {
  const overrides = new Map<string, string>();
  for (const m of xml.matchAll(/<Override PartName="\/([^"]+)" ContentType="([^"]+)"\/>/g)) overrides.set(m[1]!, m[2]!);
  overrides.set(NOTES_THEME, THEME_TYPE);
  const defaults = new Map<string, string>([
    ['rels', DEFAULT_TYPES.rels!],
    ['xml', DEFAULT_TYPES.xml!],
  ]);
  const kept: [string, string][] = [];
  for (const name of names.filter((n) => n !== '[Content_Types].xml')) {
    const override = overrides.get(name);
    if (override) {
      kept.push([name, override]);
      continue;
    }
    const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
    const type = DEFAULT_TYPES[ext];
    if (!type) throw new DeckPackageError(`the deck's part ${name} has no content type`);
    defaults.set(ext, type);
  }
  return [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n',
    `<Types xmlns="${CT}">`,
    ...[...defaults].map(([ext, type]) => `<Default Extension="${ext}" ContentType="${type}"/>`),
    ...kept.map(([name, type]) => `<Override PartName="/${name}" ContentType="${type}"/>`),
    '</Types>',
  ].join('');
}

/** Every internal relationship points at a part of the package (a dangling one is a bug here, not the reader's to repair). */
function checkRelationships(parts: Map<string, string | Uint8Array>): void {
  for (const [name, part] of parts) {
    if (!name.endsWith('.rels') || typeof part !== 'string') continue;
    const base = name.replace(/_rels\/[^/]*\.rels$/, '');
    for (const m of part.matchAll(/<Relationship\b([^>]*)\/>/g)) {
      const target = /\bTarget="([^"]+)"/.exec(m[1]!)?.[1];
      if (!target || /TargetMode="External"/.test(m[1]!)) continue;
      const resolved = resolvePart(base, target);
      if (!parts.has(resolved)) throw new DeckPackageError(`${name} points at ${target}, which the deck does not hold`);
    }
  }
}

/** A relationship target resolved against the folder of its source part ('' for the package root). */
export function resolvePart(base: string, target: string): string {
  const segments = (target.startsWith('/') ? target.slice(1) : `${base}${target}`).split('/');
  const out: string[] = [];
  for (const s of segments) {
    if (s === '..') out.pop();
    else if (s && s !== '.') out.push(s);
  }
  return out.join('/');
}
