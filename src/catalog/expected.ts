/**
 * What a tool argument accepts, in words, read from the JSON Schema the catalog publishes for it. Zod reports a
 * value that fits no branch of a union as a bare "Invalid input"; an error message names what would fit instead
 * ("1 or 2", "an e-mail address or an array of e-mail addresses"), the same words for every union-typed field.
 */
import type { Tool } from './define.js';
import { jsonSchema } from './define.js';

type Schema = Record<string, unknown>;

const inputSchemas = new WeakMap<Tool, Schema>();

/** The JSON Schema of the argument at `path` (object keys and array indexes), when the tool's input has one there. */
export function schemaAt(tool: Tool, path: readonly PropertyKey[]): Schema | undefined {
  let schema = inputSchemas.get(tool);
  if (!schema) inputSchemas.set(tool, (schema = jsonSchema(tool.input, 'input')));
  let node: Schema | undefined = schema;
  for (const key of path) {
    if (!node) return undefined;
    node = child(node, key);
  }
  return node;
}

function child(node: Schema, key: PropertyKey): Schema | undefined {
  const options = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (options) {
    for (const option of options) {
      const found = child(option, key);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof key === 'number') return node.items as Schema | undefined;
  const properties = node.properties as Record<string, Schema> | undefined;
  if (properties?.[String(key)]) return properties[String(key)];
  return typeof node.additionalProperties === 'object' ? (node.additionalProperties as Schema) : undefined;
}

const FORMATS: Record<string, string> = {
  email: 'an e-mail address',
  'date-time': 'an ISO 8601 datetime (e.g. 2026-11-01T09:00:00Z)',
  date: 'an ISO 8601 date (YYYY-MM-DD)',
  uri: 'a URL',
};

const list = (parts: string[]) =>
  parts.length <= 2 ? parts.join(' or ') : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;

/** What a JSON Schema accepts, as a phrase that follows "expected": `1 or 2`, `a non-empty string or a positive integer`. */
export function expectedOf(schema: Schema): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  // The published schema writes a union of single values as one enum (portable-schema.ts): "1 or 2".
  if (Array.isArray(schema.enum))
    return schema.enum.length <= 2
      ? list(schema.enum.map((v) => JSON.stringify(v)))
      : `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (options) return list([...new Set(options.map(expectedOf))]);
  if (Array.isArray(schema.type)) return list(schema.type.map((type) => expectedOf({ ...schema, type })));
  switch (schema.type) {
    case 'string':
      return (
        FORMATS[schema.format as string] ?? ((schema.minLength as number) >= 1 ? 'a non-empty string' : 'a string')
      );
    case 'integer':
    case 'number':
      return numberOf(schema);
    case 'boolean':
      return 'a boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayOf(schema.items as Schema | undefined);
    case 'object':
      return 'an object';
    default:
      return 'a value of another type';
  }
}

function numberOf(schema: Schema): string {
  const noun = schema.type === 'integer' ? 'integer' : 'number';
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  const positive = schema.exclusiveMinimum === 0 || (noun === 'integer' && min === 1);
  const bounded = max !== undefined && max < Number.MAX_SAFE_INTEGER;
  const article = noun === 'integer' ? 'an' : 'a';
  if (min !== undefined && bounded) return `${article} ${noun} from ${min} to ${max}`;
  if (positive) return `a positive ${noun}`;
  return `${article} ${noun}`;
}

/** "an array of e-mail addresses" when the item is one noun phrase, "an array of items each 1 or 2" otherwise. */
function arrayOf(items: Schema | undefined): string {
  if (!items) return 'an array';
  const item = expectedOf(items);
  const single = /^an? ([\w -]+)$/.exec(item);
  if (!single) return `an array of items each ${item}`;
  const phrase = single[1]!;
  return `an array of ${/(s|x|ch|sh)$/.test(phrase) ? `${phrase}es` : `${phrase}s`}`;
}
