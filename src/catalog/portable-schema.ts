/**
 * JSON Schema in the subset every MCP client's validator accepts. zod writes draft 2020-12 freely; several
 * clients (function-calling back ends in particular) reject `type` arrays, `const`, `propertyNames` and
 * untyped `anyOf` branches. The rewrite keeps the meaning:
 * - `type: ["string", "null"]` → `anyOf: [{type: "string", …}, {type: "null"}]` (type-specific keywords go
 *   with their type; `description`, `default` and the like stay on the outer schema);
 * - `const: v` → `type` + `enum: [v]`; an `anyOf` of single-value branches of one type → one `enum`;
 * - `propertyNames: {type: "string"}` is dropped (JSON object keys are always strings);
 * - the `pattern` zod writes beside `format: "date-time"` or `"date"` (200-600 characters of regex that every
 *   client's model reads) is dropped: the format says the same, and the tool's zod schema still checks it.
 */
type Schema = Record<string, unknown>;

/** Keywords that describe the value as a whole rather than one of its types. */
const SHARED = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

/** Standard formats whose meaning every client knows; a regex beside them says nothing more. */
const FORMATS_THAT_SAY_IT = new Set(['date-time', 'date']);

export function portableSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portableSchema);
  if (!schema || typeof schema !== 'object') return schema;
  let s: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    s[key] =
      key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : portableSchema(value);
  }
  if (isStringKeys(s.propertyNames)) delete s.propertyNames;
  if (typeof s.pattern === 'string' && FORMATS_THAT_SAY_IT.has(s.format as string)) delete s.pattern;
  if ('const' in s) s = fromConst(s);
  if (Array.isArray(s.type)) s = splitTypes(s);
  if (Array.isArray(s.anyOf)) s = mergeEnumBranches(s);
  return s;
}

function isStringKeys(v: unknown): boolean {
  return !!v && typeof v === 'object' && Object.keys(v).length === 1 && (v as Schema).type === 'string';
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function fromConst(s: Schema): Schema {
  const { const: value, ...rest } = s;
  return { type: rest.type ?? jsonType(value), ...rest, enum: [value] };
}

function splitTypes(s: Schema): Schema {
  const { type, ...rest } = s;
  const types = type as string[];
  if (types.length === 1) return { type: types[0], ...rest };
  const shared: Schema = {};
  const specific: Schema = {};
  for (const [k, v] of Object.entries(rest)) (SHARED.has(k) ? shared : specific)[k] = v;
  const branches = types.map((t) => {
    const branch: Schema = { type: t };
    for (const [k, v] of Object.entries(specific))
      if (appliesTo(k, t)) branch[k] = k === 'enum' ? (v as unknown[]).filter((e) => typeOk(e, t)) : v;
    return branch;
  });
  return { ...shared, anyOf: branches };
}

/** Which keywords constrain which JSON type (keywords of another type are meaningless there). */
function appliesTo(keyword: string, type: string): boolean {
  if (keyword === 'enum') return true;
  if (['minLength', 'maxLength', 'pattern', 'format'].includes(keyword)) return type === 'string';
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].includes(keyword))
    return type === 'number' || type === 'integer';
  if (['items', 'minItems', 'maxItems', 'uniqueItems', 'prefixItems'].includes(keyword)) return type === 'array';
  if (['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties'].includes(keyword))
    return type === 'object';
  return type !== 'null';
}

function typeOk(value: unknown, type: string): boolean {
  const t = jsonType(value);
  return t === type || (t === 'integer' && type === 'number');
}

function mergeEnumBranches(s: Schema): Schema {
  const branches = s.anyOf as Schema[];
  const simple = branches.every(
    (b) =>
      Array.isArray(b.enum) && typeof b.type === 'string' && Object.keys(b).every((k) => k === 'enum' || k === 'type'),
  );
  const types = new Set(branches.map((b) => b.type));
  if (!simple || types.size !== 1) return s;
  const { anyOf: _merged, ...rest } = s;
  return { type: [...types][0], ...rest, enum: branches.flatMap((b) => b.enum as unknown[]) };
}
