/** Outside text made safe to show (issue 36): bidi controls, quoted values, and JSON nesting counted without recursion. */
import { describe, expect, it } from 'vitest';
import { BIDI_CONTROLS, stripBidiControls } from '../../src/core/bidi.js';
import { quoted } from '../../src/core/errors.js';
import { printable } from '../../src/core/printable.js';
import { MAX_JSON_DEPTH, nestingProblem } from '../../src/surfaces/json-nesting.js';

const EVERY_BIDI = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';

describe('bidi controls', () => {
  it('stripBidiControls drops each of the twelve and nothing else (Hebrew and Arabic letters stay)', () => {
    expect(stripBidiControls(`a${EVERY_BIDI}b שלום مرحبا`)).toBe('ab שלום مرحبا');
    expect(EVERY_BIDI.replace(BIDI_CONTROLS, '')).toBe('');
  });

  it('printable shows each as \\uXXXX, as it shows control characters', () => {
    expect(printable('exe.\u202etxt\r\n')).toBe('exe.\\u202etxt\\u000d\\u000a');
  });

  it('quoted() escapes bidi controls and C1 controls, and stays JSON for the original', () => {
    const value = 'x\u202egnp.exe\u2066\u009b31m';
    expect(quoted(value)).toBe('"x\\u202egnp.exe\\u2066\\u009b31m"');
    expect(JSON.parse(quoted(value))).toBe(value);
    expect(quoted(`${'\u202e'.repeat(100)}`)).toMatch(/^"(\\u202e){60}…" of 100 characters$/);
  });
});

describe('nestingProblem', () => {
  const nested = (n: number) => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`);
  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(nestingProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(nestingProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/more than 200 levels deep/);
    expect(nestingProblem(Buffer.from(`{"a":${'{"b":'.repeat(300)}1${'}'.repeat(300)}}`))).toBeDefined();
  });
  it('counts no bracket inside a string, escaped quotes included', () => {
    expect(nestingProblem(Buffer.from(JSON.stringify({ s: '[{\\"['.repeat(5000) })))).toBeUndefined();
    expect(nestingProblem(Buffer.from(JSON.stringify(['é['.repeat(500)])))).toBeUndefined();
  });
});
