/** Whether a process with this id runs (EPERM: it does, as another user): for lock files that hold a pid. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
