/**
 * The `filename` parameters of a Content-Disposition header (RFC 6266): a plain `filename="…"` that every
 * client reads (curl -OJ 7.x reads only this one), ASCII, quoted, with nothing that could name another folder
 * or break the quoting, and beside it `filename*=UTF-8''…` with the exact name when the plain one had to differ.
 */
export function dispositionFileName(name: string): string {
  const plain = name.replace(/[^\x20-\x7e]|["\\/%]/g, '_').replace(/^[.\s]+/, '_') || 'download';
  return plain === name ? `filename="${plain}"` : `filename="${plain}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** RFC 5987 value characters: percent-encode everything but attr-char (encodeURIComponent leaves ' ( ) * ! too). */
const encodeRfc5987 = (s: string) =>
  encodeURIComponent(s).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
