/**
 * Every writer writes `<path>.partial` and renames it to `<path>` only once the file is complete, so a
 * failed export (a row iterator that throws, a full disk, a bug) leaves neither a half file nor the
 * partial one behind.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export const partialPath = (path: string) => `${path}.partial`;

export async function writeAtomically<T>(path: string, write: (partial: string) => Promise<T>): Promise<T> {
  const partial = partialPath(path);
  await mkdir(dirname(path), { recursive: true });
  try {
    const result = await write(partial);
    await rename(partial, path);
    return result;
  } catch (error) {
    await rm(partial, { force: true }).catch(() => undefined);
    throw error;
  }
}
