/**
 * Each tool's published face, one committed file per tool under test/snapshots/tools/: name, title,
 * description, access, annotations, input and output JSON Schema. A change to any of them fails here until it
 * is made on purpose with `npm run snapshots:update` (and the diff is then part of the commit, for review).
 * Clients cache these schemas and agents read the descriptions: drift is a change of the product's contract.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tools } from '../../src/catalog/index.js';
import { jsonSchema } from '../../src/catalog/define.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'snapshots', 'tools');

const face = (tool: (typeof tools)[number]) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  access: tool.access,
  vaultScoped: tool.vaultScoped,
  annotations: tool.annotations,
  inputSchema: jsonSchema(tool.input, 'input'),
  outputSchema: jsonSchema(tool.output, 'output'),
});

describe('tool schemas match their committed snapshots (npm run snapshots:update to change them on purpose)', () => {
  for (const tool of tools) {
    it(tool.name, async () => {
      await expect(`${JSON.stringify(face(tool), null, 2)}\n`).toMatchFileSnapshot(join(DIR, `${tool.name}.json`));
    });
  }

  it('has no snapshot of a tool the catalog no longer has', () => {
    const names = new Set(tools.map((t) => `${t.name}.json`));
    expect(readdirSync(DIR).filter((f) => !names.has(f))).toEqual([]);
  });
});
