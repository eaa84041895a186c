/**
 * Every writer writes `<path>.partial` and renames it to `<path>` only once the file is complete, so a
 * failed export (a row iterator that throws, a full disk, a bug) leaves neither a half file nor the
 * partial one behind.
 */
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../store/private-files.js';

export const partialPath = (path: string) => `${path}.partial`;

export async function writeAtomically<T>(path: string, write: (partial: string) => Promise<T>): Promise<T> {
  const partial = partialPath(path);
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    // Made private before any byte is written: the writers open it with 'w', which keeps an existing file's mode.
    await writeFile(partial, '', { mode: PRIVATE_FILE_MODE });
    await chmod(partial, PRIVATE_FILE_MODE);
    const result = await write(partial);
    await rename(partial, path);
    return result;
  } catch (error) {
    await rm(partial, { force: true }).catch(() => undefined);
    throw error;
  }
}
