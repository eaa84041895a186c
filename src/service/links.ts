/**
 * Where a caller can fetch what a tool points at (public files, artifacts). With the REST listener
 * running these are its URLs; otherwise a public file is a `vault-tools://` resource URI and an artifact
 * the `file://` URL of the file on disk. One place builds them, from the listener's own path table, so
 * every tool and surface agrees.
 */
import { pathToFileURL } from 'node:url';
import { PATHS } from '../surfaces/http/paths.js';

export interface Links {
  file(vaultId: string, fileId: string): string;
  /** `absolutePath`: where the artifact is on disk (used when no listener runs). */
  artifact(vaultId: string, artifactId: string, absolutePath: string): string;
}

/** The MCP resource URI of an artifact (resources/list and resources/read use it). */
export const artifactResourceUri = (vaultId: string, artifactId: string) =>
  `vault-tools://vaults/${encodeURIComponent(vaultId)}/artifacts/${encodeURIComponent(artifactId)}`;

export function makeLinks(baseUrl?: string): Links {
  const base = baseUrl ? baseUrl.replace(/\/+$/, '') : 'vault-tools:/';
  const fill = (template: string, values: Record<string, string>) =>
    base + template.replace(/^\/v1/, baseUrl ? '/v1' : '').replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(values[k]!));
  return {
    file: (vault, fileId) => fill(PATHS.file, { vault, fileId }),
    artifact: (vault, artifactId, absolutePath) => (baseUrl ? fill(PATHS.artifact, { vault, artifactId }) : pathToFileURL(absolutePath).href),
  };
}
