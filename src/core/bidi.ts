/**
 * Bidirectional controls (the marks U+200E, U+200F, U+061C; the embeddings and overrides U+202A–U+202E; the
 * isolates U+2066–U+2069 of Unicode's bidi algorithm) make text read other than it is: "U+202E" turns `txt.exe`
 * around. Text from outside shown to a person (a client's name on the consent page, a view's label) has them
 * removed: they carry no meaning a name needs. Where text is quoted or printed for a terminal instead
 * (./printable, errors' quoted()), the same set is shown as visible `\uXXXX`.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/**
 * Every invisible character text from outside is cleaned of before a person sees it, in one set for every place
 * that draws text (the consent page, the PDF report, the deck, the charts): the bidi controls above, the zero
 * width space U+200B, the word joiner and invisible operators U+2060–U+2064, and the byte order mark U+FEFF. They
 * draw nothing and hide or reorder what is there. The joiners U+200C/U+200D and variation selectors stay: they
 * shape scripts and emoji.
 */
export const INVISIBLE = new RegExp(`${BIDI_CONTROLS.source}|[\\u200b\\u2060-\\u2064\\ufeff]`, 'g');

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}
