/**
 * Unicode's bidirectional controls: the embeddings and overrides (U+202A–U+202E), the isolates (U+2066–U+2069)
 * and the marks (U+200E, U+200F, U+061C). In text from outside they make a line read other than it is (U+202E
 * turns `exe.txt` around), so outside text shown to a person or quoted in an error loses them.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` without its bidi controls: they are removed, not replaced, since they have no glyph of their own. */
export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
