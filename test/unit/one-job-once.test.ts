/**
 * Jobs done once, in the layer that owns them (issue 53), checked by what they do: every place that draws text from
 * outside strips the same invisible characters (U+061C included: it survived in the PDF, the deck and charts), a
 * count reads "12,345" in every sentence, and Retry-After is read one way for sync and the embedder.
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/auth/oauth/pages.js';
import { INVISIBLE, stripInvisible } from '../../src/core/bidi.js';
import { quoted } from '../../src/core/errors.js';
import { formatCount } from '../../src/core/numbers.js';
import { printable } from '../../src/core/printable.js';
import { backoffMs, retryAfterMs } from '../../src/core/retry.js';
import { mentionsChartSpec } from '../../src/render/export/mentions-chart.js';
import { cleanText } from '../../src/render/export/pdf-text.js';

// Written out here, from Unicode's own lists (bidi controls; zero width and invisible format characters), not taken from the code.
const HIDDEN = [
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200b',
  '\u2060',
  '\u2061',
  '\u2062',
  '\u2063',
  '\u2064',
  '\ufeff',
];
const KEPT = ['\u200c', '\u200d', '\ufe0f']; // joiners and a variation selector shape scripts and emoji

describe('invisible characters: one set for every place that draws text', () => {
  const name = (c: string) => `Acme${c} Ltd`;
  it.each(HIDDEN.map((c) => [`U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, c]))(
    '%s is removed by the report, the deck and the charts, the consent page',
    (_, c) => {
      expect(cleanText(name(c))).toBe('Acme Ltd'); // the PDF report and the deck (slideText calls it)
      expect(
        (mentionsChartSpec([{ name: name(c), mentions: 3 }]).data as { values: { name: string }[] }).values[0]!.name,
      ).toBe('Acme Ltd');
      expect(escapeHtml(name(c))).toBe('Acme Ltd');
      expect(stripInvisible(name(c))).toBe('Acme Ltd');
    },
  );

  it('keeps the joiners and variation selectors', () => {
    expect(KEPT.length).toBeGreaterThan(0);
    for (const c of KEPT) expect(cleanText(name(c))).toBe(name(c));
    expect(`x${KEPT.join('')}y`.replace(INVISIBLE, '')).toBe(`x${KEPT.join('')}y`);
  });
});

describe('counts', () => {
  it('are grouped by thousands the same way in every sentence', () => {
    expect(formatCount(12_345)).toBe('12,345');
    expect(formatCount(-1_234_567.891)).toBe('-1,234,567.89');
    expect(formatCount(999)).toBe('999');
    expect(printable('x'.repeat(1_234), 10)).toContain('(1,234 characters)');
    expect(quoted('y'.repeat(12_000))).toContain('of 12,000 characters');
  });
});

describe('retries', () => {
  it('read Retry-After as seconds or an HTTP date, and an exact ms header first', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(retryAfterMs('3', null, now)).toBe(3000);
    expect(retryAfterMs(['2'], undefined, now)).toBe(2000);
    expect(retryAfterMs('Sun, 29 Nov 2026 12:00:05 GMT', null, now)).toBe(5000);
    expect(retryAfterMs('Sun, 29 Nov 2026 11:59:00 GMT', null, now)).toBe(0);
    expect(retryAfterMs('soon', null, now)).toBeUndefined();
    expect(retryAfterMs(undefined, '750', now)).toBe(750);
    expect(retryAfterMs('3', '750', now)).toBe(750);
  });

  it('back off exponentially, between half and all of the step, capped', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const step = Math.min(30_000, 250 * 2 ** (attempt - 1));
      const wait = backoffMs(attempt, 250, 30_000);
      expect(wait).toBeGreaterThanOrEqual(step / 2);
      expect(wait).toBeLessThanOrEqual(step);
    }
  });
});
