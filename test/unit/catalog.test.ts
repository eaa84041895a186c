/** The catalog is the single source: README table, fixture JSON Schema and tool files must agree with it. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { describeTool, toolTableMarkdown } from '../../src/surfaces/catalog-json.js';
import { fixtureJsonSchema } from '../../src/vault-format/json-schema.js';
import { ROOT } from '../helpers.js';

describe('catalog', () => {
  it("README's tool table is the one generated from the catalog (npm run readme:tools)", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const between = readme.split('<!-- tools:start -->')[1]?.split('<!-- tools:end -->')[0]?.trim();
    expect(between).toBe(toolTableMarkdown(tools));
  });

  it("cuts each tool's description in the README table after a whole sentence, never inside '(e.g. …)'", () => {
    const cells = toolTableMarkdown(tools)
      .split('\n')
      .slice(2)
      .map((row) => row.split(' | ').at(-1)!.replace(/ \|$/, ''));
    expect(cells).toHaveLength(tools.length);
    for (const cell of cells) {
      expect(cell, cell).toMatch(/\.$/);
      expect(cell.split('(').length, cell).toBe(cell.split(')').length);
    }
    const listTasks = cells[tools.findIndex((t) => t.name === 'list_tasks')]!;
    expect(listTasks).toMatch(
      /^Tasks of the project board: id, board identifier \(e\.g\. `[A-Z]+-\d+`\), status, .*\.$/,
    );
  });

  it('has one file per tool, named after it, and unique names', () => {
    const files = ['knowledge', 'actions']
      .flatMap((dir) => readdirSync(join(ROOT, 'src', 'catalog', dir)))
      .filter((f) => f !== 'file-shape.ts')
      .map((f) => f.replace(/\.ts$/, '').replace(/-/g, '_'));
    expect(files.sort()).toEqual(tools.map((t) => t.name).sort());
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('publishes strict JSON Schemas with descriptions', () => {
    for (const t of tools) {
      const d = describeTool(t);
      expect(d.inputSchema.additionalProperties, t.name).toBe(false);
      expect(d.outputSchema.type, t.name).toBe('object');
    }
  });

  it('fixtures/vault-fixture.v1.schema.json is generated from the zod schema (npm run fixtures:schema)', () => {
    const committed = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'vault-fixture.v1.schema.json'), 'utf8'));
    expect(committed).toEqual(fixtureJsonSchema());
  });
});
