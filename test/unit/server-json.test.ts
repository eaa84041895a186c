/**
 * server.json, what the official MCP Registry lists, against the registry's published JSON Schema (2025-12-11,
 * vendored in registry/ with its source URL and SHA-256), and against the package it describes.
 */
// The schema is draft-07: ajv's default class.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const SCHEMA_SHA256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';
const schemaBytes = readFileSync(join(ROOT, 'registry', 'server.schema.2025-12-11.json'));
const serverJson = JSON.parse(readFileSync(join(ROOT, 'server.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

// strict off: the schema carries OpenAPI's `example` and `discriminator` keywords, which draft-07 does not define.
const ajv = new Ajv.default({ strict: false, allErrors: true });
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(schemaBytes.toString('utf8')));
const errorsOf = (doc: unknown) =>
  validate(doc)
    ? []
    : (validate.errors ?? []).map(
        (e: { instancePath: string; message?: string }) => `${e.instancePath || '/'} ${e.message}`,
      );

it('vendors the registry schema byte for byte (its published SHA-256, its own $id)', () => {
  expect(createHash('sha256').update(schemaBytes).digest('hex')).toBe(SCHEMA_SHA256);
  expect(JSON.parse(schemaBytes.toString('utf8')).$id).toBe(SCHEMA_URL);
  expect(readFileSync(join(ROOT, 'registry', 'README.md'), 'utf8')).toContain(SCHEMA_SHA256);
});

it('server.json validates against it', () => {
  expect(serverJson.$schema).toBe(SCHEMA_URL);
  expect(errorsOf(serverJson)).toEqual([]);
});

describe('fails validation when a required field is removed', () => {
  const without = (path: string[]) => {
    const copy = structuredClone(serverJson);
    let at = copy;
    for (const key of path.slice(0, -1)) at = at[key];
    delete at[path.at(-1)!];
    return copy;
  };
  it.each([
    [['name']],
    [['description']],
    [['version']],
    [['packages', '0', 'identifier']],
    [['packages', '0', 'transport']],
    [['packages', '0', 'registryType']],
    [['packages', '0', 'environmentVariables', '0', 'name']],
  ])('without %j', (path) => {
    const errors = errorsOf(without(path));
    expect(errors.join('; ')).toContain(`must have required property '${path.at(-1)}'`);
  });
  it('and when a field breaks its rule (a description over 100 characters, a name without its namespace)', () => {
    expect(errorsOf({ ...serverJson, description: 'x'.repeat(101) })).toContain(
      '/description must NOT have more than 100 characters',
    );
    expect(errorsOf({ ...serverJson, name: 'vault-tools' }).join('; ')).toMatch(/^\/name must match pattern/);
  });
});

it('describes this package: mcpName, version, the npm package over stdio and `serve`', () => {
  expect(serverJson.name).toBe(pkg.mcpName);
  expect(serverJson.version).toBe(pkg.version);
  expect(serverJson.packages).toHaveLength(1);
  expect(serverJson.packages[0]).toMatchObject({
    registryType: 'npm',
    identifier: pkg.name,
    version: pkg.version,
    transport: { type: 'stdio' },
  });
  expect(serverJson.packages[0].packageArguments).toEqual([
    expect.objectContaining({ type: 'positional', value: 'serve' }),
  ]);
});

it('names only environment variables vault-tools reads, and marks the keys secret', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) =>
      statSync(join(dir, f)).isDirectory()
        ? sources(join(dir, f))
        : f.endsWith('.ts')
          ? [readFileSync(join(dir, f), 'utf8')]
          : [],
    );
  const code = sources(join(ROOT, 'src')).join('\n');
  for (const v of serverJson.packages[0].environmentVariables as { name: string; isSecret?: boolean }[]) {
    expect(code, v.name).toContain(v.name);
    expect(v.isSecret === true, v.name).toBe(v.name.endsWith('_KEY'));
  }
});
