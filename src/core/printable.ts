import { BIDI_CONTROLS } from './bidi.js';
import { formatCount } from './numbers.js';

/**
 * Text from outside (a sync remote's error message, an OAuth client's name, say) made safe to print, or to store
 * for printing later: every control character (C0, DEL and C1: what opens a terminal escape sequence, a line
 * feed, a carriage return), the line and paragraph separators, and every bidirectional mark, override or
 * isolate (./bidi: which make a line read other than it is) becomes a visible `\uXXXX`, and the text is cut
 * after `maxChars` characters with its length.
 */
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]|${BIDI_CONTROLS.source}`, 'g');

export function printable(text: string, maxChars = 500): string {
  const shown = text.length > maxChars ? `${text.slice(0, maxChars)}… (${formatCount(text.length)} characters)` : text;
  return escapeUnprintable(shown);
}

/**
 * `text` with each unprintable character (above) as `\uXXXX`, nothing cut. Inside a JSON string literal the
 * escapes are JSON's own, so `JSON.parse` still gives back the original text.
 */
export function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
