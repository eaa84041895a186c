/**
 * A request's params checked by our own schema rather than the SDK's: the SDK reports a spec method's malformed
 * params as -32603 Internal error carrying zod's JSON dump; registered with a schema, a failure is -32602
 * Invalid params, and this schema's messages are one short clause per wrong field (`argument.value`: expected
 * string, got number).
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/server';
import type { z } from 'zod';

export function checkedParams<T extends z.ZodType>(schema: T): StandardSchemaV1<unknown, z.output<T>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'vault-tools',
      validate: (value) => {
        const parsed = schema.safeParse(value);
        if (parsed.success) return { value: parsed.data };
        return { issues: parsed.error.issues.slice(0, 3).map((issue) => ({ message: describe(issue, value) })) };
      },
    },
  };
}

function describe(issue: z.core.$ZodIssue, params: unknown): string {
  const path = issue.path.map(String).join('.');
  const got = issue.path.reduce<unknown>(
    (v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    params,
  );
  const message =
    issue.code === 'invalid_type'
      ? `expected ${issue.expected}, ${got === undefined ? 'missing' : `got ${got === null ? 'null' : Array.isArray(got) ? 'an array' : typeof got}`}`
      : issue.message.replace(/^Invalid input: /, '');
  return `${path ? `\`${path}\`` : 'params'}: ${message}`;
}
