/**
 * What every view shares: the connection to the host (the ext-apps `App`), the host's theme, and building the
 * page from the vault's data as TEXT only (never innerHTML), so a name like `<img onerror=…>` stays a name.
 */
import './jitless.js'; // before the SDK (and zod) load
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { BIDI_CONTROLS } from '../src/core/bidi.js'; // the set the server's printable() and quoted() escape

export type Json = Record<string, unknown>;
export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

type Child = Node | string | number | null | undefined | false;

/**
 * Text from the vault as it may be shown: each bidi control becomes a visible `\u202e` (as the server's
 * printable() writes it), so a name with U+202E reads as typed, not reversed.
 */
export const plain = (text: string): string =>
  text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** An element with attributes, event handlers (`onclick`) and children, all children as text nodes or elements. */
export function h(tag: string, props: Record<string, unknown> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      node.addEventListener(key.slice(2), value as EventListener);
    else node.setAttribute(key, plain(String(value)));
  }
  for (const child of children)
    if (child !== null && child !== undefined && child !== false)
      node.append(typeof child === 'object' ? child : plain(String(child)));
  return node;
}

/** Replaces the page's content. */
export function show(...children: Child[]): void {
  const root = document.getElementById('app')!;
  root.replaceChildren(
    ...children
      .filter((c): c is Node | string => c !== null && c !== undefined && c !== false)
      .map((c) => (typeof c === 'object' ? c : plain(String(c)))),
  );
}

/** A tool result's data: its structuredContent, else its JSON text; an error result throws its message. */
export function dataOf(result: ToolResult): Json {
  const text = result.content?.find((c) => c.type === 'text')?.text;
  if (result.isError) {
    let message = text ?? 'the tool failed';
    try {
      message = (JSON.parse(message) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      /* not JSON: the text itself */
    }
    throw new Error(message);
  }
  if (result.structuredContent) return result.structuredContent;
  return text ? (JSON.parse(text) as Json) : {};
}

export interface ViewHooks {
  /** The tool's arguments, before its result. */
  input?(args: Json): void;
  /** The tool's result (the first one, and any the host sends later). */
  result(data: Json): void;
  /** The theme changed (charts redraw with it). */
  theme?(): void;
}

/** Connects to the host and calls `hooks` as the tool's input and result arrive. */
export function startView(name: string, hooks: ViewHooks): App {
  const app = new App({ name: `vault-tools ${name}`, version: '1' }, {}, { autoResize: true });
  const applyContext = (ctx: McpUiHostContext | undefined) => {
    if (ctx?.theme) applyDocumentTheme(ctx.theme);
    if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  };
  app.ontoolinput = (params) => hooks.input?.((params.arguments ?? {}) as Json);
  app.ontoolresult = (params) => {
    try {
      hooks.result(dataOf(params as ToolResult));
    } catch (err) {
      show(h('p', { class: 'error' }, (err as Error).message));
    }
  };
  app.onhostcontextchanged = (ctx) => {
    applyContext(ctx as McpUiHostContext);
    hooks.theme?.();
  };
  void app.connect().then(() => applyContext(app.getHostContext()));
  return app;
}

/** Calls a server tool through the host (so the host's approval and the key's rights apply) and returns its data. */
export async function callTool(app: App, name: string, args: Json): Promise<Json> {
  return dataOf((await app.callServerTool({ name, arguments: args })) as ToolResult);
}

export const isDark = (): boolean => document.documentElement.dataset.theme === 'dark';

/** A date-time as a person reads it (UTC, as the vault stores it): 22 Oct 2026, 09:35, or the day alone. */
export function when(iso: unknown, dayOnly = false): string {
  if (typeof iso !== 'string') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
    ...(dayOnly ? {} : { hour: '2-digit', minute: '2-digit' }),
  });
}

/** A relation as words: depends_on → depends on. */
export const words = (relation: string): string => relation.replaceAll('_', ' ');
