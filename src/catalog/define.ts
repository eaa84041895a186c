/**
 * How a tool is declared. A tool file exports `defineTool({...})`: its name, title, description (the text
 * agents read), zod input and output schemas, access, MCP annotations and `run`. Nothing else declares a
 * tool; MCP, REST, OpenAPI, the CLI and the README table all read these objects.
 */
import { z } from 'zod';
import type { Principal } from '../core/principal.js';
import type { Db } from '../store/db.js';
import type { Vault } from '../store/vaults.js';
import type { Links } from '../core/links.js';
import type { EmbedderLike } from '../search/embed-chunks.js';
import { portableSchema } from './portable-schema.js';

export type Access = 'member' | 'manager';

export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolContext {
  db: Db;
  /** The resolved vault (vault-scoped tools only). */
  vault: Vault;
  principal: Principal;
  now: Date;
  /** Every vault this principal may reach. */
  reachableVaults(): Vault[];
  links: Links;
  /** Where artifacts and mail files live. */
  dataDir: string;
  /** Embeds search queries; absent when the service runs without one (words only). */
  embedder?: EmbedderLike;
  /**
   * Runs a write tool's store changes in one transaction together with its outbox entry, so a write is
   * either whole and queued for upstream, or absent. `answer` builds the call's whole answer from what `write`
   * returned and the outbox seq, inside that transaction: the outbox keeps it (what a replay returns and what a
   * push maps ids from), so the answer is committed with the write. The tool returns it as it is.
   */
  commit<T, A>(write: () => T, answer: (written: T, outboxSeq: number) => A): A;
  /**
   * Fires when the caller cancels (MCP notifications/cancelled, an HTTP client hanging up). Long tools check it
   * between pages of work and then throw `cancelled` (service/errors.ts) before storing anything.
   */
  signal?: AbortSignal;
  /** Reports how far a long tool is (MCP notifications/progress when the client asked); `done` must increase. */
  progress?(done: number, total?: number, message?: string): void;
  /** Declares a file the call stored (storeArtifact does), so surfaces can show it with the answer. */
  declareArtifact(artifact: ArtifactRef): void;
}

/**
 * A file a call stored, as its answer declares it beside the data: MCP shows it as a `resource_link` to
 * its `vault-tools://` URI, and as an `image` block when it carries a picture. REST answers are the data alone.
 */
export interface ArtifactRef {
  vaultId: string;
  artifactId: string;
  fileName: string;
  title: string;
  mimeType: string;
  sizeBytes: number;
  /** A picture to show inline: the file itself, or a smaller rendition of it. */
  image?: { mimeType: string; data: Buffer };
}

/** Kinds of records a write creates with an id of its own, which upstream replaces with its id when the write is pushed. */
/**
 * The interactive views (MCP Apps) a tool's result can be shown in, where the host renders them; each is built
 * from views/<name>.ts. A tool names its view with `view`; hosts without the extension show the result as ever.
 */
export const TOOL_VIEWS = ['chart', 'findings', 'graph', 'conflicts', 'transcript', 'quotes'] as const;
export type ToolView = (typeof TOOL_VIEWS)[number];

export type RecordKind = 'task' | 'task-identifier' | 'event' | 'email' | 'artifact';

/** What sync needs to know about a write (see src/sync/push.ts). */
export interface SyncHints {
  /** The record the write creates: its kind, and the field of the answer holding its id. */
  creates?: { kind: RecordKind; field: string };
  /** Argument fields (a string or an array of strings) that name records, possibly ones created here. */
  references?: Record<string, RecordKind>;
  /**
   * The hosted catalog has no such tool (export_deck, check_quotes): its writes stay on this machine, with no outbox
   * entry for sync to push, and so no Idempotency-Key (that record is the outbox entry; a repeat writes again).
   */
  localOnly?: true;
  /**
   * The hosted catalog has the tool, but a run here makes a file for the person at this machine from data
   * upstream already holds (export_report): no outbox entry, so it never waits to be pushed nor blocks an import,
   * and a pull keeps the file. Without an entry there is no record to answer a repeat from: no Idempotency-Key.
   */
  staysLocal?: true;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  access: Access;
  /** Vault-scoped tools take the optional `vault` field and run inside one resolved vault. */
  vaultScoped: boolean;
  annotations: Annotations;
  /** The full wire input, `vault` included where it applies; unknown fields are refused. */
  input: z.ZodObject;
  output: z.ZodObject;
  sync: SyncHints;
  /** The interactive view that shows this tool's result, if any (MCP Apps). */
  view?: ToolView;
  /**
   * The work a call asks for, in calls of the per-key rate limit (docs/security.md): 1 when absent. A tool whose
   * cost grows with its arguments (search_transcripts: one per phrasing embedded) says so, so a key cannot buy
   * several calls' work for the price of one.
   */
  cost?(args: Record<string, unknown>): number;
  run(args: any, ctx: ToolContext): unknown;
}

/**
 * Writes recorded in the outbox take an Idempotency-Key (REST, OpenAPI): that entry is the record a repeat is
 * answered from. Reads do not, nor writes with no entry (export_deck, export_report): a repeat writes its file again.
 */
export const takesIdempotencyKey = (tool: Pick<Tool, 'annotations' | 'sync'>): boolean =>
  !tool.annotations.readOnlyHint && !tool.sync.localOnly && !tool.sync.staysLocal;

export const READ_ONLY: Annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const vaultField = z
  .string()
  .min(1)
  .describe(
    'Exact vault id or exact vault name from list_vaults. Required when the key reaches more than one vault; never guess it.',
  );

export function defineTool<Shape extends z.ZodRawShape, Out extends z.ZodObject>(def: {
  name: string;
  title: string;
  description: string;
  access?: Access;
  vaultScoped?: boolean;
  annotations?: Partial<Annotations>;
  sync?: SyncHints;
  view?: ToolView;
  input: Shape;
  output: Out;
  cost?(args: z.output<z.ZodObject<Shape>>): number;
  run(args: z.output<z.ZodObject<Shape>>, ctx: ToolContext): z.input<Out> | Promise<z.input<Out>>;
}): Tool {
  const vaultScoped = def.vaultScoped ?? true;
  const shape = vaultScoped ? { ...def.input, vault: vaultField.optional() } : def.input;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    access: def.access ?? 'member',
    vaultScoped,
    annotations: { ...READ_ONLY, ...def.annotations },
    input: z.strictObject(shape),
    output: def.output,
    sync: def.sync ?? {},
    ...(def.view ? { view: def.view } : {}),
    ...(def.cost ? { cost: def.cost as Tool['cost'] } : {}),
    run: def.run as Tool['run'],
  };
}

/**
 * JSON Schema of a tool's input or output, as MCP tools/list, GET /v1/tools and OpenAPI publish it: in the
 * portable subset every client accepts (see portable-schema.ts).
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return portableSchema(rest) as Record<string, unknown>;
}
