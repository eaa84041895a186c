/** A service answer as an MCP tool result: the JSON text, what its files look like, and errors. */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { ArtifactRef } from '../../catalog/define.js';
import { artifactResourceUri } from '../../core/links.js';
import type { ErrorCode } from '../../core/errors.js';

/**
 * A stored file as content blocks: its picture (when it has one, so the model sees what it drew) and a
 * resource_link to its `vault-tools://` URI, which resources/read serves to any key that reaches the vault.
 */
export function artifactBlocks(artifact: ArtifactRef): ContentBlock[] {
  const link: ContentBlock = {
    type: 'resource_link',
    uri: artifactResourceUri(artifact.vaultId, artifact.artifactId),
    name: artifact.fileName,
    title: artifact.title,
    mimeType: artifact.mimeType,
    size: artifact.sizeBytes,
  };
  return artifact.image
    ? [{ type: 'image', data: artifact.image.data.toString('base64'), mimeType: artifact.image.mimeType }, link]
    : [link];
}

/** A tool error as MCP wants it: an `isError` result whose text is the service's error body (a code of the catalog's). */
export function errorResult(code: ErrorCode, message: string, requestId: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code, message, requestId } }) }] };
}
