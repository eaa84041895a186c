/**
 * Text from outside (a sync remote's error message, say) made safe to print, or to store for printing later:
 * every control character (C0, DEL and C1: what opens a terminal escape sequence, a line feed, a carriage
 * return) and every bidirectional mark or override (which make a line read other than it is) becomes a
 * visible `\uXXXX`, and the text is cut after `maxChars` characters with its length.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string, maxChars = 500): string {
  const shown = text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length.toLocaleString('en-US')} characters)` : text;
  return shown.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
