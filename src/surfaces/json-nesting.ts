/**
 * One nesting limit for JSON from callers, on every surface: REST and /v1/mcp bodies (./http/body, ./http/routes)
 * and MCP stdio lines (./stdio-lines), each refused with the same sentence.
 *
 * How deep JSON in a request may nest (objects and arrays within each other): twice what the deepest argument may
 * (a chart spec, 100 levels, render/chart/validate). Deeper JSON parses, but every recursive walk after that (the
 * MCP SDK's JSON.stringify of the message, schema checks) risks the stack: it is refused before any of them.
 */
export const MAX_JSON_DEPTH = 200;

/**
 * Why a request's JSON (an HTTP body, a stdio line) is refused for its nesting, or undefined: a scan of the
 * bytes, no recursion. Only `[`, `{`, `]`, `}` outside strings count; a UTF-8 continuation byte is never one of them.
 */
export function nestingProblem(raw: Buffer): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash escapes the next byte (\" stays in the string)
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > MAX_JSON_DEPTH)
        return `The request's JSON nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; no request needs that many: send flatter JSON.`;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return undefined;
}
