/**
 * Where a caller can fetch what a tool points at (public files, artifacts). With the REST listener
 * running these are its URLs; otherwise they are `vault-tools://` resource URIs, which MCP clients read
 * as resources. One place builds them, so every tool and surface agrees.
 */
export interface Links {
  file(vaultId: string, fileId: string): string;
  artifact(vaultId: string, artifactId: string): string;
}

export function makeLinks(baseUrl?: string): Links {
  const enc = encodeURIComponent;
  if (baseUrl) {
    const base = baseUrl.replace(/\/+$/, '');
    return {
      file: (v, f) => `${base}/v1/vaults/${enc(v)}/files/${enc(f)}`,
      artifact: (v, a) => `${base}/v1/vaults/${enc(v)}/artifacts/${enc(a)}`,
    };
  }
  return {
    file: (v, f) => `vault-tools://vaults/${enc(v)}/files/${enc(f)}`,
    artifact: (v, a) => `vault-tools://vaults/${enc(v)}/artifacts/${enc(a)}`,
  };
}
