import { z } from 'zod';
import { defineTool } from '../define.js';
import { publicFile, toPublicFile } from './file-shape.js';
import { getPublicFile } from '../../store/files.js';
import { notFound } from '../../core/errors.js';

export const EXCERPT_CHARS = 4000;

export default defineTool({
  name: 'get_file',
  title: 'Get a public file',
  description:
    'One public file: metadata, download URL, and an excerpt of its parsed text (first 4,000 characters) when it was parsed.',
  input: { fileId: z.string().min(1).describe('from list_files') },
  output: publicFile.extend({
    contentExcerpt: z.string().nullable(),
    excerptTruncated: z.boolean(),
  }),
  run: ({ fileId }, { db, vault, links }) => {
    const f = getPublicFile(db, vault.id, fileId);
    if (!f) throw notFound('public file', fileId, vault.name);
    const text = f.content_text;
    return {
      ...toPublicFile(f, vault.id, links),
      contentExcerpt: text === null ? null : text.slice(0, EXCERPT_CHARS),
      excerptTruncated: text !== null && text.length > EXCERPT_CHARS,
    };
  },
});
