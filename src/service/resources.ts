/**
 * The vault's resources as the service gives them to any surface: the latest brief of each kind, the
 * artifacts tools produced and the public files, each named by a `vault-tools://` URI. The access rule is
 * the tools' own (`resolveVault`: a key reads a resource of a vault it reaches, nothing else), so MCP's
 * resources/read and any other surface answer alike.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Principal } from '../core/principal.js';
import { artifactAbsolutePath } from '../render/artifacts.js';
import { latestBrief, latestBriefsByKind } from '../store/briefs.js';
import { getArtifact, getPublicFile, recentArtifacts } from '../store/files.js';
import { reachableVaults } from '../store/vaults.js';
import { quoted, ServiceError } from '../core/errors.js';
import { resolveVault, type Service } from './invoke.js';
import { artifactResourceUri } from '../core/links.js';

export interface ResourceEntry {
  uri: string;
  name: string;
  title: string;
  mimeType: string;
  size?: number;
}

/** What a URI holds: text, or bytes for binary files. */
export type ResourceContent = { uri: string; mimeType: string } & ({ text: string } | { bytes: Buffer });

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'vault-tools://vaults/{vault}/briefs/{kind}',
    name: 'brief',
    title: 'The latest brief of a kind: daily, weekly-plan or weekly-digest',
    mimeType: 'text/markdown',
  },
  {
    uriTemplate: 'vault-tools://vaults/{vault}/artifacts/{artifactId}',
    name: 'artifact',
    title: 'A chart, workbook, csv or report a tool produced',
    mimeType: 'application/octet-stream',
  },
  {
    uriTemplate: 'vault-tools://vaults/{vault}/files/{fileId}',
    name: 'file',
    title: "A public file's text (list_files and get_file give its URI)",
    mimeType: 'text/plain',
  },
] as const;

const ARTIFACT_URI = /^vault-tools:\/\/vaults\/([^/]+)\/artifacts\/([^/]+)$/;
const FILE_URI = /^vault-tools:\/\/vaults\/([^/]+)\/files\/([^/]+)$/;
const BRIEF_URI = /^vault-tools:\/\/vaults\/([^/]+)\/briefs\/(daily|weekly-plan|weekly-digest)$/;
/** Artifacts listed at most (newest first); older ones are still readable by URI. */
const ARTIFACTS_LISTED = 200;
const briefUri = (vaultId: string, kind: string) =>
  `vault-tools://vaults/${encodeURIComponent(vaultId)}/briefs/${kind}`;

/** The resources of every vault the key reaches: the latest brief of each kind, then the newest artifacts. */
export function listResources(service: Service, who: Principal): ResourceEntry[] {
  const vaults = reachableVaults(service.db, who);
  const names = new Map(vaults.map((v) => [v.id, v.name]));
  const briefs = vaults.flatMap((v) =>
    latestBriefsByKind(service.db, v.id).map((b) => ({
      uri: briefUri(v.id, b.kind),
      name: `${v.id}-${b.kind}.md`,
      title: `Latest ${b.kind} brief (${v.name})`,
      mimeType: 'text/markdown',
    })),
  );
  const artifacts = recentArtifacts(
    service.db,
    vaults.map((v) => v.id),
    ARTIFACTS_LISTED,
  ).map((a) => ({
    uri: artifactResourceUri(a.vault_id, a.id),
    name: a.file_name,
    title: `${describeArtifact(a)} (${names.get(a.vault_id)})`,
    mimeType: a.mime_type,
    size: a.size_bytes,
  }));
  return [...briefs, ...artifacts];
}

const KIND_WORDS: Record<string, string> = {
  chart: 'chart (PNG)',
  workbook: 'workbook (xlsx)',
  csv: 'CSV',
  report: 'PDF report',
};

/**
 * An artifact told apart from others of the same title (the same export made twice): its title, kind and
 * the second it was made, "Findings (2026-11-28): PDF report, 2026-11-28 09:15:02 UTC".
 */
export function describeArtifact(a: { title: string; kind: string; created_at: string }): string {
  return `${a.title}: ${KIND_WORDS[a.kind] ?? a.kind}, ${a.created_at.slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * A brief as one markdown document: its title as the heading, when it was written, then its body. A body that
 * opens with a heading of its own (the fixtures' briefs do: "# Week plan: 16-20 November") loses that line, so
 * the reader does not meet the same heading twice.
 */
function briefDocument(b: { title: string; createdAt: string; markdown: string }): string {
  const body = b.markdown.replace(/^\s*# [^\n]*\n+/, '');
  return `# ${b.title}\n\n_${b.createdAt}_\n\n${body}`;
}

/**
 * The content of one URI, or a ServiceError: `not_found` for what the vault does not hold, the vault
 * errors of `resolveVault` for a vault the key does not reach. `undefined` for a URI that names no resource.
 */
export function readResource(service: Service, who: Principal, uri: string): ResourceContent | undefined {
  const brief = BRIEF_URI.exec(uri);
  if (brief) {
    const vault = resolveVault(service.db, who, decodeURIComponent(brief[1]!));
    const b = latestBrief(service.db, vault.id, brief[2]!);
    if (!b) throw new ServiceError('not_found', `Vault "${vault.name}" has no ${brief[2]} brief yet.`);
    return { uri, mimeType: 'text/markdown', text: briefDocument(b) };
  }
  const artifact = ARTIFACT_URI.exec(uri);
  if (artifact) {
    const a = artifactFile(service, who, decodeURIComponent(artifact[1]!), decodeURIComponent(artifact[2]!));
    const bytes = readFileSync(a.path);
    const isText = /^text\/|\/(json|csv)$/.test(a.mimeType);
    return isText ? { uri, mimeType: a.mimeType, text: bytes.toString('utf8') } : { uri, mimeType: a.mimeType, bytes };
  }
  const file = FILE_URI.exec(uri);
  if (file) {
    const f = publicFileText(service, who, decodeURIComponent(file[1]!), decodeURIComponent(file[2]!));
    return { uri, mimeType: 'text/plain', text: f.text };
  }
  return undefined;
}

/**
 * An artifact's file on disk, for a key that reaches its vault (others get the vault's 404, as for tools):
 * what REST streams and resources/read returns.
 */
export function artifactFile(
  service: Service,
  who: Principal,
  vaultRef: string,
  artifactId: string,
): { fileName: string; mimeType: string; path: string } {
  const vault = resolveVault(service.db, who, vaultRef);
  const row = getArtifact(service.db, vault.id, artifactId);
  const path = row?.path ? artifactAbsolutePath(service.dataDir, row.path) : undefined;
  if (!row || !path || !existsSync(path))
    throw new ServiceError('not_found', `No artifact ${quoted(artifactId)} in vault "${vault.name}".`);
  return { fileName: row.file_name, mimeType: row.mime_type, path };
}

/** A public file's parsed text (the store keeps text, not the original bytes), for a key that reaches its vault. */
export function publicFileText(
  service: Service,
  who: Principal,
  vaultRef: string,
  fileId: string,
): { name: string; text: string } {
  const vault = resolveVault(service.db, who, vaultRef);
  const row = getPublicFile(service.db, vault.id, fileId);
  if (!row) throw new ServiceError('not_found', `No public file ${quoted(fileId)} in vault "${vault.name}".`);
  return { name: row.name, text: row.content_text ?? '' };
}
