/** Files of a vault (public ones only ever leave the store) and artifacts the service produced. */
import { limitParam, sql, type Db } from './db.js';

export interface FileRow {
  id: string;
  name: string;
  description: string;
  mime_type: string | null;
  size_bytes: number | null;
  content_text: string | null;
  created_at: string;
}

export function listPublicFiles(db: Db, vaultId: string): FileRow[] {
  return sql(db, "SELECT * FROM files WHERE vault_id = ? AND visibility = 'public' ORDER BY name, id").all(
    vaultId,
  ) as FileRow[];
}

/** A public file; an internal one is reported exactly like a missing one. */
export function getPublicFile(db: Db, vaultId: string, id: string): FileRow | undefined {
  return sql(db, "SELECT * FROM files WHERE vault_id = ? AND id = ? AND visibility = 'public'").get(vaultId, id) as
    | FileRow
    | undefined;
}

export interface ArtifactRow {
  id: string;
  kind: 'chart' | 'workbook' | 'csv' | 'report';
  title: string;
  file_name: string;
  mime_type: string;
  size_bytes: number;
  path: string | null;
  remote_url: string | null;
  created_by: string | null;
  created_at: string;
}

/** Newest first; `words` must all occur in the title (case-insensitive). */
export function findArtifacts(
  db: Db,
  vaultId: string,
  opts: { words: string[]; kind?: string; limit: number },
): ArtifactRow[] {
  const clauses = opts.words.map((_, i) => `AND title LIKE @w${i} ESCAPE '\\'`).join(' ');
  const params: Record<string, unknown> = { v: vaultId, kind: opts.kind ?? null, limit: opts.limit };
  opts.words.forEach((w, i) => (params[`w${i}`] = `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  return sql(
    db,
    `SELECT * FROM artifacts WHERE vault_id = @v AND (@kind IS NULL OR kind = @kind) ${clauses}
     ORDER BY created_at DESC, rowid DESC LIMIT ${limitParam('@limit')}`,
  ).all(params) as ArtifactRow[];
}

/** The newest artifacts of some vaults, for MCP resources/list. */
export function recentArtifacts(db: Db, vaultIds: string[], limit: number): (ArtifactRow & { vault_id: string })[] {
  return sql(
    db,
    `SELECT * FROM artifacts WHERE vault_id IN (SELECT value FROM json_each(?)) ORDER BY created_at DESC, rowid DESC LIMIT ${limitParam('?')}`,
  ).all(JSON.stringify(vaultIds), limit) as (ArtifactRow & { vault_id: string })[];
}

export function getArtifact(db: Db, vaultId: string, id: string): ArtifactRow | undefined {
  return sql(db, 'SELECT * FROM artifacts WHERE vault_id = ? AND id = ?').get(vaultId, id) as ArtifactRow | undefined;
}

/** Records an artifact a tool wrote (inside the tool's commit, with its outbox entry). `path` is relative to the data dir. */
const writeArtifactSql = (verb: 'INSERT' | 'INSERT OR REPLACE') =>
  `${verb} INTO artifacts (vault_id, id, kind, title, file_name, mime_type, size_bytes, path, created_by, created_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export function insertArtifact(
  db: Db,
  a: {
    vaultId: string;
    id: string;
    kind: ArtifactRow['kind'];
    title: string;
    fileName: string;
    mimeType: string;
    sizeBytes: number;
    path: string;
    createdBy: string;
    createdAt: string;
  },
  verb: 'INSERT' | 'INSERT OR REPLACE' = 'INSERT',
): void {
  sql(db, writeArtifactSql(verb)).run(
    a.vaultId,
    a.id,
    a.kind,
    a.title,
    a.fileName,
    a.mimeType,
    a.sizeBytes,
    a.path,
    a.createdBy,
    a.createdAt,
  );
}

/** A file's stored text (null when it has none, undefined when there is no such file). */
export function fileText(db: Db, vaultId: string, id: string): string | null | undefined {
  return sql(db, 'SELECT content_text FROM files WHERE vault_id = ? AND id = ?').pluck().get(vaultId, id) as
    | string
    | null
    | undefined;
}

export interface UpstreamFile {
  id: string;
  name: string;
  description: string;
  mimeType: string | null;
  sizeBytes: number | null;
  createdAt: string;
}

/**
 * The vault's files become upstream's public ones (inside the caller's transaction). Those `keepText` names
 * keep the text they have; the others have none until setFileText gives it (texts are fetched one at a time,
 * never all held at once).
 */
export function replaceFilesFromUpstream(
  db: Db,
  vaultId: string,
  files: readonly UpstreamFile[],
  keepText: ReadonlySet<string>,
): void {
  const listed = new Set(files.map((f) => f.id));
  const remove = sql(db, 'DELETE FROM files WHERE vault_id = ? AND id = ?');
  for (const id of sql(db, 'SELECT id FROM files WHERE vault_id = ?').pluck().all(vaultId) as string[])
    if (!listed.has(id)) remove.run(vaultId, id);
  const upsert = sql(
    db,
    `INSERT INTO files (vault_id, id, name, description, visibility, mime_type, size_bytes, content_text, created_at)
     VALUES (?, ?, ?, ?, 'public', ?, ?, NULL, ?)
     ON CONFLICT (vault_id, id) DO UPDATE SET name = excluded.name, description = excluded.description, visibility = 'public',
       mime_type = excluded.mime_type, size_bytes = excluded.size_bytes, created_at = excluded.created_at,
       content_text = CASE WHEN ? THEN files.content_text END`,
  );
  for (const f of files)
    upsert.run(vaultId, f.id, f.name, f.description, f.mimeType, f.sizeBytes, f.createdAt, keepText.has(f.id) ? 1 : 0);
}

export function setFileText(db: Db, vaultId: string, id: string, text: string): void {
  sql(db, 'UPDATE files SET content_text = ? WHERE vault_id = ? AND id = ?').run(text, vaultId, id);
}

/** Every artifact of a vault with where its file is (relative to the data dir). */
export function artifactPaths(db: Db, vaultId: string): { id: string; path: string | null; mimeType: string }[] {
  return sql(db, 'SELECT id, path, mime_type AS mimeType FROM artifacts WHERE vault_id = ?').all(vaultId) as {
    id: string;
    path: string | null;
    mimeType: string;
  }[];
}

/**
 * Artifacts a tool made here that no outbox entry names (export_report, export_deck): upstream never had them
 * and never will, so a pull that does not list them must not remove them. Rows a pull wrote say `created_by` sync.
 */
export function artifactsMadeHereOnly(db: Db, vaultId: string): Set<string> {
  return new Set(
    sql(
      db,
      `SELECT a.id FROM artifacts a WHERE a.vault_id = ? AND a.created_by IS NOT 'sync' AND a.path IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.vault_id = a.vault_id AND o.result_json IS NOT NULL AND json_extract(o.result_json, '$.artifactId') = a.id)`,
    )
      .pluck()
      .all(vaultId) as string[],
  );
}

/** Where every artifact of the store that has a file in the data dir keeps it (relative to the data dir, or absolute). */
export function allArtifactPaths(db: Db): string[] {
  return sql(db, 'SELECT path FROM artifacts WHERE path IS NOT NULL').pluck().all() as string[];
}

/** Removes an artifact's row (its file is the caller's to remove, once the transaction committed). */
export function deleteArtifact(db: Db, vaultId: string, id: string): void {
  sql(db, 'DELETE FROM artifacts WHERE vault_id = ? AND id = ?').run(vaultId, id);
}

/** Records an artifact upstream produced, downloaded to `path` (relative to the data dir). */
export function upsertArtifactFromUpstream(
  db: Db,
  vaultId: string,
  a: {
    id: string;
    kind: ArtifactRow['kind'];
    title: string;
    fileName: string;
    mimeType: string;
    sizeBytes: number;
    path: string;
    createdAt: string;
  },
): void {
  insertArtifact(db, { ...a, vaultId, createdBy: 'sync' }, 'INSERT OR REPLACE');
}

/** A vault's file, with its text for reading and search. */
export function insertFile(
  db: Db,
  vaultId: string,
  f: {
    id: string;
    name: string;
    description: string;
    visibility: string;
    mimeType: string | null;
    sizeBytes: number | null;
    contentText: string | null;
    createdAt: string;
  },
): void {
  sql(
    db,
    `INSERT INTO files (vault_id, id, name, description, visibility, mime_type, size_bytes, content_text, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(vaultId, f.id, f.name, f.description, f.visibility, f.mimeType, f.sizeBytes, f.contentText, f.createdAt);
}

/** How many of a vault's newest artifacts completion looks through for a word of their title (ids are matched among all). */
const COMPLETION_SCAN = 2000;

/**
 * Artifact ids of a vault whose id starts with `typed`, or (among its newest COMPLETION_SCAN) whose title,
 * file name or kind has a word that does ("findings", "pdf", "report"): a person types what they remember,
 * not the id. Newest first (argument completion); `limit` at most.
 */
export function artifactIdsStartingWith(db: Db, vaultId: string, typed: string, limit: number): string[] {
  const byId = sql(
    db,
    `SELECT id, created_at FROM artifacts WHERE vault_id = ? AND substr(id, 1, length(?)) = ? ORDER BY created_at DESC, rowid DESC LIMIT ${limitParam('?')}`,
  ).all(vaultId, typed, typed, limit) as { id: string; created_at: string }[];
  const lower = typed.toLowerCase();
  const byWord = !lower
    ? []
    : (
        sql(
          db,
          `SELECT id, created_at, kind, title, file_name FROM artifacts WHERE vault_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ${limitParam('?')}`,
        ).all(vaultId, COMPLETION_SCAN) as (ArtifactRow & { created_at: string })[]
      ).filter((a) =>
        `${a.kind} ${a.title} ${a.file_name}`
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .some((w) => w.startsWith(lower)),
      );
  const seen = new Set<string>();
  return [...byId, ...byWord]
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id))
    .filter((a) => !seen.has(a.id) && seen.add(a.id))
    .slice(0, limit)
    .map((a) => a.id);
}
