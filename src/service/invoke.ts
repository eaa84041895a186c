/**
 * The single path of every tool call, whatever the surface (MCP, REST, CLI `call`):
 * find the tool → validate the arguments → resolve the vault → check access → run → map errors.
 * It returns a result union instead of throwing, so no surface can forget to map an error.
 */
import type { z } from 'zod';
import type { Principal } from '../core/principal.js';
import { toolsByName } from '../catalog/index.js';
import { takesIdempotencyKey, type ArtifactRef, type Tool, type ToolContext } from '../catalog/define.js';
import { BUSY_TIMEOUT_MS, isStoreBusy, isStoreReplaced, writeTransaction, type Db } from '../store/db.js';
import { expectedOf, schemaAt } from '../catalog/expected.js';
import { findReachableVault, reachableVaults, type Vault } from '../store/vaults.js';
import { ERROR_CODES, quoted, ServiceError, type ErrorCode } from '../core/errors.js';
import { makeLinks, type Links } from '../core/links.js';
import { log } from '../log.js';
import { closest, didYouMean } from '../core/closest.js';
import { appendOutbox, findKeyedOutboxEntry, setOutboxResult } from '../store/outbox.js';
import { KeyedCallsRunning, storedAnswer, type KeyedCall } from './idempotency.js';
import type { EmbedderLike } from '../search/embed-chunks.js';
import { shareFairly } from '../search/embedder/fair-share.js';
import { isoUtc } from '../time.js';

export type InvokeResult =
  | {
      ok: true;
      data: Record<string, unknown>;
      /** Files the call stored, for surfaces that show them (MCP); absent on a replay. */
      artifacts?: ArtifactRef[];
      /** the answer of an earlier call with the same idempotency key */
      replayed?: boolean;
    }
  | {
      ok: false;
      status: number;
      code: ErrorCode;
      message: string /** seconds, for `rate_limited` */;
      retryAfter?: number;
    };

export interface ServiceOptions {
  /** Base URL of the REST listener when one runs; links point at it. */
  baseUrl?: string;
  /** Where artifacts and mail files are written (the data dir). */
  dataDir?: string;
  /** Embeds search queries (the vector half of search_transcripts); without it search uses words. */
  embedder?: EmbedderLike;
  /** Tools a surface offers (read-only mode, include/exclude lists); all by default. */
  tools?: readonly Tool[];
  now?: () => Date;
}

/** Per-call options a surface passes along: the caller's cancellation and progress reporting (both optional). */
export interface CallOptions {
  signal?: AbortSignal;
  progress?: (done: number, total?: number, message?: string) => void;
  /**
   * The caller's idempotency key (REST `Idempotency-Key`; sync sends each outbox entry's id). A write this caller
   * already made under this key is not run again: the first call's answer comes back instead (see idempotency.ts).
   */
  idempotencyKey?: string;
  /**
   * Charges the caller's rate limit for the work a call asks for beyond the request that carried it (a tool's
   * `cost` less one): the HTTP listener passes its per-key limiter; it throws `rate_limited` when the key's budget
   * cannot pay. Called once the arguments are valid, before the tool runs.
   */
  charge?: (units: number) => void;
}

/** Thrown inside a write's transaction when the caller's same idempotency key committed first (from another process). */
class AlreadyCommitted extends Error {}

/** An error thrown after the call's write committed (the outbox entry `outboxSeq` holds its answer). */
class AfterCommit extends Error {
  constructor(
    readonly outboxSeq: number,
    cause: unknown,
  ) {
    super(`failed after the write of outbox entry ${outboxSeq} committed`, { cause });
  }
}

export class Service {
  readonly links: Links;
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly now: () => Date;
  readonly dataDir: string;
  readonly embedder?: EmbedderLike;
  private readonly keyedCalls = new KeyedCallsRunning();

