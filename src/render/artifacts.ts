/**
 * Artifacts: files the action tools produce. Each is written under
 * `<data dir>/artifacts/<vault>/<artifactId>/<file name>`, then recorded in the store (with its outbox
 * entry) in one transaction; a failed render, a cancelled call or a failed commit leaves no file behind.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { ArtifactRef, ToolContext } from '../catalog/define.js';
import { resolveInside, safeSegment } from '../safe-path.js';
import { sql } from '../store/db.js';
import { keepPrivate, makePrivateDir, type CONTENT_DIRS } from '../store/private-files.js';
import { throwIfCancelled } from '../service/errors.js';

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

/**
 * Where a vault's file goes: `<data dir>/<artifacts|mail>/<vault>/<names…>`, each part one safe segment (the
 * same folder sync gives the vault's downloads) and checked to stay inside its content folder. `relative` is
 * what the store keeps.
 */
export function vaultFilePath(dataDir: string, folder: (typeof CONTENT_DIRS)[number], vaultId: string, ...names: string[]): { absolute: string; relative: string } {
  const absolute = resolveInside(join(dataDir, folder), safeSegment(vaultId), ...names.map(safeSegment));
  return { absolute, relative: relative(dataDir, absolute) };
}

export const artifactAbsolutePath = (dataDir: string, storedPath: string) => (isAbsolute(storedPath) ? storedPath : join(dataDir, storedPath));

/**
 * Writes an artifact with `write` and records it; the call's answer declares it (see ArtifactRef), with
 * `image` as the picture shown inline when there is one.
 */
export async function storeArtifact(
  ctx: ToolContext,
  meta: { kind: ArtifactKind; title: string; fileName: string; mimeType: string; image?: ArtifactRef['image'] },
  write: (absolutePath: string) => Promise<unknown>,
  /** The tool's name, for the `cancelled` message. */
  tool = 'the call',
): Promise<StoredArtifact & { outboxSeq: number }> {
  const vault = ctx.vault;
  const artifactId = `art_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const { absolute, relative: storedPath } = vaultFilePath(ctx.dataDir, 'artifacts', vault.id, artifactId, meta.fileName);
  makePrivateDir(dirname(absolute));
  try {
    await write(absolute);
    keepPrivate(absolute); // whoever wrote it (the folder already keeps it from others)
    // A caller who cancelled while the file was being finished gets nothing stored (the catch below deletes
    // the file). Once the commit below has run, a cancel comes too late: the artifact exists, and over MCP
    // the SDK drops the answer (the protocol accepts this race).
    throwIfCancelled(ctx.signal, tool);
    const sizeBytes = statSync(absolute).size;
    const createdAt = new Date().toISOString();
    const { outboxSeq } = ctx.commit(() => {
      sql(
        ctx.db,
        `INSERT INTO artifacts (vault_id, id, kind, title, file_name, mime_type, size_bytes, path, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(vault.id, artifactId, meta.kind, meta.title, meta.fileName, meta.mimeType, sizeBytes, storedPath, ctx.principal.name, createdAt);
      return { artifactId, kind: meta.kind, title: meta.title, fileName: meta.fileName, sizeBytes };
    });
    const { image, ...described } = meta;
    ctx.declareArtifact({ vaultId: vault.id, artifactId, fileName: meta.fileName, title: meta.title, mimeType: meta.mimeType, sizeBytes, image });
    return { artifactId, ...described, sizeBytes, createdAt, url: ctx.links.artifact(vault.id, artifactId, absolute), outboxSeq };
  } catch (err) {
    rmSync(dirname(absolute), { recursive: true, force: true });
    throw err;
  }
}
