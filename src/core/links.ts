/**
 * Where a caller can fetch what a tool points at (public files, artifacts). With the REST listener
 * running these are its URLs; otherwise a public file is a `vault-tools://` resource URI and an artifact
 * the `file://` URL of the file on disk. One place builds them, from the listener's own path table, so
 * every tool and surface agrees.
 */
import { pathToFileURL } from 'node:url';
import { PATHS } from '../core/rest-paths.js';

export interface Links {
  file(vaultId: string, fileId: string): string;
  /** `absolutePath`: where the artifact is on disk (used when no listener runs). */
  artifact(vaultId: string, artifactId: string, absolutePath: string): string;
}

/** The MCP resource URI of an artifact (resources/list, resources/read and tool results' resource_link use it). */
export const artifactResourceUri = (vaultId: string, artifactId: string) =>
  `vault-tools://vaults/${encodeURIComponent(vaultId)}/artifacts/${encodeURIComponent(artifactId)}`;

/** The MCP resource URI of a public file (a file's download URL when no listener runs; resources/read serves it). */
export const fileResourceUri = (vaultId: string, fileId: string) =>
  `vault-tools://vaults/${encodeURIComponent(vaultId)}/files/${encodeURIComponent(fileId)}`;

const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(values[k]!));

export function makeLinks(baseUrl?: string): Links {
  if (baseUrl) {
    const base = baseUrl.replace(/\/+$/, '');
    return {
      file: (vault, fileId) => base + fill(PATHS.file, { vault, fileId }),
      artifact: (vault, artifactId) => base + fill(PATHS.artifact, { vault, artifactId }),
    };
  }
  return {
    file: fileResourceUri,
    artifact: (_vault, _artifactId, absolutePath) => pathToFileURL(absolutePath).href,
  };
}