  constructor(
    readonly db: Db,
    options: ServiceOptions = {},
  ) {
    this.links = makeLinks(options.baseUrl);
    this.tools = options.tools ? new Map(options.tools.map((t) => [t.name, t])) : toolsByName;
    this.now = options.now ?? (() => new Date());
    this.dataDir = options.dataDir ?? process.cwd();
    // Every caller's query embeddings take turns (one key cannot keep the model from the others).
    this.embedder = options.embedder && shareFairly(options.embedder);
  }

  listTools(): Tool[] {
    return [...this.tools.values()];
  }

  /** The tool of that name, when this service offers it. */
  tool(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  /**
   * "No tool X. Did you mean Y?" and where all are listed (`listedBy`): the nearest among the tools this key is
   * offered (a member key is not told of manager-only tools, as tools/list does not show them).
   */
  noSuchTool(name: string, principal: Principal, listedBy: string): string {
    const offered = this.listTools()
      .filter((t) => t.access === 'member' || principal.role === 'manager')
      .map((t) => t.name);
    return `No tool ${quoted(name)}.${didYouMean(name, offered)} ${listedBy} lists them all.`;
  }

  /** A call by name, among the tools this service offers. */
  async invoke(name: string, rawArgs: unknown, principal: Principal, options: CallOptions = {}): Promise<InvokeResult> {
    const tool = this.tools.get(name);
    if (!tool)
      return {
        ok: false,
        status: 404,
        code: 'tool_not_found',
        message: this.noSuchTool(name, principal, 'tools/list (MCP) or GET /v1/tools'),
      };
    return this.call(tool, rawArgs, principal, options);
  }

  /** A call of a catalog tool whether or not this service offers it (GET /v1/vaults is list_vaults). */
  async call(tool: Tool, rawArgs: unknown, principal: Principal, options: CallOptions = {}): Promise<InvokeResult> {
    const name = tool.name;
    try {
      const args = validateArgs(tool, rawArgs ?? {});
      if (options.charge && tool.cost) options.charge(tool.cost(args) - 1);
      const vault = tool.vaultScoped ? resolveVault(this.db, principal, args.vault as string | undefined) : undefined;
      if (tool.access === 'manager' && principal.role !== 'manager') {
        throw new ServiceError(
          'forbidden',
          `\`${tool.name}\` needs a manager key; this is a member key. Create one with \`vault-tools keys create --manager\`.`,
        );
      }
      const keyed = keyedCallOf(tool, vault, args, principal, options.idempotencyKey);
      if (!keyed) return await this.run(tool, args, vault, principal, options);
      await this.keyedCalls.waitForSameKey(keyed);
      const earlier = storedAnswer(this.db, keyed);
      if (earlier) return { ok: true, data: earlier, replayed: true };
      return await this.keyedCalls.run(keyed, () => this.run(tool, args, vault, principal, options, keyed));
    } catch (err) {
      // This caller's same key committed in another process while this call ran: its write was rolled back, and
      // the call is answered as a repeat now is (the first answer, or idempotency_key_reused).
      if (err instanceof AlreadyCommitted) return this.call(tool, rawArgs, principal, options);
      if (err instanceof ServiceError)
        return {
          ok: false,
          status: err.status,
          code: err.code,
          message: err.message,
          ...(err.retryAfter ? { retryAfter: err.retryAfter } : {}),
        };
      if (isStoreReplaced(err)) {
        log.error(`tool ${name}: ${(err as Error).message}`);
        return {
          ok: false,
          status: ERROR_CODES.store_busy,
          code: 'store_busy',
          message:
            'The store was replaced by a restore after this server started; nothing was written. The server must be restarted to use the restored store.',
        };
      }
      if (err instanceof AfterCommit) {
        log.error(`tool ${name} failed after its write was committed (outbox entry ${err.outboxSeq})`, err.cause);
        return {
          ok: false,
          status: 500,
          code: 'internal_error',
          message: `The write was committed (outbox entry ${err.outboxSeq}) but its answer failed afterwards; do not send it again as a new call: list the records to see it, or repeat it with the same Idempotency-Key to get its answer.`,
        };
      }
      if (isStoreBusy(err)) {
        log.warn(`tool ${name}: the store stayed locked by another writer (${(err as Error).message})`);
        return {
          ok: false,
          status: ERROR_CODES.store_busy,
          code: 'store_busy',
          message: `The store is busy with another process's write (waited ${BUSY_TIMEOUT_MS / 1000} s for it); nothing was written. Retry in a moment.`,
        };
      }
      log.error(`tool ${name} failed`, err);
      return {
        ok: false,
        status: 500,
        code: 'internal_error',
        message: 'The tool failed unexpectedly; the error was logged on the server.',
      };
    }
  }

  private async run(
    tool: Tool,
    args: Record<string, unknown>,
    vault: Vault | undefined,
    principal: Principal,
    options: CallOptions,
    keyed?: KeyedCall,
  ): Promise<InvokeResult> {
    const ctx = new CallContext(this, tool, args, vault, principal, this.now(), options, keyed);
    let data: Record<string, unknown>;
    try {
      data = (await tool.run(args, ctx)) as Record<string, unknown>;
    } catch (err) {
      // Whatever fails once the write committed (its outbox entry holds the answer) must not be told as "nothing
      // was written": a caller who retries would write twice.
      if (ctx.outboxSeq !== undefined) throw new AfterCommit(ctx.outboxSeq, err);
      throw err;
    }
    return ctx.artifacts.length > 0 ? { ok: true, data, artifacts: ctx.artifacts } : { ok: true, data };
  }
}

/** A write sent with an idempotency key, as the key is bound to it; reads and unkeyed calls have none. */
function keyedCallOf(
  tool: Tool,
  vault: Vault | undefined,
  args: Record<string, unknown>,
  principal: Principal,
  key: string | undefined,
): KeyedCall | undefined {
  if (!key || !takesIdempotencyKey(tool)) return undefined;
  const { vault: _v, ...rest } = args;
  return { keyId: principal.keyId, key, tool: tool.name, vaultId: vault?.id ?? '', args: rest };
}

/**
 * What a tool's `run` gets for one call. A class rather than an object literal with a getter: built on every
 * call, and a literal's accessor is defined afresh each time (a measurable share of a cached read over REST).
 */
class CallContext implements ToolContext {
  readonly db: Db;
  readonly links: Links;
  readonly dataDir: string;
  readonly embedder?: EmbedderLike;
  readonly signal?: AbortSignal;
  readonly progress?: (done: number, total?: number, message?: string) => void;
  /** The outbox entry a write committed, once it has. */
  outboxSeq: number | undefined;
  readonly artifacts: ArtifactRef[] = [];

