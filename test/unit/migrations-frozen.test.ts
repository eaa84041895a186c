/**
 * Migrations are frozen code (issue 53): what a migration computes is copied beside it, never imported from code
 * that keeps changing (search tuning changes what the embedder reads), so a released migration does the same on
 * every store. And a change to what the embedder reads is made on purpose: the live function must match the
 * newest frozen copy, so changing it fails here until a migration re-keys stores with a copy of the new one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../src/store/embedding-text.js';
import { contentHashV8 } from '../../src/store/migration-8-content-hash.js';
import { ROOT } from '../helpers.js';
import { harness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(() => {
  h = harness({ vaults: ['northwind', 'meridian'] });
});
afterAll(() => h.close());

describe('frozen migrations', () => {
  it('migrations.ts imports only its own frozen copies (and types)', () => {
    const source = readFileSync(join(ROOT, 'src/store/migrations.ts'), 'utf8');
    const imports = [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)';/gm)].map((m) => ({
      typeOnly: Boolean(m[1]),
      from: m[2]!,
    }));
    expect(imports.length).toBeGreaterThan(0);
    const live = imports.filter((i) => !i.typeOnly && !/^\.\/migration-\d+-[\w-]+\.js$/.test(i.from));
    expect(live).toEqual([]);
  });

  it('the live content hash is still the one of the newest re-keying migration (8): change both on purpose', () => {
    const chunks = h.db.prepare('SELECT text FROM transcript_chunks').pluck().all() as string[];
    const marked = [
      'A: um, the the dock {disfmarker} is [inaudible] late (laughs)',
      "B: we 're fine , uh-huh.",
      'C: which one which one',
      '{vocalsound}',
    ];
    const texts = [...chunks, ...marked];
    expect(chunks.length).toBeGreaterThan(10);
    const differ = texts.filter((t) => contentHash(t) !== contentHashV8(t));
    expect(differ, 'embeddingText changed: append a migration that re-keys chunks with a frozen copy of it').toEqual(
      [],
    );
  });
});
