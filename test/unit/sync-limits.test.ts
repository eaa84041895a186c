/** The pieces that hold a sync remote to its limits: page walks, settings from the environment, printable text. */
import { afterEach, describe, expect, it } from 'vitest';
import { printable } from '../../src/core/printable.js';
import { LimitError, PageWalk, syncLimits } from '../../src/sync/limits.js';

describe('sync limits', () => {
  afterEach(() => {
    delete process.env.VAULT_TOOLS_SYNC_MAX_PAGES;
  });

  it('a walk follows at most its pages, and never a cursor twice', () => {
    const walk = new PageWalk('list_findings', 3);
    walk.follow('b');
    walk.follow('c'); // page 3
    expect(() => walk.follow('d')).toThrow(
      new LimitError('list_findings: more than 3 pages (VAULT_TOOLS_SYNC_MAX_PAGES), so the walk stopped there'),
    );
    const circle = new PageWalk('changes_since', 100);
    circle.follow('x'.repeat(100_000));
    circle.follow('y');
    expect(() => circle.follow('x'.repeat(100_000))).toThrow(
      'changes_since: page 3 sends back a cursor already followed, so the walk would never end',
    );
  });

  it('limits come from the environment; a value that is not a whole number above 0 is refused by name', () => {
    expect(syncLimits().maxPages).toBe(2_000);
    process.env.VAULT_TOOLS_SYNC_MAX_PAGES = '7';
    expect(syncLimits().maxPages).toBe(7);
    expect(syncLimits({ maxPages: 2 }).maxPages).toBe(2);
    for (const bad of ['0', '-1', '1.5', 'lots']) {
      process.env.VAULT_TOOLS_SYNC_MAX_PAGES = bad;
      expect(() => syncLimits()).toThrow(
        `VAULT_TOOLS_SYNC_MAX_PAGES ${JSON.stringify(bad)}: expected a whole number above 0`,
      );
    }
  });

  it('printable text shows control characters and bidi overrides as escapes, and is cut', () => {
    expect(printable('ok\u001b[2J\r\nfake\u009b31m\u202eevil\tend')).toBe(
      'ok\\u001b[2J\\u000d\\u000afake\\u009b31m\\u202eevil\\u0009end',
    );
    expect(printable('plain – ünïcode ✓')).toBe('plain – ünïcode ✓');
    expect(printable('a'.repeat(1000), 10)).toBe('aaaaaaaaaa… (1,000 characters)');
  });
});
