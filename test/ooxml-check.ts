/**
 * An Office Open XML package checked the way PowerPoint reads it, independently of the code that writes it
 * (src/render/deck/package.ts): the zip's own directory, `[Content_Types].xml` both ways, registered MIME types,
 * every relationship's target and every `r:id` a part uses, the notes master, the known repair triggers
 * (gitbrent/PptxGenJS #1443, #1444, #1449; GCWing/OpenBitFun #1642), the simple types of ECMA-376 those triggers
 * break, and every XML part well-formed and namespace-well-formed by a conformant XML 1.0 parser (saxes).
 * `checkPackage` returns the failed checks by name, with what failed: [] for a good package.
 */
import JSZip from 'jszip';
import { SaxesParser } from 'saxes';

export interface Failure {
  check: string;
  detail: string;
}

/** MIME types a package may declare: the registered image and video types, XML, and ECMA-376's own. */
const REGISTERED =
  /^(image\/(png|jpeg|gif|svg\+xml|bmp|tiff)|video\/mp4|application\/xml|application\/vnd\.openxmlformats-(package|officedocument)\.[A-Za-z0-9.-]+(\+xml)?)$/;
/** ST_TextAnchoringType (ECMA-376 Part 1, 20.1.10.60): what `anchor` may be on a:bodyPr and a:tcPr. */
const ANCHORS = new Set(['t', 'ctr', 'b', 'just', 'dist']);

