/**
 * What every resource module of a pull shares: the context it runs in, tolerant parsing of upstream records
 * (unknown fields are kept as raw JSON in `sync_extra`, optional fields may be missing), fingerprints, and
 * the "replace this vault's list when it changed" step used by the small list resources.
 */
import { z } from 'zod';
import { writeTransaction, type Db } from '../../store/db.js';
import { checkpoint, replaceExtras, setCheckpoint } from '../../store/sync-checkpoints.js';
import type { RemoteClient } from '../remote.js';
import type { RecordKind } from '../../catalog/define.js';
import type { SyncLimits } from '../limits.js';

export interface PullContext {
  db: Db;
  remote: RemoteClient;
  vaultId: string;
  limits: SyncLimits;
  /** Progress of the current resource: items done, and the total when known. */
  progress(resource: string, done: number, total?: number): void;
  /**
   * Something upstream sent that was not stored: a record (a required field missing), a list answered without
   * its field, a text past its limit. Counted and reported, not fatal.
   */
  skip(resource: string, why: string): void;
  /** Ids of records created here whose outbox entries have not been pushed yet: a pull must not delete them. */
  localOnly(kind: RecordKind): Set<string>;
}

/** An upstream id for a message: quoted and escaped (no control characters reach a terminal), and cut short. */
export function describeId(id: unknown): string {
  const quoted = JSON.stringify(String(id));
  return quoted.length > 80 ? `${quoted.slice(0, 76)}…" (${String(id).length} characters)` : quoted;
}

/**
 * Work started now and awaited later (the next page fetched while this one lands): a failure in between is
 * not an unhandled rejection; the later await still throws it.
 */
export function ahead<T>(work: Promise<T>): Promise<T> {
  work.catch(() => {});
  return work;
}

import { fingerprint } from '../fingerprint.js';
import { storedTimeOf } from '../../time.js';

export { fingerprint };

/** Optional on the wire, a default in the store: missing or null becomes the default. */
export const orDefault = <T extends z.ZodType>(schema: T, fallback: z.output<T>) =>
  schema.nullish().transform((v) => (v ?? fallback) as z.output<T>);
export const optionalString = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
export const stringList = orDefault(z.array(z.string()), []);
/** A moment upstream sent, as the store keeps every moment (src/time.ts: UTC, whole seconds), so text order is time order. */
export const wireTime = z.string().transform(storedTimeOf);
export const optionalWireTime = optionalString.transform((v) => (v === null ? null : storedTimeOf(v)));

export interface Parsed<T> {
  item: T;
  /** Fields the schema does not name, kept rather than dropped. */
  extra: Record<string, unknown> | undefined;
}

/** Parses each record on its own: a bad one is skipped with its reason, the rest land. */
export function parseEach<Shape extends z.ZodRawShape>(
  ctx: Pick<PullContext, 'skip'>,
  resource: string,
  shape: Shape,
  items: unknown,
): Parsed<z.output<z.ZodObject<Shape>>>[] {
  if (!Array.isArray(items)) {
    ctx.skip(resource, `expected a list, got ${items === null ? 'null' : typeof items}`);
    return [];
  }
  const schema = z.object(shape);
  const known = new Set(Object.keys(shape));
  const out: Parsed<z.output<z.ZodObject<Shape>>>[] = [];
  for (const raw of items) {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const id = raw && typeof raw === 'object' && 'id' in raw ? ` ${describeId((raw as { id: unknown }).id)}` : '';
      ctx.skip(
        resource,
        `record${id}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(record)'} ${i.message}`).join('; ')}`,
      );
      continue;
    }
    const extraEntries = Object.entries(raw as Record<string, unknown>).filter(([k]) => !known.has(k));
    out.push({ item: parsed.data, extra: extraEntries.length ? Object.fromEntries(extraEntries) : undefined });
  }
  return out;
}

/**
 * A read tool's answer, asked with the ETag of the answer last seen (If-None-Match). When the server says it
 * has not changed (304: no body on the wire), the copy kept beside the checkpoints is the answer; a server
 * without ETags answers in full every time, as before. The copy is only a cache: what lands is still decided
 * by the fingerprints, so it may be saved before the answer lands.
 */
export async function readTool<T>(ctx: PullContext, name: string, body: Record<string, unknown>): Promise<T> {
  const key = `answer ${name} ${JSON.stringify(body)}`;
  const kept = checkpoint(ctx.db, ctx.vaultId, key);
  const cached = kept ? (JSON.parse(kept) as { etag: string; data: T }) : undefined;
  const answer = await ctx.remote.toolIfChanged<T>(name, body, cached?.etag);
  if (!answer) return cached!.data; // 304 only answers a request that sent the cached copy's ETag
  if (answer.etag) setCheckpoint(ctx.db, ctx.vaultId, key, JSON.stringify({ etag: answer.etag, data: answer.data }));
  return answer.data;
}

/**
 * A small list resource: fetched whole every sync; when its fingerprint is unchanged nothing is written,
 * otherwise `write` replaces the vault's rows in one transaction with the checkpoint.
 */
export async function pullList<Shape extends z.ZodRawShape>(
  ctx: PullContext,
  resource: string,
  shape: Shape,
  fetch: () => Promise<unknown>,
  write: (records: Parsed<z.output<z.ZodObject<Shape>>>[]) => void,
): Promise<{ resource: string; changed: boolean; count: number }> {
  const raw = await fetch();
  if (!Array.isArray(raw)) {
    // Taken as an empty list, it would remove every stored record: this list is skipped, the others go on.
    ctx.skip(
      resource,
      `the answer has no list of ${resource} (got ${raw === null ? 'null' : typeof raw}), so the stored ones are kept`,
    );
    return { resource, changed: false, count: 0 };
  }
  const print = fingerprint(raw);
  if (checkpoint(ctx.db, ctx.vaultId, resource) === print) return { resource, changed: false, count: raw.length };
  const records = parseEach(ctx, resource, shape, raw);
  writeTransaction(ctx.db, () => {
    write(records);
    replaceExtras(
      ctx.db,
      ctx.vaultId,
      resource,
      records.map((r) => ({ id: String((r.item as { id?: unknown }).id ?? ''), extra: r.extra })),
    );
    setCheckpoint(ctx.db, ctx.vaultId, resource, print);
  });
  ctx.progress(resource, records.length, records.length);
  return { resource, changed: true, count: records.length };
}
