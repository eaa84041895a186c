/** The public file record list_files and get_file share. */
import { z } from 'zod';
import { isoDatetime } from '../shapes.js';
import type { FileRow } from '../../store/files.js';
import type { Links } from '../../core/links.js';

export const publicFile = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  mimeType: z.string().nullable(),
  sizeBytes: z.number().int().nullable(),
  downloadUrl: z.string(),
  createdAt: isoDatetime,
});

export const toPublicFile = (f: FileRow, vaultId: string, links: Links) => ({
  id: f.id,
  name: f.name,
  description: f.description,
  mimeType: f.mime_type,
  sizeBytes: f.size_bytes,
  downloadUrl: links.file(vaultId, f.id),
  createdAt: f.created_at,
});