  constructor(
    service: Service,
    private readonly tool: Tool,
    private readonly args: Record<string, unknown>,
    private readonly resolvedVault: Vault | undefined,
    readonly principal: Principal,
    readonly now: Date,
    options: CallOptions,
    private readonly keyed: KeyedCall | undefined,
  ) {
    this.db = service.db;
    this.links = service.links;
    this.dataDir = service.dataDir;
    this.embedder = service.embedder;
    this.signal = options.signal;
    this.progress = options.progress;
  }

  get vault(): Vault {
    if (!this.resolvedVault) throw new Error(`${this.tool.name} is not vault-scoped but read ctx.vault`);
    return this.resolvedVault;
  }

  // Arrow properties: tools destructure them from the context (`{ db, reachableVaults }`).
  readonly reachableVaults = (): Vault[] => reachableVaults(this.db, this.principal);

  readonly declareArtifact = (artifact: ArtifactRef): void => {
    this.artifacts.push(artifact);
  };

  readonly commit = <T, A>(write: () => T, answer: (written: T, outboxSeq: number) => A): A => {
    const { db, tool, keyed } = this;
    const { vault: _v, ...rest } = this.args;
    const committed = writeTransaction(db, () => {
      const written = write();
      if (keyed && findKeyedOutboxEntry(db, keyed.keyId, keyed.key)) throw new AlreadyCommitted(); // rolls the write back
      const entry = appendOutbox(db, {
        vaultId: this.resolvedVault!.id,
        tool: tool.name,
        args: rest,
        result: written,
        principal: this.principal,
        at: isoUtc(this.now),
        idempotencyKey: keyed?.key,
      });
      // The whole answer (what a replay returns, and what a push maps ids from) is stored in the write's own
      // transaction: there is no moment when the write exists and its answer does not.
      const whole = answer(written, entry.seq);
      setOutboxResult(db, entry.seq, whole);
      return { whole, seq: entry.seq };
    });
    this.outboxSeq = committed.seq;
    return committed.whole;
  };
}

/** Zod's verdict, turned into one sentence that names each wrong field and what it expects. */
export function validateArgs(tool: Tool, raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ServiceError('invalid_arguments', `Arguments of \`${tool.name}\` must be a JSON object.`);
  }
  const parsed = tool.input.safeParse(raw);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const fields = Object.keys(tool.input.shape);
  const problems = parsed.error.issues.map((issue) =>
    describeIssue(tool, issue, raw as Record<string, unknown>, fields),
  );
  throw new ServiceError('invalid_arguments', `Invalid arguments for \`${tool.name}\`: ${problems.join('; ')}.`);
}

