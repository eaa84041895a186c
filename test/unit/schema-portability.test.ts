/**
 * Every published tool schema is in the subset the strictest common MCP clients accept: no `type` arrays, no
 * `const`, no `propertyNames`/`patternProperties`, no `$ref`, every `anyOf` branch typed, every object typed
 * with its properties, every array with its items; and it compiles under Ajv's strict mode (unknown keywords,
 * unions of types and ignored keywords are errors there).
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { tools } from '../../src/catalog/index.js';
import { describeTool } from '../../src/surfaces/catalog-json.js';
import { portableSchema } from '../../src/catalog/portable-schema.js';

type Schema = Record<string, unknown>;

/** Every place in a schema that a strict client would reject, as `path: reason`. */
function portabilityProblems(schema: unknown, path = ''): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => portabilityProblems(s, `${path}/${i}`));
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  const out: string[] = [];
  if (Array.isArray(s.type)) out.push(`${path}: type is an array`);
  for (const k of ['const', 'propertyNames', 'patternProperties', '$ref', '$defs', 'oneOf', 'not'])
    if (k in s) out.push(`${path}: uses ${k}`);
  if (Array.isArray(s.anyOf))
    (s.anyOf as Schema[]).forEach(
      (b, i) => typeof b.type !== 'string' && out.push(`${path}/anyOf/${i}: branch without a type`),
    );
  if ('properties' in s && s.type !== 'object') out.push(`${path}: properties without type object`);
  if (s.type === 'array' && !('items' in s)) out.push(`${path}: array without items`);
  for (const [k, v] of Object.entries(s))
    if (k !== 'enum' && k !== 'default' && k !== 'examples') out.push(...portabilityProblems(v, `${path}/${k}`));
  return out;
}

describe('tool schemas are portable', () => {
  const ajv = new Ajv2020.default({ strict: true, strictTypes: true, allErrors: true });
  addFormats.default(ajv);

  for (const tool of tools) {
    it(tool.name, () => {
      const d = describeTool(tool);
      expect(portabilityProblems(d.inputSchema, 'input')).toEqual([]);
      expect(portabilityProblems(d.outputSchema, 'output')).toEqual([]);
      expect(() => ajv.compile(d.inputSchema)).not.toThrow();
      expect(() => ajv.compile(d.outputSchema)).not.toThrow();
    });
  }

  it("publishes a date's format, not the 200-600 character regex zod writes beside it; the tool still checks it", async () => {
    const search = describeTool(tools.find((t) => t.name === 'search_transcripts')!);
    const after = JSON.stringify((search.inputSchema as { properties: Record<string, unknown> }).properties.after);
    expect(after).not.toContain('pattern');
    expect(after.length).toBeLessThan(300);
    expect(after).toContain('"format":"date-time"');
    for (const tool of tools)
      expect(JSON.stringify(describeTool(tool).inputSchema), tool.name).not.toMatch(
        /"format":"date(-time)?","pattern"/,
      );
    const strict = tools.find((t) => t.name === 'search_transcripts')!.input;
    expect(strict.safeParse({ query: 'dock', after: '2026-02-30' }).success).toBe(false);
    expect(strict.safeParse({ query: 'dock', after: '2026-11-01T09:00:00' }).success).toBe(false); // no offset
    expect(strict.safeParse({ query: 'dock', after: '2026-11-01' }).success).toBe(true);
  });

  it('rewrites without changing what is accepted', () => {
    const loose = new Ajv2020.default({ strict: false });
    const before = {
      type: 'object',
      properties: {
        a: { type: ['string', 'null'], minLength: 2, description: 'd' },
        b: { anyOf: [{ const: 1 }, { const: 2 }] },
        c: { const: 'x' },
        m: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: ['number', 'null'] } },
      },
    };
    const after = portableSchema(before) as Schema;
    expect(portabilityProblems(after)).toEqual([]);
    const values = [
      { a: 'ab' },
      { a: null },
      { a: 'x' },
      { a: 3 },
      { b: 1 },
      { b: 2 },
      { b: 3 },
      { c: 'x' },
      { c: 'y' },
      { m: { k: 1, j: null } },
      { m: { k: 'no' } },
    ];
    for (const v of values) expect(loose.validate(after, v), JSON.stringify(v)).toBe(loose.validate(before, v));
  });
});
