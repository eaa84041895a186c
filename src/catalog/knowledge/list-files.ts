import { z } from 'zod';
import { defineTool } from '../define.js';
import { publicFile, toPublicFile } from './file-shape.js';
import { listPublicFiles } from '../../store/files.js';

export default defineTool({
  name: 'list_files',
  title: 'List public files',
  description: 'Public files of the vault: name, description, download URL. Internal files are never listed or served.',
  input: {},
  output: z.object({ files: z.array(publicFile) }),
  run: (_args, { db, vault, links }) => ({
    files: listPublicFiles(db, vault.id).map((f) => toPublicFile(f, vault.id, links)),
  }),
});