/** The zip's central directory: each entry's name and compression method (0 stored, 8 deflate). */
function centralDirectory(zip: Buffer): { name: string; method: number }[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: { name: string; method: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    entries.push({ name: zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'), method });
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

/** The folder a part's relationships resolve against, and a target resolved to a part name. */
const sourceFolder = (relsName: string) => relsName.replace(/(^|\/)_rels\/[^/]*\.rels$/, '$1');
function resolve(folder: string, target: string): string {
  const out: string[] = [];
  for (const s of (target.startsWith('/') ? target.slice(1) : folder + target).split('/')) {
    if (s === '..') out.pop();
    else if (s && s !== '.') out.push(s);
  }
  return out.join('/');
}
const relsOf = (part: string) => {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
};

function wellFormed(xml: string): string | undefined {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let error: string | undefined;
  parser.on('error', (e) => {
    error ??= e.message;
  });
  try {
    parser.write(xml).close();
  } catch (e) {
    error ??= (e as Error).message;
  }
  return error;
}

export async function checkPackage(bytes: Buffer): Promise<Failure[]> {
  const failures: Failure[] = [];
  const fail = (check: string, detail: string) => failures.push({ check, detail });
  const directory = centralDirectory(bytes);
  for (const e of directory) {
    if (e.name.endsWith('/')) fail('zip: no folder entries', e.name);
    else if (e.method !== 8) fail('zip: every part DEFLATE-compressed', `${e.name} (method ${e.method})`);
  }
  if (directory[0]?.name !== '[Content_Types].xml')
    fail('zip: [Content_Types].xml first', directory[0]?.name ?? 'empty');
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files).filter((n) => !zip.files[n]!.dir);
  const xml = new Map<string, string>();
  for (const n of names) if (/\.(xml|rels)$/.test(n)) xml.set(n, await zip.file(n)!.async('string'));
  for (const [n, text] of xml) {
    const error = wellFormed(text);
    if (error) fail('xml: every part well-formed', `${n}: ${error}`);
  }
  // Content types, both ways, and only registered MIME types.
  const types = xml.get('[Content_Types].xml') ?? '';
  const defaults = new Map(
    [...types.matchAll(/<Default Extension="([^"]+)" ContentType="([^"]+)"\/>/g)].map((m) => [
      m[1]!.toLowerCase(),
      m[2]!,
    ]),
  );
  const overrides = new Map(
    [...types.matchAll(/<Override PartName="\/([^"]+)" ContentType="([^"]+)"\/>/g)].map((m) => [m[1]!, m[2]!]),
  );
  for (const part of overrides.keys())
    if (!names.includes(part)) fail('content types: every override names a part that exists', part);
  for (const n of names) {
    if (n === '[Content_Types].xml') continue;
    if (!overrides.has(n) && !defaults.has(n.slice(n.lastIndexOf('.') + 1).toLowerCase()))
      fail('content types: every part has a content type', n);
  }
  for (const t of [...defaults.values(), ...overrides.values()])
    if (!REGISTERED.test(t)) fail('content types: registered MIME types only', t);
  for (const ext of defaults.keys()) {
    if (!['xml', 'rels'].includes(ext) && !names.some((n) => n.toLowerCase().endsWith(`.${ext}`)))
      fail('content types: defaults only for extensions in the package', ext);
  }
  // Relationships: every internal target exists, every r:id a part uses is declared.
  for (const [n, text] of xml) {
    if (!n.endsWith('.rels')) continue;
    for (const m of text.matchAll(/<Relationship\b([^>]*?)\/?>/g)) {
      const target = /\bTarget="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
      if (/TargetMode="External"/.test(m[1]!)) continue;
      const part = resolve(sourceFolder(n), target);
      if (!names.includes(part)) fail('relationships: every target exists', `${n} → ${target}`);
    }
  }
  for (const [n, text] of xml) {
    if (n.endsWith('.rels')) continue;
    const ids = new Set([...text.matchAll(/\br:(?:id|embed|link|pict)="([^"]+)"/g)].map((m) => m[1]!));
    if (!ids.size) continue;
    const declared = new Set([...(xml.get(relsOf(n)) ?? '').matchAll(/\bId="([^"]+)"/g)].map((m) => m[1]!));
    for (const id of ids)
      if (!declared.has(id)) fail('relationships: every r:id a part uses is declared', `${n}: ${id}`);
  }
  // The notes master: a theme of its own, and notes slides whose placeholders need nothing it lacks.
  const master = xml.get('ppt/notesMasters/notesMaster1.xml');
  if (master !== undefined) {
    const themeOf = (part: string) => /Type="[^"]*\/theme" Target="([^"]+)"/.exec(xml.get(relsOf(part)) ?? '')?.[1];
    const notesTheme = themeOf('ppt/notesMasters/notesMaster1.xml');
    const slideTheme = themeOf('ppt/slideMasters/slideMaster1.xml');
    if (!notesTheme || resolve('ppt/notesMasters/', notesTheme) === resolve('ppt/slideMasters/', slideTheme ?? ''))
      fail('notes master: a theme of its own', notesTheme ?? 'none');
    const key = (ph: string) => `${/type="(\w+)"/.exec(ph)?.[1] ?? 'body'}/${/idx="(\d+)"/.exec(ph)?.[1] ?? '0'}`;
    const masterPlaceholders = new Set([...master.matchAll(/<p:ph\b[^>]*\/>/g)].map((m) => key(m[0])));
    for (const [n, text] of xml) {
      if (!/^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(n)) continue;
      for (const sp of text.matchAll(/<p:sp>(.*?)<\/p:sp>/gs)) {
        const ph = /<p:ph\b[^>]*\/>/.exec(sp[1]!);
        if (!ph || /<p:spPr>\s*<a:xfrm>/.test(sp[1]!)) continue;
        if (!masterPlaceholders.has(key(ph[0])))
          fail('notes master: every notes placeholder has its geometry', `${n}: ${key(ph[0])}`);
      }
    }
  }
  // The known triggers, and the simple types they break.
  for (const [n, text] of xml) {
    if (/<a:ln(\s[^>]*)?(\/>|><\/a:ln>)/.test(text)) fail('triggers: no empty <a:ln>', n);
    for (const m of text.matchAll(/<a:(?:ext|chExt) cx="(-?\d+)" cy="(-?\d+)"/g))
      if (Number(m[1]) < 0 || Number(m[2]) < 0) fail('triggers: no negative a:ext', `${n}: ${m[0]}`);
    for (const m of text.matchAll(/<a:(?:bodyPr|tcPr)\b[^>]*\banchor="([^"]*)"/g))
      if (!ANCHORS.has(m[1]!)) fail('triggers: anchor is an ST_TextAnchoringType', `${n}: anchor="${m[1]}"`);
    for (const m of text.matchAll(/<a:prstGeom prst="([^"]*)"/g))
      if (m[1] === 'oval') fail('triggers: preset geometry names', `${n}: ${m[1]}`);
    for (const sp of text.matchAll(/<p:sp>(.*?)<\/p:sp>/gs)) {
      if (!sp[1]!.includes('<p:txBody>') && !sp[1]!.includes('type="sldImg"'))
        fail('triggers: every shape has a text body', `${n}: ${/name="([^"]*)"/.exec(sp[1]!)?.[1]}`);
    }
  }
  return failures;
}