function describeIssue(tool: Tool, issue: z.core.$ZodIssue, raw: Record<string, unknown>, fields: string[]): string {
  if (issue.code === 'unrecognized_keys') {
    const accepted = fields.length ? `it takes ${fields.map((f) => `\`${f}\``).join(', ')}` : 'it takes no arguments';
    return `${issue.keys.map((k) => `\`${k}\``).join(', ')}: unknown field (${accepted})`;
  }
  const path = issue.path.map(String).join('.');
  const value = issue.path.reduce<unknown>(
    (v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    raw,
  );
  // A union's own message is a bare "Invalid input": say what its branches accept instead.
  const union = issue.code === 'invalid_union' ? schemaAt(tool, issue.path) : undefined;
  if (value === undefined && issue.code === 'invalid_type') return `\`${path}\`: required, ${issue.expected} expected`;
  if (value === undefined && union) return `\`${path}\`: required, ${expectedOf(union)} expected`;
  const message = union
    ? `expected ${expectedOf(union)}`
    : issue.message.replace(/^Invalid input: /, '').replace(/^Too (big|small): /, '');
  return `\`${path}\`: ${message}${value !== undefined && typeof value !== 'object' ? ` (got ${typeof value === 'string' ? quoted(value) : JSON.stringify(value)})` : ''}`;
}

/**
 * The `vault` argument, resolved among the vaults the key reaches: exact id (preferred) or exact name; omitted with
 * one reachable vault means that one. An unknown vault and one the key may not reach get the same 404,
 * so a key learns nothing about vaults outside its grant.
 */
export function resolveVault(db: Db, principal: Principal, wanted: string | undefined): Vault {
  if (wanted !== undefined) {
    const found = findReachableVault(db, principal, wanted);
    if (!found) {
      // Suggested only among the vaults this key reaches: it learns nothing of the others.
      const near = closest(wanted, reachableVaults(db, principal), (v) => [v.id, v.name]).map(
        (v) => `"${v.name}" (${v.id})`,
      );
      const suggestion = near.length ? ` Did you mean ${near.join(' or ')}?` : '';
      throw new ServiceError(
        'vault_not_found',
        `\`vault\`: no vault ${quoted(wanted)} is available to this key.${suggestion} list_vaults shows every vault it reaches.`,
      );
    }
    return found;
  }
  const reachable = reachableVaults(db, principal);
  if (reachable.length === 1) return reachable[0]!;
  if (reachable.length === 0)
    throw new ServiceError('vault_not_found', 'This key reaches no vault yet. Import or sync one, or ask for a grant.');
  const choices = reachable.map((v) => `"${v.name}" (${v.id})`).join(', ');
  throw new ServiceError(
    'vault_required',
    `\`vault\`: this key reaches ${reachable.length} vaults; pass one of ${choices}.`,
  );
}
