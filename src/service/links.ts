/**
 * Where a caller can fetch what a tool points at (public files, artifacts). With the REST listener
 * running these are its URLs; otherwise they are `vault-tools://` resource URIs, which MCP clients read
 * as resources. One place builds them, from the listener's own path table, so every surface agrees.
 */
import { PATHS } from '../surfaces/http/paths.js';

export interface Links {
  file(vaultId: string, fileId: string): string;
  artifact(vaultId: string, artifactId: string): string;
}

export function makeLinks(baseUrl?: string): Links {
  const base = baseUrl ? baseUrl.replace(/\/+$/, '') : 'vault-tools:/';
  const fill = (template: string, values: Record<string, string>) =>
    base + template.replace(/^\/v1/, baseUrl ? '/v1' : '').replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(values[k]!));
  return {
    file: (vault, fileId) => fill(PATHS.file, { vault, fileId }),
    artifact: (vault, artifactId) => fill(PATHS.artifact, { vault, artifactId }),
  };
}
