/**
 * Artifacts: files the action tools produce. Each is written under
 * `<data dir>/artifacts/<vault>/<artifactId>/<file name>`, then recorded in the store (with its outbox
 * entry) in one transaction; a failed render, a cancelled call or a failed commit leaves no file behind.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { throwIfCancelled } from '../core/errors.js';
import { vaultFilePath } from '../render/artifacts.js';
import { writeTransaction } from '../store/db.js';
import { insertArtifact } from '../store/files.js';
import { keepPrivate, makePrivateDir } from '../store/private-files.js';
import type { ArtifactRef, ToolContext } from './define.js';
import { isoUtc } from '../time.js';

export type ArtifactKind = 'chart' | 'workbook' | 'csv' | 'report';

export interface StoredArtifact {
  artifactId: string;
  kind: ArtifactKind;
  title: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
  url: string;
  createdAt: string;
}

/** A file name from a title: letters, digits and dashes, at most 80 characters, plus the extension. */
export function fileNameFor(title: string, extension: string): string {
  const base = title
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .toLowerCase();
  return `${base || 'artifact'}.${extension}`;
}

/** What an artifact tool tells storeArtifact about the file it writes. */
export interface ArtifactMeta {
  kind: ArtifactKind;
  title: string;
  fileName: string;
  mimeType: string;
  image?: ArtifactRef['image'];
}

/**
 * Writes an artifact with `write` and records it; the call's answer declares it (see ArtifactRef), with
 * `image` as the picture shown inline when there is one. The record goes with an outbox entry (ctx.commit), so
 * sync makes the same file upstream; `answer` makes the tool's whole answer from the stored artifact, in that
 * transaction (see ToolContext.commit), and is what this returns.
 */
export async function storeArtifact<A>(
  ctx: ToolContext,
  meta: ArtifactMeta,
  write: (absolutePath: string) => Promise<unknown>,
  /** The tool's name, for the `cancelled` message. */
  tool: string,
  answer: (stored: StoredArtifact & { outboxSeq: number }) => A,
): Promise<A> {
  return writeAndRecord(ctx, meta, write, tool, (insert, stored) =>
    ctx.commit(insert, (_, outboxSeq) => answer({ ...stored, outboxSeq })),
  );
}

/**
 * storeArtifact for a file only this machine keeps: a tool the hosted service does not have (export_deck), or one
 * whose file is for the person here (export_report, sync.staysLocal). The record is written in a transaction of its
 * own, with no outbox entry; a pull keeps it (artifactsMadeHereOnly).
 */
export async function storeLocalArtifact(
  ctx: ToolContext,
  meta: ArtifactMeta,
  write: (absolutePath: string) => Promise<unknown>,
  tool = 'the call',
): Promise<StoredArtifact> {
  return writeAndRecord(ctx, meta, write, tool, (insert, stored) => {
    writeTransaction(ctx.db, insert);
    return stored;
  });
}

async function writeAndRecord<R>(
  ctx: ToolContext,
  meta: ArtifactMeta,
  write: (absolutePath: string) => Promise<unknown>,
  tool: string,
  /** Runs `insert` (the artifact's row) in a transaction, with an outbox entry or without, and answers. */
  record: (insert: () => unknown, stored: StoredArtifact) => R,
): Promise<R> {
  const vault = ctx.vault;
  const artifactId = `art_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const { absolute, relative: storedPath } = vaultFilePath(
    ctx.dataDir,
    'artifacts',
    vault.id,
    artifactId,
    meta.fileName,
  );
  makePrivateDir(dirname(absolute));
  try {
    await write(absolute);
    keepPrivate(absolute); // whoever wrote it (the folder already keeps it from others)
    // A caller who cancelled while the file was being finished gets nothing stored (the catch below deletes
    // the file). Once the record below is committed, a cancel comes too late: the artifact exists, and over MCP
    // the SDK drops the answer (the protocol accepts this race).
    throwIfCancelled(ctx.signal, tool);
    const sizeBytes = statSync(absolute).size;
    const createdAt = isoUtc(ctx.now);
    const { image, ...described } = meta;
    const stored = {
      artifactId,
      ...described,
      sizeBytes,
      createdAt,
      url: ctx.links.artifact(vault.id, artifactId, absolute),
    };
    const answer = record(() => {
      insertArtifact(ctx.db, {
        vaultId: vault.id,
        id: artifactId,
        kind: meta.kind,
        title: meta.title,
        fileName: meta.fileName,
        mimeType: meta.mimeType,
        sizeBytes,
        path: storedPath,
        createdBy: ctx.principal.name,
        createdAt,
      });
      return { artifactId, kind: meta.kind, title: meta.title, fileName: meta.fileName, sizeBytes };
    }, stored);
    ctx.declareArtifact({
      vaultId: vault.id,
      artifactId,
      fileName: meta.fileName,
      title: meta.title,
      mimeType: meta.mimeType,
      sizeBytes,
      image,
    });
    return answer;
  } catch (err) {
    rmSync(dirname(absolute), { recursive: true, force: true });
    throw err;
  }
}
