/**
 * Text that XML can carry. XML 1.0 allows only tab, line feed, carriage return, U+0020–U+D7FF, U+E000–U+FFFD
 * and the astral planes: any other character (the rest of C0, U+FFFE, U+FFFF, a lone surrogate) makes the whole
 * part malformed, and a reader refuses the file (Excel "could not be loaded", PowerPoint a repair, LibreOffice
 * nothing at all). Every exporter that writes XML (the deck, the workbooks) and every one that cleans text for
 * drawing (the PDF's cleanText, the charts) takes text through here, so one character in a vault cannot break a
 * file, whichever writer it reaches.
 */

/** The characters XML 1.0 cannot carry, lone surrogates included (a pair is a legal astral character). */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Fast path: text of printable ASCII only (nearly every cell) needs no work. */
const PLAIN = /^[\u0020-\u007e]*$/;

/**
 * `text` with every character XML cannot carry removed; a lone surrogate (half of a character, cut from its
 * pair) becomes U+FFFD, so what was there still shows. Vertical tab and form feed become spaces (they separate words).
 */
export function xmlSafe(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace(NOT_XML, (c) =>
    c >= '\ud800' && c <= '\udfff' ? '\ufffd' : c === '\u000b' || c === '\u000c' ? ' ' : '',
  );
}

/** `text` made safe (xmlSafe) and escaped for XML character data or an attribute value. */
export function xmlEscape(text: string): string {
  return xmlSafe(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
